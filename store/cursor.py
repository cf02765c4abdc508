"""Readers that keep a position in a run's log and read only what is new.

`LogCursor` holds, in memory, the last seq it handed out; `read_new` reads the rows after it
through `EventLog.read` (the chain checked as every read checks it) and moves the position. Nothing
is written to the run. `StateCursor` folds what a cursor reads onto the run's `RunState`: the first
read starts from the newest snapshot (`store.snapshots.fold_run`), later ones fold only the new rows.
`page` is a keyset page of a run's rows (by seq, never OFFSET), each row handed out re-hashed;
`ChainState` says how far the chain is verified: the whole run when first asked and every
`RECHECK_S`, only the rows past its last check in between.
`fold_many` folds many runs at once, a lineage tree sharing its reads: each parent's history is
walked once for all of its branches, and a branch then folds only its own rows.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from store.errors import IntegrityError
from store.lineage import Parent
from store.log import EventLog, StoredEvent
from store.projections import RunState, project
from store.rows import COLUMNS
from store.snapshots import Snapshots, fold_run
from store.verification import ChainBroken, ChainWalk


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
    keyset read by seq. The span the rows cover is walked as a typed read walks it
    (`EventLog.check_span`: links, gaps and every row re-hashed, the skipped ones too, and with a
    key on to the signed end): a row edited with its own hash recomputed, or one deleted, is
    `ChainBroken` naming its seq even where `ChainState` verified the run before the edit (red
    team round 12). A page costs the rows it spans (without a key) or the rows from it to the
    log's end (with one)."""
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
    if out:
        log.check_span(run_id, out[0].seq, out[-1].seq)
    return out


@dataclass(frozen=True)
class ChainStatus:
    verified_to: int  # every row up to here chains from genesis
    broken_at: int | None
    reason: str


# How often (seconds) `ChainState` walks a run whole again while it is asked about: the bound on
# how long an edit behind a run's end (its own hash recomputed, inside the verified prefix and
# under the keyed head) can go unseen by a long-lived reader that nothing else tells.
RECHECK_S = 30.0


class ChainState:
    """How far each run's chain is verified, kept in memory for a long-lived reader (the console).
    A run is walked whole (`EventLog.verify`) the first time it is asked about, and again once
    `RECHECK_S` has passed since; in between, a run whose end (seq and hash) has not moved costs
    one query, and one that grew is walked past the verified prefix only (`check_chain`). A break
    any reader of the run met (`record`) is shown at once, so a badge never says ok beside a
    refusal. A 10,000-step run costs one whole walk per `RECHECK_S` while it is looked at."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        # run -> (end seq, end hash, status, when it was last walked whole)
        self._known: dict[str, tuple[int, str, ChainStatus, float]] = {}

    def status(self, run_id: str) -> ChainStatus:
        end = self._end(run_id)
        known = self._known.get(run_id)
        now = time.monotonic()
        if known is None or now - known[3] >= RECHECK_S:
            status = self._walked_whole(run_id, end)
            self._known[run_id] = (*end, status, now)
            return status
        if known[:2] == end or known[2].broken_at is not None:
            return known[2]
        try:
            self.log.check_chain(run_id)
            status = ChainStatus(end[0], None, "ok")
        except ChainBroken as e:
            status = _broken(e)
        self._known[run_id] = (*end, status, known[3])
        return status

    def recheck_stalest(self, run_ids: Sequence[str]) -> None:
        """Walk whole the one run of `run_ids` whose last whole walk is the oldest, if that was
        `RECHECK_S` ago or never: a list that polls many runs re-verifies them in turn, one run
        a poll, instead of none (or all of them) each time."""
        now = time.monotonic()
        due = [(self._known[r][3] if r in self._known else 0.0, r) for r in run_ids]
        due = [(at, r) for at, r in due if r not in self._known or now - at >= RECHECK_S]
        if due:
            self.status(min(due)[1])

    def known(self, run_id: str) -> ChainStatus | None:
        """What the last check or `record` said about the run, walking nothing (None: nothing,
        or not within `RECHECK_S`)."""
        known = self._known.get(run_id)
        if known is None or time.monotonic() - known[3] >= RECHECK_S:
            return None
        return known[2]

    def record(self, error: ChainBroken) -> None:
        """A break a reader of the run met: the run's status until it is next walked whole."""
        self._known[error.run_id] = (*self._end(error.run_id), _broken(error), time.monotonic())

    def _walked_whole(self, run_id: str, end: tuple[int, str]) -> ChainStatus:
        try:
            report = self.log.verify(run_id)
        except ChainBroken as e:
            return _broken(e)
        except IntegrityError as e:  # a history with no shape (a branch pointer at no seq)
            return ChainStatus(0, 0, str(e))
        if report.ok:
            return ChainStatus(end[0], None, "ok")
        return ChainStatus(max(report.first_bad_seq - 1, 0), report.first_bad_seq, report.reason)

    def _end(self, run_id: str) -> tuple[int, str]:
        mark = self.log.backend.mark
        sql = f"SELECT seq, hash FROM events WHERE run_id = {mark} ORDER BY seq DESC LIMIT 1"
        with self.log.engine.connect() as conn:
            row = conn.exec_driver_sql(sql, (run_id,)).first()
        return (row[0], row[1]) if row else (0, "")


def _broken(error: ChainBroken) -> ChainStatus:
    return ChainStatus(max(error.seq - 1, 0), error.seq, error.reason)


class _Until:
    """One pass over a run's rows, handed out in spans that each end at a given seq."""

    def __init__(self, rows: Iterator[StoredEvent]) -> None:
        self.rows, self.ahead = rows, None
        self.last: tuple[int, str] = (0, "")  # the seq and hash of the last row handed out

    def until(self, seq: int | None) -> Iterator[StoredEvent]:
        while True:
            row = self.ahead if self.ahead is not None else next(self.rows, None)
            self.ahead = None
            if row is None:
                return
            if seq is not None and row.seq > seq:
                self.ahead = row
                return
            self.last = (row.seq, row.hash)
            yield row


def fold_many(
    log: EventLog, run_ids: Sequence[str], parents: dict[str, Parent]
) -> dict[str, RunState]:
    """Each run's state (as `fold_run` gives it). A parent's history is read once, from its newest
    snapshot before its first branch point, with the state kept at each cut; each branch then
    folds its own rows from its cut's state, walked from the parent's row it chains from (the
    branches' own rows read together). `parents`: the store's branch pointers (the whole
    store/lineage.py table), read once by the caller and used by every read here."""
    with log.parents_known(parents):
        return _fold_many(log, run_ids, parents)


def _fold_many(
    log: EventLog, run_ids: Sequence[str], parents: dict[str, Parent]
) -> dict[str, RunState]:
    wanted = set(run_ids)
    cuts: dict[str, set[int]] = {}
    for run_id in wanted:
        if run_id in parents:
            cuts.setdefault(parents[run_id].run_id, set()).add(parents[run_id].seq)
    at_cut: dict[tuple[str, int], tuple[RunState, str]] = {}
    states: dict[str, RunState] = {}
    for parent in sorted(
        cuts, key=lambda run: _depth(run, parents)
    ):  # a parent before its branches
        end = _pass(log, parent, sorted(cuts[parent]), at_cut, parents.get(parent))
        if parent in wanted:
            states[parent] = end
    rest = [run_id for run_id in run_ids if run_id not in states]
    branches = [r for r in rest if r in parents and (parents[r].run_id, parents[r].seq) in at_cut]
    own = _own_rows_of(log, {run_id: parents[run_id] for run_id in branches})
    for run_id in rest:
        if run_id in own:
            pointer = parents[run_id]
            start = at_cut[pointer.run_id, pointer.seq]
            states[run_id] = _fold_own(log, run_id, pointer, own[run_id], *start)
        else:
            states[run_id] = fold_run(log, run_id)
    return states


def _depth(run_id: str, parents: dict[str, Parent]) -> int:
    depth, seen = 0, {run_id}
    while run_id in parents and parents[run_id].run_id not in seen:
        run_id = parents[run_id].run_id
        seen.add(run_id)
        depth += 1
    return depth


def _pass(
    log: EventLog,
    run_id: str,
    cuts: list[int],
    at_cut: dict[tuple[str, int], tuple[RunState, str]],
    pointer: Parent | None,
) -> RunState:
    """Fold `run_id`'s history once, keeping (state, row hash) at each of `cuts`: a branch whose
    own branches are all cut after its branch point from its cut's state (only its own rows
    read), any other run from its newest snapshot before the first cut."""
    if pointer is not None and (pointer.run_id, pointer.seq) in at_cut and cuts[0] > pointer.seq:
        state = at_cut[pointer.run_id, pointer.seq][0]
    else:
        state = Snapshots(log).newest_usable(run_id, cuts[0]) or RunState()
    rows = _Until(iter(log.read(run_id, from_seq=state.last_seq + 1)))
    state_at = lambda seq: fold_run(log, run_id, seq)  # noqa: E731  (a rewind's target)
    for cut in [*cuts, None]:
        state = project(rows.until(cut), state, state_at=state_at)
        if cut is not None:
            hash_ = rows.last[1] if rows.last[0] == cut else _hash_at(log, run_id, cut)
            at_cut[run_id, cut] = (replace(state, run_id=run_id), hash_)
    state.run_id = run_id
    return state


# Run ids per `IN (...)`: under SQLite's and PostgreSQL's limits on a statement's parameters.
_IDS_PER_QUERY = 500


def _own_rows_of(log: EventLog, pointers: dict[str, Parent]) -> dict[str, list[StoredEvent]]:
    """Each branch's own rows (those after its cut), in seq order: one query per 500 branches."""
    mark = log.backend.mark
    ids = sorted(pointers)
    out: dict[str, list[StoredEvent]] = {run_id: [] for run_id in ids}
    with log.engine.connect() as conn:
        for at in range(0, len(ids), _IDS_PER_QUERY):
            chunk = ids[at : at + _IDS_PER_QUERY]
            sql = (
                f"SELECT {', '.join(COLUMNS)} FROM events "
                f"WHERE run_id IN ({', '.join([mark] * len(chunk))}) ORDER BY run_id, seq"
            )
            for r in conn.exec_driver_sql(sql, tuple(chunk)):
                row = StoredEvent(*r)
                # As `seq > cut` in SQL: SQLite keeps an edited seq's text, which sorts after
                # every number (and which the walk then refuses).
                if not isinstance(row.seq, int | float) or row.seq > pointers[row.run_id].seq:
                    out[row.run_id].append(row)
    return out


def _fold_own(
    log: EventLog,
    run_id: str,
    pointer: Parent,
    rows: list[StoredEvent],
    start: RunState,
    junction: str,
) -> RunState:
    """A branch's state: its cut's state, then its own rows, each walked from the junction."""
    walk = ChainWalk(run_id, pointer.seq + 1)
    walk.prev, walk.prev_run = junction, pointer.run_id
    for row in rows:
        walk.step(row)
    state = project(rows, start, state_at=lambda seq: fold_run(log, run_id, seq))
    state.run_id = run_id
    return state


def _hash_at(log: EventLog, run_id: str, seq: int) -> str:
    rows = list(log.read(run_id, from_seq=seq, to_seq=seq))
    return rows[0].hash if rows else ""
