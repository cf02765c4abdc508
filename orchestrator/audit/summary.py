"""The end-of-run summary (`rlvr run` prints it; `rlvr status RUN --json` includes it): baseline and
final (or, for a run that stopped early, latest) verify rate, retention per capability benchmark,
every gate, the policy decisions by kind, where the run's log and checkpoints are, and what to
type next: the resume command of a paused run, the export command of a completed one."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Console
from rich.table import Table

from orchestrator.terminal import plain
from store.log import EventLog
from store.projections import RunState


def final_eval(state: RunState) -> dict[str, Any]:
    return dict(state.last_eval) if state.last_eval else {}


def pause_reason(log: EventLog, state: RunState) -> str | None:
    """Why a paused run paused: its latest `RunPaused` (pauses are few: an indexed read)."""
    if state.state != "paused":
        return None
    reason = None
    for row in log.read(state.run_id, types=["RunPaused"]):
        reason = row.event.reason
    return reason


def run_summary(
    state: RunState,
    *,
    store_url: str | None = None,
    gate_rows: list[dict] | None = None,
    pause_reason: str | None = None,
) -> dict[str, Any]:
    last = final_eval(state)
    capability = last.get("capability", {})
    retention = {
        name: (capability.get(name, 0.0) / base if base else None)
        for name, base in state.baseline_capability.items()
    }
    kinds = Counter()
    for key, count in state.decisions.items():
        kinds[key.split(":", 1)[1]] += count
    good = state.last_good_checkpoint or state.latest_checkpoint
    return {
        "run_id": state.run_id,
        "state": state.state,
        "step": state.step,
        "baseline_verify_rate": state.baseline_verify_rate,
        "final_verify_rate": last.get("verify_rate"),
        "capability_retention": retention,
        "gates": gate_rows
        if gate_rows is not None
        else [
            {
                "name": name,
                "stage": g.stage,
                "metric": g.metric,
                "value": g.value,
                "comparator": g.comparator,
                "threshold": g.threshold,
                "passed": g.passed,
                "seq": g.seq,
            }
            for name, g in state.gates.items()
        ],  # fmt: skip
        "policy_decisions": dict(sorted(kinds.items())),
        "policy_decisions_by_policy": dict(sorted(state.decisions.items())),
        "failure_reason": state.failure_reason,
        "pause_reason": pause_reason,
        "final_checkpoint": last.get("checkpoint") or (good.digest if good else None),
        "store": store_url,
        "run_dir": f"{state.config.get('log_path', 'runs')}/{state.run_id}"
        if state.config
        else None,
        "blobs": f"{state.config.get('log_path', 'runs')}/blobs" if state.config else None,
    }


def print_summary(summary: dict[str, Any], console: Console) -> None:
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value:.1%}"

    run_id, state = summary["run_id"], summary["state"]
    base, final = summary["baseline_verify_rate"], summary["final_verify_rate"]
    gain = f" ({(final - base) * 100:+.1f} pts)" if base is not None and final is not None else ""
    console.print(f"\n[bold]run {plain(run_id)}[/]: {plain(state)} at step {summary['step']}")
    # A run that has not completed has no final model: its figures are the latest eval's.
    last = "final" if state == "completed" else "latest"
    console.print(f"held-out verify rate: baseline {pct(base)} -> {last} {pct(final)}{gain}")
    for name, ratio in summary["capability_retention"].items():
        console.print(f"capability retention, {plain(name)}: {pct(ratio)}")
    table = Table("gate", "stage", "value", "needs", "result")
    for gate in summary["gates"]:
        value = "-" if gate["value"] is None else f"{gate['value']:.4g}"
        table.add_row(
            plain(gate["name"]), plain(gate["stage"]), value,
            plain(f"{gate['comparator']} {gate['threshold']:.4g}"),
            "[green]pass[/]" if gate["passed"] else "[red]FAIL[/]",
        )  # fmt: skip
    console.print(table)
    decisions = summary["policy_decisions_by_policy"]
    console.print(
        "policy decisions: "
        + (", ".join(f"{plain(k)} x{v}" for k, v in decisions.items()) if decisions else "none")
    )
    if summary["failure_reason"]:
        console.print(f"[red]failure:[/] {plain(summary['failure_reason'])}")
    console.print(plain(f"event log: {summary['store']}  (rlvr events {run_id})"))
    console.print(plain(f"run directory: {summary['run_dir']}; checkpoints in {summary['blobs']}"))
    if summary["final_checkpoint"] and state == "completed":
        console.print(plain(f"final checkpoint: {summary['final_checkpoint']}"))
    for line in next_steps(summary):
        console.print(plain(line))


def next_steps(summary: dict[str, Any]) -> list[str]:
    """What to type next, by how the run ended."""
    run_id, state = summary["run_id"], summary["state"]
    if state == "paused":
        return [
            f"paused: {summary.get('pause_reason') or 'see rlvr events ' + run_id}",
            f"continue with: rlvr resume {run_id}",
        ]
    if state == "failed":
        return [f"why it failed: rlvr why {run_id}"]
    if state == "completed":
        return [f"export the model: rlvr export-model {run_id} --out models/{run_id}"]
    return []
