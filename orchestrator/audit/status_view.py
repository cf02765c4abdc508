"""What `rlvr status RUN` shows about one run, as a plain dict (for `--json`) and a rich table.

Everything comes from the folded `RunState` and the store's `RunSummary`, except whether a driver
holds the run now: that is the lease row its heartbeat renews (store/leases.py), read against the
clock; both are passed in so the functions stay testable. (The log's `LeaseAcquired` says when a
lease was taken and until when it first ran, not whether it is still renewed.)
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from rich.table import Table

from orchestrator.audit.verifier_changes import verifier_lines
from orchestrator.terminal import plain
from store.leases import LeaseRow, LeaseTable, lease_expiry
from store.log import RunSummary
from store.projections import RunState


def _expired(lease: LeaseRow, now: datetime) -> bool:
    """`LeaseUnreadable` for a damaged row (a garbled or zone-less expiry)."""
    return lease_expiry(lease) < now


def unless_gone(lease: LeaseRow | None, holder_gone: Callable[[str], bool]) -> LeaseRow | None:
    """The run's lease row, or None where its holder is provably gone from this host (the
    driver's `holder_is_dead`): `resume` takes such a lease over at once, so no driver holds the
    run, whatever time the row has left (round 25, log 003: status said "ok" of a killed driver).
    An expired row stays (told as expired); a damaged one is `LeaseUnreadable`, by the rule
    `LeaseTable.acquire` reads rows with."""
    now = datetime.now(UTC)
    if lease is None or _expired(lease, now):
        return lease
    return lease if LeaseTable.is_live(lease, None, now, holder_gone) else None


def health(state: RunState, lease: LeaseRow | None, now: datetime | None = None) -> str:
    """failed / paused / done, else whether a live driver holds the run's lease now."""
    if state.state == "failed":
        return f"failed: {state.failure_reason or 'see rlvr events'}"
    if state.state == "paused":
        return "paused"
    if state.finished:
        return "done"
    if lease is None:
        if state.state == "created" and state.lease_owner is None:
            return "ok"
        return f"no driver holds it (crashed?): rlvr resume {state.run_id}"
    if _expired(lease, now or datetime.now(UTC)):
        return f"lease expired at {lease.expires_at} (driver {lease.owner} gone?)"
    return f"ok (lease held by {lease.owner})"


def short_health(health_text: str) -> str:
    """The first word of `health` (what a table of many runs has room for)."""
    for word in ("ok", "paused", "done", "failed", "lease expired", "no driver"):
        if health_text.startswith(word):
            return {"lease expired": "expired", "no driver": "no driver"}.get(word, word)
    return health_text


def live_holder(state: RunState, lease: LeaseRow | None, now: datetime | None = None) -> str | None:
    """Who holds the lease now (None when no one does, or it expired). A finished run (completed
    or failed in its log) has no holder: the lease row is outside the chain and never overrides
    the log's terminal event (a row left or forged there names no driver)."""
    if state.finished or lease is None or _expired(lease, now or datetime.now(UTC)):
        return None
    return lease.owner


def run_detail(
    state: RunState,
    summary: RunSummary | None,
    lease: LeaseRow | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """One run in detail: JSON-native, so `--json` prints it as is. `lease`: the run's row in the
    lease table now (None: no driver holds it)."""
    good = state.last_good_checkpoint
    latest = state.latest_checkpoint
    return {
        "run_id": state.run_id,
        "state": state.state,
        "paused_from": state.paused_from,
        "step": state.step,
        "health": health(state, lease, now),
        "lease_holder": live_holder(state, lease, now),
        "lease_expires_at": lease.expires_at if lease is not None and not state.finished else None,
        "parent": {"run_id": state.parent[0], "seq": state.parent[1]} if state.parent else None,
        "events": summary.n_events if summary else state.last_seq,
        "last_event": summary.last_type if summary else None,
        "last_event_at": summary.last_recorded_at if summary else None,
        "config_hash": state.config_hash,
        "last_metrics": dict(state.last_metrics),
        "last_eval": {k: v for k, v in state.last_eval.items() if k != "seq"},
        "baseline": {
            "verify_rate": state.baseline_verify_rate,
            "capability": dict(state.baseline_capability),
        },
        "hyperparameters": dict(state.hyperparameters),
        "gates": {
            name: {"passed": g.passed, "value": g.value, "threshold": g.threshold, "seq": g.seq}
            for name, g in state.gates.items()
        },
        "decisions": dict(state.decisions),
        "rollbacks": state.rollbacks,
        "latest_checkpoint": {"step": latest.step, "digest": latest.digest} if latest else None,
        "last_good_checkpoint": {"step": good.step, "digest": good.digest} if good else None,
        "failure_reason": state.failure_reason,
        "verifier": dict(state.verifier),
        "verifier_changes": verifier_lines(state),
    }


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        return ", ".join(f"{plain(k)} {_fmt(v)}" for k, v in value.items()) or "-"
    return "-" if value is None else plain(value)


def detail_table(detail: dict[str, Any]) -> Table:
    """A two-column table of `run_detail`'s output for a terminal."""
    table = Table(show_header=False, title=f"run {plain(detail['run_id'])}")
    table.add_column(style="bold")
    table.add_column()
    for key in ("state", "step", "health", "lease_holder", "events", "last_event", "rollbacks"):
        table.add_row(key.replace("_", " "), _fmt(detail[key]))
    parent = detail["parent"]
    table.add_row("parent", plain(f"{parent['run_id']} @ seq {parent['seq']}") if parent else "-")
    table.add_row("last metrics", _fmt(detail["last_metrics"]))
    table.add_row("last eval", _fmt(detail["last_eval"]))
    table.add_row("hyper-parameters", _fmt(detail["hyperparameters"]))
    gates = ", ".join(
        f"{plain(name)} {'pass' if g['passed'] else 'FAIL'}" for name, g in detail["gates"].items()
    )
    table.add_row("gates", gates or "-")
    table.add_row("decisions", _fmt(detail["decisions"]))
    good = detail["last_good_checkpoint"]
    table.add_row(
        "last good checkpoint", plain(f"step {good['step']} {good['digest'][:12]}") if good else "-"
    )
    if detail["verifier"]:
        v = detail["verifier"]
        code = str(v.get("code_digest") or "unrecorded")[:12]
        table.add_row("verifier", plain(f"{v.get('kind')} {v.get('version', '')} code {code}"))
    for line in detail["verifier_changes"]:
        table.add_row("verifier changed", plain(line))
    if detail["failure_reason"]:
        table.add_row("failure", plain(detail["failure_reason"]))
    if detail.get("queued_requests"):
        table.add_row("queued", f"{detail['queued_requests']} record(s) for its driver to append")
    for why in detail.get("refused_requests") or ():
        table.add_row("refused", plain(f"{why} (taken off the queue unappended)"))
    if detail.get("hidden"):
        table.add_row("hidden", "yes (rlvr runs unhide to list it again)")
    return table
