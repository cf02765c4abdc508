"""Readers that keep a position in a run's log and read only what is new.

`LogCursor` holds, in memory, the last seq it handed out; `read_new` reads the rows after it
through `EventLog.read` (the chain checked as every read checks it) and moves the position. Nothing
is written to the run. `StateCursor` folds what a cursor reads onto the run's `RunState`: the first
read starts from the newest snapshot (`store.snapshots.fold_run`), later ones fold only the new rows.
`page` is a keyset page of a run's rows (by seq, never OFFSET), each row handed out re-hashed;
`ChainState` says how far the chain is verified, walking only the rows past its last check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from store.log import EventLog, StoredEvent
from store.projections import RunState, project
from store.rows import COLUMNS
from store.snapshots import fold_run
from store.verification import ChainBroken, row_problem


class LogCursor:
    """A position in one run's log (the last seq read), held by the reader, never in the run."""

    def __init__(self, log: EventLog, run_id: str, after_seq: int = 0) -> None:
        self.log, self.run_id, self.position = log, run_id, after_seq

    def read_new(self, types: Sequence[str] | None = None) -> list[StoredEvent]:
        """The rows after the position (only `types`, when given), in seq order; the position
        moves to the log's end as read (rows of other types are passed over, not re-read)."""
        end = self.log.last_seq(self.run_id)
        if end <= self.position:
            return []
        rows = list(self.log.read(self.run_id, from_seq=self.position + 1, types=types, to_seq=end))
        self.position = end
        return rows

    @staticmethod
    def fields(row: StoredEvent) -> dict[str, Any]:
        """The one decode: the payload as the current code knows it (always upcast)."""
        return row.fields()


class StateCursor:
    """A run's folded state, kept current by reading only the rows past the last fold."""

    def __init__(self, log: EventLog, run_id: str) -> None:
        self.log, self.run_id = log, run_id
        self.state: RunState | None = None

    def refresh(self) -> RunState:
        if self.state is None:
            self.state = fold_run(self.log, self.run_id)
            return self.state
        cursor = LogCursor(self.log, self.run_id, self.state.last_seq)
        rows = cursor.read_new()
        if rows:
            # A rewind among the new rows re-folds from the store up to its target.
            self.state = project(
                rows, replace(self.state), state_at=lambda seq: fold_run(self.log, self.run_id, seq)
            )
        return self.state


def page(
    log: EventLog,
    run_id: str,
    after_seq: int = 0,
    types: Sequence[str] | None = None,
    limit: int = 100,
) -> list[StoredEvent]:
    """Up to `limit` rows of a run's history after `after_seq` (only `types`, when given): a
    keyset read by seq that costs the same on page 1 and page 300. Each row is re-hashed as it is
    handed out (`ChainBroken` on one that was edited); `ChainState` checks the links."""
    mark = log.backend.mark
    wanted = sorted(set(types)) if types else None
    out: list[StoredEvent] = []
    for span in log.segments(run_id):  # a branch reads its ancestors' rows up to the cut
        part = span.clip(after_seq + 1, None)
        if part is None:
            continue
        sql = f"SELECT {', '.join(COLUMNS)} FROM events WHERE run_id = {mark} AND seq >= {mark}"
        params: list[Any] = [span.run_id, part[0]]
        if part[1] is not None:
            sql += f" AND seq <= {mark}"
            params.append(part[1])
        if wanted:
            sql += f" AND type IN ({', '.join([mark] * len(wanted))})"
            params.extend(wanted)
        sql += f" ORDER BY seq LIMIT {int(limit - len(out))}"
        with log.engine.connect() as conn:
            out.extend(StoredEvent(*r) for r in conn.exec_driver_sql(sql, tuple(params)))
        if len(out) >= limit:
            break
    for row in out:
        problem = row_problem(row)
        if problem is not None:
            raise ChainBroken(run_id, row.seq, problem)
    return out


@dataclass(frozen=True)
class ChainStatus:
    verified_to: int  # every row up to here chains from genesis
    broken_at: int | None
    reason: str


class ChainState:
    """How far each run's chain is verified, kept in memory: a run whose end (seq and hash) has
    not moved since the last check is not walked again; one that grew is walked past the verified
    prefix only (`EventLog.check_chain`, which records how far it got)."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        self._known: dict[str, tuple[int, str, ChainStatus]] = {}

    def status(self, run_id: str) -> ChainStatus:
        end = self._end(run_id)
        known = self._known.get(run_id)
        if known is not None and known[:2] == end:
            return known[2]
        try:
            self.log.check_chain(run_id)
            status = ChainStatus(end[0], None, "ok")
        except ChainBroken as e:
            status = ChainStatus(max(e.seq - 1, 0), e.seq, e.reason)
        self._known[run_id] = (*end, status)
        return status

    def _end(self, run_id: str) -> tuple[int, str]:
        mark = self.log.backend.mark
        sql = f"SELECT seq, hash FROM events WHERE run_id = {mark} ORDER BY seq DESC LIMIT 1"
        with self.log.engine.connect() as conn:
            row = conn.exec_driver_sql(sql, (run_id,)).first()
        return (row[0], row[1]) if row else (0, "")
