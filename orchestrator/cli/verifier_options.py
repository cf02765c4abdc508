"""The verifier `rlvr check` and `rlvr check --adversary` both build: its settings from the
command's options, and the verifier itself, closed afterwards (a module of its own, so neither
command imports the other)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from stages.verifiers.types import Verifier


def verifier_settings(
    kind: str,
    judge_model: str,
    base_url: str | None,
    api_key_env: str,
    timeout_s: float | None,
    sandbox: str,
) -> dict[str, Any]:
    """The verifier config `check`'s options give for verifier `kind` (warnings on stderr)."""
    settings: dict[str, Any] = {"kind": kind}
    if kind == "rubric":
        settings.update(judge_model=judge_model, base_url=base_url, api_key_env=api_key_env)
        typer.echo(f"judge: {base_url or 'OpenAI (https)'}, key from ${api_key_env}", err=True)
    if timeout_s is not None and kind in ("math", "code", "rubric"):
        settings["timeout_s"] = timeout_s
    if kind == "code":
        settings["sandbox"] = sandbox
        if sandbox == "unisolated":
            typer.echo(
                "warning: --sandbox unisolated: untrusted code runs without isolation", err=True
            )
    return settings


@contextlib.contextmanager
def built_verifier(settings: dict[str, Any]) -> Iterator[Verifier]:
    """The verifier `settings` configure (`check` and `check --adversary`), closed afterwards. A
    `VerifierError` building or running it (e.g. no sandbox and no opt-out) is one error line and
    exit 2, nothing checked."""
    from stages.verifiers.registry import build_verifier, parse_verifier_config
    from stages.verifiers.types import VerifierError

    try:
        built = build_verifier(parse_verifier_config(settings))
    except VerifierError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(code=2) from e
    try:
        yield built
    except VerifierError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(code=2) from e
    finally:
        close = getattr(built, "close", None)
        if close is not None:
            close()
