"""A `RunRescored` record in words: what `rlvr rescore` prints at its end and `rlvr why` shows."""

from __future__ import annotations

from typing import Any


def summary_lines(p: dict[str, Any], run_id: str) -> list[str]:
    """The record's lines: totals, the first differing step, the checkpoint and the command."""
    v = p["verifier"]
    code = str(v.get("code_digest") or "unrecorded")[:12]
    with_ = " with " + " ".join(p["overrides"]) if p.get("overrides") else ""
    lines = [
        f"rescored {p['rollouts']:,} rollouts of {p['steps']} steps of run {run_id} with verifier "
        f"{v.get('kind')} {v.get('version', '')} (code {code}){with_}: "
        f"{p['to_pass']:,} fail->pass, {p['to_fail']:,} pass->fail, {p['changed']:,} rewards "
        f"changed ({p['changed'] / max(p['rollouts'], 1):.1%})"
    ]
    if p.get("first_step") is None:
        lines.append("no reward differs from the log")
        return lines
    lines.append(
        f"first step whose rewards differ: step {p['first_step']} (seq {p['first_seq']}); from "
        f"there on {p['changed_since_first']:,} of {p['rollouts_since_first']:,} rewards were "
        f"mis-scored ({p['changed_since_first'] / max(p['rollouts_since_first'], 1):.1%})"
    )
    checkpoint = p.get("checkpoint")
    if checkpoint is None:
        lines.append("no retained checkpoint before it: rerun from the start")
        return lines
    lines.append(
        f"last retained checkpoint before it: step {checkpoint['step']} "
        f"({checkpoint['digest'][:12]}, saved at seq {checkpoint['seq']})"
    )
    lines.append(f"retrain from there: {p['branch_command']}")
    return lines
