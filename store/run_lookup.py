"""Finding a run by what a person types: `latest`, a whole id, or the start of one."""

from __future__ import annotations

from collections.abc import Collection

import sqlalchemy as sa

from store.log import EventLog, EventRow

_EVENTS = EventRow.__table__


def runs_by_start(log: EventLog) -> list[str]:
    """Every run id, oldest first by when the run's own first row was written (a branch's first
    row follows its parent's prefix). Reads one row per run."""
    first = (
        sa.select(_EVENTS.c.run_id, sa.func.min(_EVENTS.c.seq).label("first_seq"))
        .group_by(_EVENTS.c.run_id)
        .subquery()
    )
    query = (
        sa.select(first.c.run_id)
        .join(
            _EVENTS,
            (_EVENTS.c.run_id == first.c.run_id) & (_EVENTS.c.seq == first.c.first_seq),
        )
        .order_by(_EVENTS.c.recorded_at, first.c.run_id)
    )
    with log.engine.connect() as conn:
        return [row.run_id for row in conn.execute(query)]


def latest(log: EventLog, leave_out: Collection[str] = ()) -> str | None:
    """The most recently started run not in `leave_out` (hidden runs), or None."""
    return next((r for r in reversed(runs_by_start(log)) if r not in leave_out), None)


def starting_with(log: EventLog, prefix: str, limit: int = 6) -> list[str]:
    """Up to `limit` run ids that start with `prefix`, in order."""
    query = (
        sa.select(_EVENTS.c.run_id)
        .where(sa.func.substr(_EVENTS.c.run_id, 1, len(prefix)) == prefix)
        .group_by(_EVENTS.c.run_id)
        .order_by(_EVENTS.c.run_id)
        .limit(limit)
    )
    with log.engine.connect() as conn:
        return [row.run_id for row in conn.execute(query)]
