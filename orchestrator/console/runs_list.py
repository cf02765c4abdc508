"""The Runs page's data: one row per run (state, stage, step, health, last reward and verify
rate, parent and cut seq), kept current by reading only what each run appended since.

Each run's state is a `store.cursor.StateCursor`: folded once from its newest snapshot, then only
the rows past it. The store-wide reads (every run's last seq, the lease table, the branch pointers,
the hidden labels) are one query each, so a page of 400 runs costs 4 queries plus one short read
per run that moved.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from orchestrator.audit.status_view import health, live_holder, short_health, unless_gone
from orchestrator.driver.commands import BROKEN_RUN_ERRORS
from orchestrator.driver.lease import holder_is_dead
from store import lineage
from store.cursor import ChainState, StateCursor, fold_many
from store.labels import RunLabels
from store.leases import LeaseTable, LeaseUnreadable
from store.log import EventLog, RunSummary
from store.projections import RunState
from store.run_ids import listed_id_problem, listed_text

# The metrics a row shows, as the driver logs them (MetricsRecorded) and `rlvr status` names them.
ROW_METRICS = ("reward_mean", "verify_rate", "kl")


class RunsList:
    """Every run's summary row, folded incrementally; shared by the console's request threads."""

    def __init__(self, log: EventLog, chains: ChainState | None = None) -> None:
        self.log = log
        self.chains = chains  # breaks other routes met: a cached fold is not listed past them
        # Built once: each constructor makes sure its table exists (a round trip per table).
        self.labels, self.leases = RunLabels(log), LeaseTable(log)
        self._cursors: dict[str, StateCursor] = {}
        self._pauses: dict[str, tuple[int, str | None]] = {}  # run -> (last seq, reason)
        self._lock = threading.Lock()

    def rows(self, *, show_hidden: bool = False) -> list[dict[str, Any]]:
        with self._lock:
            hidden = self.labels.hidden()
            leases = self.leases.all()
            parents = self._parents()
            now = datetime.now(UTC)
            summaries = self.log.runs()
            self._fold_new([s.run_id for s in summaries], parents)
            if self.chains is not None:  # one run walked whole a poll, the stalest
                # an id no command reads is listed as such, never walked (bytes: round 26, 030)
                readable = [s.run_id for s in summaries if listed_id_problem(s.run_id) is None]
                self.chains.recheck_stalest(readable)
            rows = []
            for summary in summaries:
                if summary.run_id in hidden and not show_hidden:
                    continue
                row = self._row(summary, leases.get(summary.run_id), parents, now)
                row["hidden"] = summary.run_id in hidden
                rows.append(row)
            return rows

    def _fold_new(self, run_ids: list[str], parents: dict[str, lineage.Parent]) -> None:
        """Runs seen for the first time, folded together (a lineage tree shares its reads); on a
        run that does not read, each is folded alone below (and listed with its error)."""
        new = [r for r in run_ids if r not in self._cursors]
        try:
            states = fold_many(self.log, new, parents)
        except BROKEN_RUN_ERRORS:
            return
        for run_id, state in states.items():
            cursor = StateCursor(self.log, run_id)
            cursor.state = state
            self._cursors[run_id] = cursor

    def heads(self) -> dict[str, int]:
        """Every run's last seq (one query): what the live stream compares between polls."""
        query = sa.text("SELECT run_id, max(seq) FROM events GROUP BY run_id")
        with self.log.engine.connect() as conn:
            return {run_id: seq for run_id, seq in conn.execute(query)}

    def _parents(self) -> dict[str, lineage.Parent]:
        with self.log.engine.connect() as conn:
            query = sa.select(
                lineage.TABLE.c.run_id, lineage.TABLE.c.parent_run_id, lineage.TABLE.c.parent_seq
            )
            return {r[0]: lineage.Parent(r[1], r[2]) for r in conn.execute(query)}

    def _row(
        self,
        summary: RunSummary,
        lease: Any,
        parents: dict[str, lineage.Parent],
        now: datetime,
    ) -> dict[str, Any]:
        run_id = summary.run_id
        base = {
            "run_id": listed_text(run_id),
            "last_seq": summary.last_seq,
            "last_event": listed_text(summary.last_type),
            "last_event_at": listed_text(summary.last_recorded_at),
        }
        if (invalid := listed_id_problem(run_id)) is not None:  # no command reads it
            return {**base, **_broken(invalid)}
        known = self.chains.known(run_id) if self.chains is not None else None
        if known is not None and known.broken_at is not None:
            self._cursors.pop(run_id, None)
            return {**base, **_broken(f"run {run_id}: hash chain broken at seq "
                                      f"{known.broken_at}: {known.reason}")}  # fmt: skip
        cursor = self._cursors.setdefault(run_id, StateCursor(self.log, run_id))
        try:
            state = cursor.state
            if state is None or state.last_seq != summary.last_seq:
                state = cursor.refresh()
        except BROKEN_RUN_ERRORS as e:
            self._cursors.pop(run_id, None)  # read afresh next time (a repaired store)
            return {**base, **_broken(str(e))}
        parent = parents.get(run_id)
        if parent is None and state.parent:
            parent = lineage.Parent(*state.parent)
        try:
            lease = unless_gone(lease, holder_is_dead)
            text = health(state, lease, now)
        except LeaseUnreadable as e:  # this run marked; the others listed all the same
            return {**base, **_broken(str(e))}
        return {
            **base,
            "state": state.state,
            "stage": state.paused_from if state.state == "paused" else state.state,
            "step": state.step,
            "health": text,
            "health_word": short_health(text),
            "lease_holder": live_holder(state, lease, now),
            "lease_expires_at": lease.expires_at
            if lease is not None and not state.finished
            else None,
            "pause_reason": self._pause_reason(state),
            "failure_reason": state.failure_reason,
            "metrics": _metrics(state),
            "parent": {"run_id": parent.run_id, "seq": parent.seq} if parent else None,
            "error": None,
        }

    def _pause_reason(self, state: RunState) -> str | None:
        """The latest RunPaused's reason (pauses are few: the run's last one, read once)."""
        if state.state != "paused":
            return None
        known = self._pauses.get(state.run_id)
        if known is not None and known[0] == state.last_seq:
            return known[1]
        seq = self.log.last_of(state.run_id, ["RunPaused"])
        reason = None
        if seq is not None:
            for row in self.log.read(state.run_id, from_seq=seq, to_seq=seq, types=["RunPaused"]):
                reason = row.fields().get("reason")
        self._pauses[state.run_id] = (state.last_seq, reason)
        return reason


def _metrics(state: RunState) -> dict[str, float | None]:
    out = {name: state.last_metrics.get(name) for name in ROW_METRICS}
    if out["verify_rate"] is None and state.last_eval:
        out["verify_rate"] = state.last_eval.get("verify_rate")
    return out


def _broken(error: str) -> dict[str, Any]:
    """A run whose log does not read: listed by name, with what is wrong, beside the others."""
    return {
        "state": "unreadable", "stage": None, "step": None, "health": "broken",
        "health_word": "broken", "lease_holder": None, "lease_expires_at": None,
        "pause_reason": None, "failure_reason": None, "metrics": {}, "parent": None,
        "error": error,
    }  # fmt: skip
