"""`rlvr check --verifier math|code|qa|rubric|exact FILE.jsonl`: run a verifier over a user's own
response/reference pairs. One JSON verdict per input line on stdout, a summary on stderr. A bad
line stops the command before anything runs, with file:line and the field at fault."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer

from stages.verifiers.registry import build_verifier, parse_verifier_config
from stages.verifiers.types import CodeReference, QAReference, RubricReference, VerifierError

KINDS = ("math", "code", "qa", "rubric", "exact")


class _BadLine(Exception):
    pass


def _text(obj: dict[str, Any], field: str) -> str:
    if field not in obj:
        raise _BadLine(f"field {field!r} missing")
    value = obj[field]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and field == "reference":
        return str(value)
    if not isinstance(value, str):
        raise _BadLine(f"field {field!r} must be a string, got {type(value).__name__}")
    return value


def _reference(kind: str, obj: dict[str, Any]) -> Any:
    if kind in ("math", "exact"):
        return _text(obj, "reference")
    if kind == "code":
        tests = obj.get("tests", obj.get("reference"))
        if isinstance(tests, list) and all(isinstance(t, str) for t in tests):
            return CodeReference(tests="\n".join(tests))  # MBPP's test_list shape
        return CodeReference(tests=_text(obj, "tests" if "tests" in obj else "reference"))
    if kind == "qa":
        ref = obj.get("reference")
        if isinstance(ref, dict):
            try:
                return QAReference(**ref)
            except (TypeError, ValueError) as e:
                raise _BadLine(f"field 'reference': {e}") from e
        aliases = obj.get("aliases", obj.get("answer_aliases", []))
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise _BadLine("field 'aliases' must be a list of strings")
        return QAReference(answer=_text(obj, "reference"), aliases=aliases)
    rubrics = obj.get("rubrics")
    if not isinstance(rubrics, list) or not rubrics or not all(isinstance(r, str) for r in rubrics):
        raise _BadLine("field 'rubrics' must be a non-empty list of strings")
    return RubricReference(prompt=str(obj.get("prompt", "")), rubrics=rubrics)


def read_pairs(kind: str, file: Path) -> list[tuple[str, Any]]:
    """Parse every line or raise typer.Exit(2) after one clear message naming file:line."""
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        typer.echo(f"error: {file}: cannot read: {e}", err=True)
        raise typer.Exit(code=2) from e
    pairs = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line, strict=False)
            if not isinstance(obj, dict):
                raise _BadLine("expected a JSON object")
            # A task file's own `solution` is checked when there is no response (stage 2's check).
            field = "solution" if "response" not in obj and "solution" in obj else "response"
            pairs.append((_text(obj, field), _reference(kind, obj)))
        except (json.JSONDecodeError, _BadLine) as e:
            msg = e.msg if isinstance(e, json.JSONDecodeError) else str(e)
            typer.echo(f"error: {file}:{number}: {msg}", err=True)
            raise typer.Exit(code=2) from e
    return pairs


def check(
    verifier: Annotated[str, typer.Option(help="Verifier kind: math, code, qa, rubric or exact.")],
    file: Annotated[
        Path, typer.Argument(help="JSONL of {response, reference} (+ tests / rubrics).")
    ],
    judge_model: Annotated[str, typer.Option(help="Rubric judge model.")] = "gpt-5-mini",
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible judge endpoint.")] = None,
    api_key_env: Annotated[
        str, typer.Option(help="Env var holding the judge API key.")
    ] = "OPENAI_API_KEY",
    timeout_s: Annotated[
        float | None, typer.Option(help="Per-check time limit in seconds.")
    ] = None,
    sandbox: Annotated[
        str, typer.Option(help="Code checks: isolated (bubblewrap) or unisolated (no isolation).")
    ] = "isolated",
) -> None:
    """Run a verifier over response/reference pairs and print one verdict per line."""
    if verifier not in KINDS:
        typer.echo(
            f"error: --verifier must be one of {', '.join(KINDS)}, got {verifier!r}", err=True
        )
        raise typer.Exit(code=2)
    pairs = read_pairs(verifier, file)
    settings: dict[str, Any] = {"kind": verifier}
    if verifier == "rubric":
        settings.update(judge_model=judge_model, base_url=base_url, api_key_env=api_key_env)
        typer.echo(f"judge: {base_url or 'OpenAI (https)'}, key from ${api_key_env}", err=True)
    if timeout_s is not None and verifier in ("math", "code", "rubric"):
        settings["timeout_s"] = timeout_s
    if verifier == "code":
        settings["sandbox"] = sandbox
        if sandbox == "unisolated":
            typer.echo(
                "warning: --sandbox unisolated: untrusted code runs without isolation", err=True
            )
    try:
        built = build_verifier(parse_verifier_config(settings))
    except VerifierError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(code=2) from e
    try:
        verdicts = built.verify_batch(pairs) if pairs else []
    except VerifierError as e:  # e.g. no sandbox and no opt-out: one line, nothing checked
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(code=2) from e
    finally:
        close = getattr(built, "close", None)
        if close is not None:
            close()
    for v in verdicts:
        typer.echo(
            json.dumps(
                {"passed": v.passed, "reward": v.reward, "status": v.status, "reason": v.reason}
            )
        )
    statuses = Counter(v.status for v in verdicts)
    passed = sum(v.passed for v in verdicts)
    rate = passed / len(verdicts) if verdicts else 0.0
    breakdown = ", ".join(f"{k} {n}" for k, n in sorted(statuses.items()))
    typer.echo(
        f"{file}: {len(verdicts)} checked, {passed} passed ({rate:.1%}); {breakdown}", err=True
    )


__all__ = ["check", "read_pairs"]
