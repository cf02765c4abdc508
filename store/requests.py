"""Requests queued for a run another process drives: events an outside writer (an export, later a
rescore or a console action) asks to have appended to a run whose lease is live.

A concurrent append would break the driver's next batch (its `expected_seq` would be stale), so the
outside writer never appends to a run it does not hold the lease of: it queues the events here, and
whoever next appends under the run's lease (the driver's next batch, a driver taking the lease, the
driver releasing it, or the next outside writer holding it) appends them after its own events in
the same transaction that deletes them from the queue. A request is appended exactly once.

A side table `run_requests(id, run_id, type, schema_version, payload, queued_at, queued_by)`; the
events table is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from store.events import Event
from store.retry import RetryPolicy, with_retries
from store.verification import canonical_json


class RunRequestRow(SQLModel, table=True):
    __tablename__ = "run_requests"

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(max_length=200, index=True)
    type: str = Field(max_length=100)
    schema_version: int
    payload: str
    queued_at: str
    queued_by: str = Field(max_length=200)


TABLE = RunRequestRow.__table__


@dataclass(frozen=True)
class Queued:
    """An event waiting to be appended: its type, schema version and canonical payload."""

    type: str
    schema_version: int
    payload: str


def encode(events: Sequence[Event]) -> list[Queued]:
    return [Queued(e.type_name(), e.schema_version, canonical_json(vars(e))) for e in events]


def queue(conn: sa.Connection, run_id: str, events: Sequence[Event], queued_by: str) -> None:
    """Queue `events` for `run_id` in `conn`'s transaction."""
    at = datetime.now(UTC).isoformat(timespec="microseconds")
    rows = [
        {"run_id": run_id, "type": q.type, "schema_version": q.schema_version,
         "payload": q.payload, "queued_at": at, "queued_by": queued_by}
        for q in encode(events)
    ]  # fmt: skip
    if rows:
        conn.execute(sa.insert(TABLE), rows)


def take(conn: sa.Connection, run_id: str) -> list[Queued]:
    """The run's queued events in the order they were queued, removed from the queue in `conn`'s
    transaction (so they leave it exactly when the append that carries them commits)."""
    rows = conn.execute(
        sa.select(TABLE.c.id, TABLE.c.type, TABLE.c.schema_version, TABLE.c.payload)
        .where(TABLE.c.run_id == run_id)
        .order_by(TABLE.c.id)
    ).all()
    if not rows:
        return []
    conn.execute(sa.delete(TABLE).where(TABLE.c.id.in_([r.id for r in rows])))
    return [Queued(r.type, r.schema_version, r.payload) for r in rows]


def pending(conn: sa.Connection, run_id: str) -> int:
    """How many events wait in the run's queue."""
    return conn.execute(
        sa.select(sa.func.count()).select_from(TABLE).where(TABLE.c.run_id == run_id)
    ).scalar_one()


def queue_for(
    engine: sa.Engine, retry: RetryPolicy, run_id: str, events: Sequence[Event], queued_by: str
) -> None:
    """Queue `events` for the writer that holds the run's lease (`EventLog.engine`, `.retry`),
    riding out transient store errors as appends do."""

    def attempt() -> None:
        with engine.begin() as conn:
            queue(conn, run_id, events, queued_by)

    with_retries(f"queue a request for run {run_id}", attempt, retry, lambda e, d: None)


def pending_for(engine: sa.Engine, run_id: str) -> int:
    with engine.connect() as conn:
        return pending(conn, run_id)
