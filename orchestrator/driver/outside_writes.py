"""The one rule for writing to a run another process may drive.

A run's chain has one writer at a time: the holder of its lease. A process that is not the run's
driver (`rlvr export-model`, and later a rescore or a console action) never appends to a run whose
lease another process holds: that append would move the log under the driver, whose next batch
names the seq it expects to be last and would be refused (`ConcurrencyError`).

- What says something about the run (a model exported from it, a rescore, a command for it) goes
  into its chain. The writer takes the lease itself when no one holds it (a finished, paused or
  crashed run), appends, and releases it; when a live driver holds it, the events are queued
  (store/requests.py) and the driver appends them with its next batch, in the same transaction
  that takes them off the queue (also when a driver takes the lease or lets it go).
- What only changes how a store is shown (`rlvr runs hide`) stays outside every run's chain, in a
  side table (store/labels.py), and never touches the run's rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from orchestrator.driver.lease import driver_identity, holder_is_dead
from store import requests
from store.events import Event
from store.leases import LeaseHeld, LeaseTable
from store.log import EventLog, StoredEvent
from store.retry import with_retries

# Long enough for one append with its retries; a writer that dies holding it frees it after this.
_WRITE_LEASE_S = 60.0


@dataclass(frozen=True)
class Written:
    rows: list[StoredEvent]  # appended now (empty when queued)
    queued_for: str | None = None  # the live driver that will append them

    def said(self, run_id: str) -> str:
        if self.queued_for is not None:
            return (
                f"run {run_id} is being driven by {self.queued_for}: recorded as a request its "
                "driver appends with its next batch"
            )
        return f"recorded in run {run_id}'s log at seq {self.rows[0].seq}" if self.rows else ""


def append_or_queue(
    log: EventLog,
    run_id: str,
    events: Sequence[Event],
    by: str,
    *,
    when_free: Callable[[], list[StoredEvent]] | None = None,
) -> Written:
    """Append `events` to the run's chain under its lease, or queue them for its live driver.
    `when_free`: what to write instead when the lease is ours (it appends with
    `drain_requests=True`; `rlvr pause` pauses a run no driver holds). A lease whose holder is
    provably dead on this host is taken over, as a driver taking the lease does."""
    table = LeaseTable(log)
    owner = f"{by}:{driver_identity()}"
    held = _take(log, table, run_id, owner)
    if held is not None:
        requests.queue_for(log.engine, log.retry, run_id, events, queued_by=owner, key=log.key)
        # The driver may have let the lease go between the two: then the queue is ours to empty.
        if _take(log, table, run_id, owner) is not None:
            return Written([], queued_for=held)
        return Written(_held(table, run_id, owner, lambda: _append(log, run_id, [])))
    write = when_free or (lambda: _append(log, run_id, events))
    return Written(_held(table, run_id, owner, write))


def _take(log: EventLog, table: LeaseTable, run_id: str, owner: str) -> str | None:
    """Take the run's lease; the live holder's name when another process holds it."""
    try:
        with_retries(
            f"take the lease of run {run_id}",
            lambda: table.acquire(run_id, owner, _WRITE_LEASE_S, holder_gone=holder_is_dead),
            log.retry,
            lambda e, d: None,
        )
    except LeaseHeld as e:
        return e.owner
    return None


def _append(log: EventLog, run_id: str, events: Sequence[Event]) -> list[StoredEvent]:
    """Append `events` with whatever was queued (the caller holds the lease)."""
    return log.append(run_id, events, log.last_seq(run_id), drain_requests=True)


def _held(
    table: LeaseTable, run_id: str, owner: str, write: Callable[[], list[StoredEvent]]
) -> list[StoredEvent]:
    """Write while holding the lease, then let it go."""
    try:
        return write()
    finally:
        table.release(run_id, owner)
