"""Where a run's verifier changed (`RunState.verifier_changes`, folded from each step's
`VerdictsRecorded.verifier`), in words for `status` and `why`: which of its kind, version,
settings, code, judge model or judge prompt differed from the step before."""

from __future__ import annotations

from typing import Any

from store.projections import RunState

_WHAT = {
    "kind": "kind", "version": "version", "settings_digest": "settings",
    "code_digest": "code", "model": "judge model", "prompt_digest": "judge prompt",
}  # fmt: skip


def _short(value: Any) -> str:
    if value is None:
        return "unrecorded"
    text = str(value)
    return text[:12] if len(text) == 64 else text  # a digest: its first 12 hex digits


def describe(change: dict[str, Any]) -> str:
    """One line: the step where the verifier differed and how."""
    before, after = change["from"], change["to"]
    parts = [
        f"{name} {_short(before.get(key))} -> {_short(after.get(key))}"
        for key, name in _WHAT.items()
        if before.get(key) != after.get(key)
    ]
    return f"step {change['step']} (seq {change['seq']}): verifier changed: " + "; ".join(parts)


def verifier_lines(state: RunState) -> list[str]:
    """Every change of the run's verifier, oldest first (none: one verifier throughout)."""
    return [describe(c) for c in state.verifier_changes]
