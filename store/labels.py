"""Labels a person puts on runs to organise a store (hidden, for now): how the store is shown,
never what a run did, so they live outside every run's hash chain, in a side table
`run_labels(run_id, hidden, changed_at, changed_by)`. Writing one never touches a run's rows,
so it is safe on a run another process drives, and it is reversible.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from store.backends import created_or_missing
from store.log import EventLog
from store.retry import with_retries


class RunLabelRow(SQLModel, table=True):
    __tablename__ = "run_labels"

    run_id: str = Field(primary_key=True, max_length=200)
    hidden: bool = False
    changed_at: str
    changed_by: str = Field(max_length=200)


TABLE = RunLabelRow.__table__


class RunLabels:
    def __init__(self, log: EventLog) -> None:
        self.log = log
        self.absent = created_or_missing(log.engine, [TABLE])  # read-only, never labelled

    def hidden(self) -> set[str]:
        """The ids of the runs hidden from lists."""
        if self.absent:
            return set()
        with self.log.engine.connect() as conn:
            rows = conn.execute(sa.select(TABLE.c.run_id).where(TABLE.c.hidden.is_(True)))
            return {r.run_id for r in rows}

    def set_hidden(self, run_id: str, hidden: bool, by: str) -> bool:
        """Hide or show a run; whether that changed anything."""

        def attempt() -> bool:
            with self.log.engine.begin() as conn:
                row = conn.execute(
                    sa.select(TABLE.c.hidden).where(TABLE.c.run_id == run_id)
                ).first()
                if row is not None and row.hidden == hidden:
                    return False
                values = {
                    "hidden": hidden,
                    "changed_at": datetime.now(UTC).isoformat(timespec="seconds"),
                    "changed_by": by,
                }
                if row is None:
                    conn.execute(sa.insert(TABLE).values(run_id=run_id, **values))
                else:
                    conn.execute(sa.update(TABLE).where(TABLE.c.run_id == run_id).values(**values))
                return True

        return with_retries(f"label run {run_id}", attempt, self.log.retry, lambda e, d: None)
