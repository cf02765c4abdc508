"""Requests queued for a run another process drives: events an outside writer (an export, later a
rescore or a console action) asks to have appended to a run whose lease is live.

A concurrent append would break the driver's next batch (its `expected_seq` would be stale), so the
outside writer never appends to a run it does not hold the lease of: it queues the events here, and
whoever next appends under the run's lease (the driver's next batch, a driver taking the lease, the
driver releasing it, or the next outside writer holding it) appends them after its own events in
the same transaction that deletes them from the queue. A request is appended exactly once.

A side table `run_requests(id, run_id, type, schema_version, payload, queued_at, queued_by, mac)`;
the events table is unchanged. The table is not covered by the chain, so the taker trusts a row
only as far as it can check it: its type must be one outside writers queue (`QUEUEABLE`), its
payload must read as that event at its current schema version, and with a chain key its `mac`
(the queuer's HMAC over the run, type, version, payload, time and queuer) must verify. A row that
fails is refused: taken off the queue with a warning, never appended, so never signed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa
from pydantic import ValidationError
from sqlmodel import Field, SQLModel

from store.errors import StoreError
from store.event_base import EVENT_TYPES
from store.events import Event
from store.keyed import ChainKey
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
    mac: str | None = Field(default=None, max_length=100)  # with a chain key: see `_mac_of`


TABLE = RunRequestRow.__table__
_log = logging.getLogger("rlvr.store")

# The events outside writers queue (orchestrator/driver/outside_writes.py: `rlvr pause`, the
# console's pause, `rlvr export-model`, `rlvr rescore`). Nothing else is ever taken from the queue:
# a row of another type was not put there by this program.
QUEUEABLE = frozenset({"PauseRequested", "ModelExported", "RunRescored"})


@dataclass(frozen=True)
class Queued:
    """An event waiting to be appended: its type, schema version and canonical payload."""

    type: str
    schema_version: int
    payload: str


def encode(events: Sequence[Event]) -> list[Queued]:
    return [Queued(e.type_name(), e.schema_version, canonical_json(vars(e))) for e in events]


def _mac_fields(row: dict | sa.Row) -> tuple:
    """What a request's MAC covers: everything the taker appends, plus when and by whom it was
    queued (a copy of a taken request, re-inserted later, still verifies: it can only repeat
    what a key holder asked for)."""
    get = row.get if isinstance(row, dict) else row._mapping.get
    return tuple(
        get(c) for c in ("run_id", "type", "schema_version", "payload", "queued_at", "queued_by")
    )


def queue(
    conn: sa.Connection,
    run_id: str,
    events: Sequence[Event],
    queued_by: str,
    key: ChainKey | None = None,
) -> None:
    """Queue `events` for `run_id` in `conn`'s transaction; with `key`, each row MAC'd."""
    at = datetime.now(UTC).isoformat(timespec="microseconds")
    rows = [
        {"run_id": run_id, "type": q.type, "schema_version": q.schema_version,
         "payload": q.payload, "queued_at": at, "queued_by": queued_by}
        for q in encode(events)
    ]  # fmt: skip
    for row in rows:
        row["mac"] = key.side_mac("request", *_mac_fields(row)) if key is not None else None
    if rows:
        conn.execute(sa.insert(TABLE), rows)


def refusal(row: sa.Row, key: ChainKey | None) -> str | None:
    """Why a queued row must not be appended, or None when it may."""
    if row.type not in QUEUEABLE:
        return f"type {str(row.type)[:100]!r} is not one that outside writers queue"
    if key is not None and not key.side_authentic(row.mac, "request", *_mac_fields(row)):
        return "it has no valid MAC with the chain key (not queued by a key holder)"
    cls = EVENT_TYPES[row.type]
    if row.schema_version != cls.schema_version:
        return f"schema version {row.schema_version!r} is not {row.type}'s ({cls.schema_version})"
    try:
        event = cls.model_validate_json(row.payload, strict=True)
    except (ValidationError, TypeError, ValueError) as e:
        return f"its payload does not read as {row.type}: {str(e).splitlines()[0][:200]}"
    try:  # it validates, but the append must store it (an int past 64 bits cannot be)
        canonical_json(vars(event))
    except StoreError as e:
        return f"its payload cannot be stored: {e}"
    return None


def take(conn: sa.Connection, run_id: str, key: ChainKey | None = None) -> list[Queued]:
    """The run's queued events in the order they were queued, removed from the queue in `conn`'s
    transaction (so they leave it exactly when the append that carries them commits). A row
    `refusal` names is removed too, with a warning, and not returned: it never enters the log."""
    rows = conn.execute(sa.select(TABLE).where(TABLE.c.run_id == run_id).order_by(TABLE.c.id)).all()
    if not rows:
        return []
    conn.execute(sa.delete(TABLE).where(TABLE.c.id.in_([r.id for r in rows])))
    taken = []
    for r in rows:
        why = refusal(r, key)
        if why is None:
            event = EVENT_TYPES[r.type].model_validate_json(r.payload, strict=True)
            taken.append(encode([event])[0])
        else:
            _log.warning("run %s: queued request %s refused, not appended: %s", run_id, r.id, why)
    return taken


@dataclass(frozen=True)
class Pending:
    """A run's queue as its taker will treat it: how many rows it will append, and why it will
    refuse each other one (`refusal`: with a key, a row whose MAC does not verify is no request)."""

    queued: int
    refused: list[str]


def pending(conn: sa.Connection, run_id: str, key: ChainKey | None = None) -> Pending:
    """The run's queue, each row checked as `take` checks it (a queue holds a few rows)."""
    rows = conn.execute(sa.select(TABLE).where(TABLE.c.run_id == run_id).order_by(TABLE.c.id))
    queued, refused = 0, []
    for row in rows:
        why = refusal(row, key)
        if why is None:
            queued += 1
        else:
            refused.append(f"request {row.id}: {why}")
    return Pending(queued, refused)


def queue_for(
    engine: sa.Engine,
    retry: RetryPolicy,
    run_id: str,
    events: Sequence[Event],
    queued_by: str,
    key: ChainKey | None = None,
) -> None:
    """Queue `events` for the writer that holds the run's lease (`EventLog.engine`, `.retry`,
    `.key`), riding out transient store errors as appends do."""

    def attempt() -> None:
        with engine.begin() as conn:
            queue(conn, run_id, events, queued_by, key)

    def attempt_past_taken_ids() -> None:
        try:
            attempt()
        except sa.exc.IntegrityError:
            if engine.dialect.name != "postgresql":
                raise
            # ids inserted by hand ahead of the serial's sequence (round 26, log 033): every
            # insert collided, each retry burning one id; move the sequence past them, once
            with engine.begin() as conn:
                conn.execute(_PAST_TAKEN_IDS)
            attempt()

    with_retries(
        f"queue a request for run {run_id}", attempt_past_taken_ids, retry, lambda e, d: None
    )


_PAST_TAKEN_IDS = sa.text(
    "SELECT setval(pg_get_serial_sequence('run_requests', 'id'), "
    "(SELECT COALESCE(MAX(id), 0) + 1 FROM run_requests), false)"
)


def pending_for(engine: sa.Engine, run_id: str, key: ChainKey | None = None) -> Pending:
    with engine.connect() as conn:
        return pending(conn, run_id, key)
