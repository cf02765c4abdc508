"""`rlvr check --verifier math|code|qa|rubric|exact FILE.jsonl`: run a verifier over a user's own
response/reference pairs. One JSON verdict per input line on stdout, a summary on stderr. A bad
line stops the command before anything runs, with file:line and the field at fault.

Each line's reference has the shape of the task family checked by that verifier kind
(`TaskFamily.check_reference`); `--verifier` also takes a family's name (e.g. `reverse`), for its
shape and its verifier."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from orchestrator.cli.verifier_options import built_verifier, verifier_settings

if TYPE_CHECKING:  # the families and verifiers load when `check` runs, not for `rlvr --help`
    from stages.tasks.families import TaskFamily
    from stages.verifiers.types import Verdict


def input_family(verifier: str) -> TaskFamily | None:
    """The family whose input shape a `--verifier` value reads: the first family checked by that
    verifier kind, or the family of that name; None when it is neither."""
    from stages.tasks.families import FAMILIES, family_for_kind, verifier_kinds

    if verifier in verifier_kinds():
        return family_for_kind(verifier)
    return FAMILIES.get(verifier)


def read_pairs(verifier: str, file: Path) -> list[tuple[str, Any]]:
    """Parse every line (references in the shape `input_family(verifier)` reads) or raise
    typer.Exit(2) after one clear message naming file:line."""
    from stages.tasks.types import RecordError, record_text

    family = input_family(verifier)
    if family is None:
        raise ValueError(f"no task family reads --verifier {verifier!r} input")
    from store.text_files import NotUTF8Error, jsonl_lines, read_utf8, refuse_json_constant

    try:
        lines = jsonl_lines(read_utf8(file))
    except NotUTF8Error as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(code=2) from e
    except OSError as e:  # a FIFO or a device too: refused, never read whole
        typer.echo(f"error: {file}: cannot read: {e.strerror or e}", err=True)
        raise typer.Exit(code=2) from e
    pairs = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line, strict=False, parse_constant=refuse_json_constant)
            if not isinstance(obj, dict):
                raise RecordError("expected a JSON object")
            # A task file's own `solution` is checked when there is no response (stage 2's check).
            field = "solution" if "response" not in obj and "solution" in obj else "response"
            pairs.append((record_text(obj, field), family.check_reference(obj)))
        except (ValueError, RecordError, RecursionError) as e:
            # ValueError: also an integer past Python's 4,300-digit limit (its hint cut off)
            msg = e.msg if isinstance(e, json.JSONDecodeError) else str(e).split("; use ")[0]
            if isinstance(e, RecursionError):  # the decoder recurses per level of nesting
                msg = "invalid JSON: nested too deeply (arrays or objects inside each other)"
            typer.echo(f"error: {file}:{number}: {msg}", err=True)
            raise typer.Exit(code=2) from e
    return pairs


def _input_family_or_exit(verifier: str | None, file: Path | None) -> TaskFamily:
    """The family `--verifier` names, with FILE given; else one error line and exit 2."""
    from stages.tasks.families import FAMILIES, verifier_kinds

    family = input_family(verifier) if verifier else None
    if family is not None and file is not None:
        return family
    if verifier is None:  # optional only beside --adversary (which reads the file's family)
        typer.echo("error: Missing option '--verifier' (or give --adversary FILE)", err=True)
    elif family is None:
        typer.echo(
            f"error: --verifier must be one of {', '.join(verifier_kinds())} "
            f"(or a task family: {', '.join(FAMILIES)}), got {verifier!r}",
            err=True,
        )
    else:
        typer.echo("error: missing FILE (or --adversary FILE)", err=True)
    raise typer.Exit(code=2)


def _print_verdicts(file: Path, verdicts: list[Verdict]) -> None:
    """One JSON verdict a line on stdout; the summary on stderr."""
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


def check(
    verifier: Annotated[
        str | None,
        typer.Option(
            help="Verifier kind: math, code, qa, rubric or exact (or a task family's name); "
            "with --adversary, the task family of FILE (read from its rows when left out)."
        ),
    ] = None,
    file: Annotated[
        Path | None, typer.Argument(help="JSONL of {response, reference} (+ tests / rubrics).")
    ] = None,
    adversary: Annotated[
        Path | None,
        typer.Option(
            help="A task file (as data.data_path reads it): run stage 3's calibration and "
            "built-in adversary on its tasks, print a table per kind; exit 1 if a wrong "
            "variant passes."
        ),
    ] = None,
    tasks: Annotated[
        int, typer.Option(help="With --adversary: tasks sampled from the file.", min=1)
    ] = 100,
    seed: Annotated[
        int, typer.Option(help="With --adversary: the seed that samples tasks and variants.")
    ] = 0,
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
    """Run a verifier over response/reference pairs and print one verdict per line (or, with
    --adversary, stage 3's adversary over a task file)."""

    def settings_for(kind: str) -> dict[str, Any]:
        return verifier_settings(kind, judge_model, base_url, api_key_env, timeout_s, sandbox)

    if adversary is not None:
        from orchestrator.cli.adversary_command import check_adversary

        named = input_family(verifier) if verifier else None
        check_adversary(adversary, named.name if named else None, tasks, seed, settings_for)
        return
    family = _input_family_or_exit(verifier, file)
    assert verifier is not None and file is not None  # _input_family_or_exit exits otherwise
    pairs = read_pairs(verifier, file)
    with built_verifier(settings_for(family.verifier_kind)) as built:
        verdicts = built.verify_batch(pairs) if pairs else []
    _print_verdicts(file, verdicts)


__all__ = ["check", "read_pairs"]
