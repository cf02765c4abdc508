"""The reading half of `store.log.EventLog` (a mixin): `read` and the chain checks every read
runs (`check_chain`: the verified prefix, the keyed head, a branch's junction), the walk of a
typed read over the rows it skips, `walking_once`, `last_of`, `verify`. It uses the engine,
backend, key, retry policy and SQL that `EventLog.__init__` sets up."""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError

from store import lineage
from store.backends import Backend, as_dbapi_error, first_not_utf8, lenient_rows, not_utf8
from store.errors import StoreError
from store.keyed import ChainKey
from store.log_verify import Verifying
from store.prefix_record import PrefixRecord
from store.retry import RetryPolicy, is_transient, with_retries
from store.rows import StoredEvent
from store.verification import (
    GENESIS_HASH,
    ChainBroken,
    ChainWalk,
    check_end,
    row_problem,
    vouched,
    walk_from,
)

_log = logging.getLogger("rlvr.store")
_NO_TYPE = "\x00"  # no event has this type: a read for it walks its span and hands out nothing
# The branch pointers a reader already holds (the whole table, read once), per thread: the
# console's request threads share one EventLog, and another thread's reads look pointers up.
_known_parents: contextvars.ContextVar[dict[str, lineage.Parent] | None] = contextvars.ContextVar(
    "known_parents", default=None
)


class ReadsAndChecks(Verifying):
    """`EventLog`'s reads; every one checks the rows it hands out (see `read`)."""

    backend: Backend
    engine: sa.Engine
    key: ChainKey | None
    retry: RetryPolicy
    _prefix: PrefixRecord
    _walked: dict[str, tuple[int, int, str]] | None
    _last_sql: str
    _select_sql: str
    _hash_sql: str
    _link_sql: str
    _first_sql: str

    def last_seq(self, run_id: str) -> int:
        def query() -> int:
            with self.engine.connect() as conn:
                return self._last(conn, run_id)[0]

        try:
            return with_retries(f"read run {run_id}", query, self.retry, warn_retry)
        except DBAPIError as e:  # the last row's hash not UTF-8: named by its seq
            raise self.named_not_utf8(run_id, e) from e

    def _last(self, conn: sa.Connection, run_id: str) -> tuple[int, str]:
        """The run's last seq and hash (0 and the genesis hash for a run with no rows)."""
        last = conn.exec_driver_sql(self._last_sql, (run_id,)).first()
        if last is not None and not _is_seq(last[0]):
            # SQLite keeps text in an INTEGER column, and text sorts after every number.
            raise ChainBroken(
                run_id, self._first_gap(conn, run_id), f"a row's seq is stored as {last[0]!r}, "
                "not a whole number (the store was edited)",
            )  # fmt: skip
        return (last[0], last[1]) if last else (0, GENESIS_HASH)

    def _first_gap(self, conn: sa.Connection, run_id: str) -> int:
        """The first seq missing from the run's own whole-number seqs (where a row's seq was
        overwritten with something else); past the last one when none is missing."""
        sql = f"SELECT seq FROM events WHERE run_id = {self.backend.mark} ORDER BY seq"
        expected = None
        for (seq,) in conn.exec_driver_sql(sql, (run_id,)):
            if not _is_seq(seq):
                break
            if expected is not None and seq != expected:
                return expected
            expected = seq + 1
        return expected or 1

    def read(
        self,
        run_id: str,
        from_seq: int = 1,
        types: Iterable[str] | None = None,
        to_seq: int | None = None,
        batch: int = 5000,
    ) -> Iterator[StoredEvent]:
        """Stream a run's events in `seq` order, optionally only some types or up to `to_seq`.
        The chain's end is checked first (`check_chain`), then every row of the span is walked
        (`ChainWalk`: seqs, links, each row re-hashed, the rows of other types too, never
        decoded) from the row before `from_seq` to `to_seq`, and the link of the row after it
        (with a key, every row to the log's end, which the keyed head vouches for). Inside
        `walking_once`, a span walked already, still ending on the same row and hash, is not
        walked again: only the rows handed out are re-hashed. `ChainBroken` names the first bad
        seq; a transient error mid-stream resumes after the last row walked."""
        self.check_chain(run_id)
        wanted = None if types is None else sorted(set(types))
        if wanted == []:
            return
        first = max(from_seq - 1, 1)
        until = None if self.key is not None or to_seq is None else to_seq + 1
        if self._walked_already(run_id, first, until):
            yield from self._rehashed(run_id, from_seq, wanted, to_seq, batch)
            return
        walk = ChainWalk(run_id, first, changed=lambda row: self._changed(run_id, row))
        kinds = None if wanted is None else frozenset(wanted)
        delays = iter(self.retry.delays())
        # A row is handed out once the next row's link back to it has been checked (or the span
        # has ended): a row edited with its own hash recomputed passes its own re-hash, and
        # only its successor's link shows it; held back one row, it is never printed before
        # the refusal (`rlvr events` streams to the terminal).
        held: StoredEvent | None = None
        while True:
            try:
                for row in self._stream(run_id, walk.expected, None, until, batch):
                    if to_seq is not None and row.seq > to_seq:
                        # Only the link back matters here (an edit there is not handed out).
                        walk.step(row, link_only=self.key is None)
                        continue
                    walk.step(row)
                    if held is not None:
                        yield held
                        held = None
                    if row.seq >= from_seq and (kinds is None or row.type in kinds):
                        held = row
                break
            except ChainBroken as e:  # the history's first bad seq, as `verify` names it
                raise self._first_bad(e) from None
            except DBAPIError as e:
                delay = next(delays, None)
                if delay is None or not is_transient(e):
                    raise StoreError(f"read of run {run_id} failed: {e.orig}") from e
                warn_retry(e, delay)
                time.sleep(delay)
        if held is not None:
            yield held
        if walk.prev is not None and self._walked is not None:
            self._walked[run_id] = (first, walk.expected - 1, walk.prev)

    def check_span(self, run_id: str, from_seq: int, to_seq: int) -> None:
        """Walk `from_seq..to_seq` as `read` does (the row before it, the link of the row after
        it; with a key, every row to the log's end), handing nothing out: a reader that selected
        its rows its own way (the console's keyset page) gets the same check. `ChainBroken` names
        the first bad seq."""
        for _ in self.read(run_id, from_seq, types=(_NO_TYPE,), to_seq=to_seq):
            pass

    @contextlib.contextmanager
    def parents_known(self, parents: dict[str, lineage.Parent]) -> Iterator[None]:
        """Reads inside (in this thread) take each branch pointer from `parents`, the whole
        `run_parents` table as the caller read it, instead of one query per pointer; every chain
        check runs as outside."""
        token = _known_parents.set(parents)
        try:
            yield
        finally:
            _known_parents.reset(token)

    @contextlib.contextmanager
    def walking_once(self) -> Iterator[None]:
        """Reads inside walk each span of a run once (a command that reads one run several ways,
        `rlvr report`, the blob GC's reading of one run); a long-lived reader stays outside, so that
        each of its reads walks. Nested, the outermost decides."""
        outer = self._walked
        self._walked = {} if outer is None else outer
        try:
            yield
        finally:
            self._walked = outer

    def _walked_already(self, run_id: str, first: int, until: int | None) -> bool:
        """Whether, inside `walking_once`, `first..until` (None: to the end) of the run was walked,
        and the row it ended on is still the log's last (for a walk to the end) with its hash."""
        span = self._walked.get(run_id) if self._walked is not None else None
        if span is None or span[0] > first:
            return False
        with self.engine.connect() as conn:
            if until is None and self._last(conn, run_id)[0] != span[1]:
                return False
            if until is not None and span[1] < until:
                return False
            return self._hash_at(conn, run_id, span[1]) == span[2]

    def _rehashed(
        self, run_id: str, from_seq: int, types: list[str] | None, to_seq: int | None, batch: int
    ) -> Iterator[StoredEvent]:
        """The rows asked for, out of a span this process walked: each re-hashed as it goes."""
        for row in self._stream(run_id, from_seq, types, to_seq, batch):
            problem = row_problem(row)
            if problem is not None:
                raise ChainBroken(run_id, row.seq, problem)
            yield row

    def last_of(self, run_id: str, types: Sequence[str]) -> int | None:
        """The seq of the run's last row of one of `types` (a branch's ancestors' rows included),
        unchecked: a reader that wants only the latest reads from there (`read(from_seq=...)`
        then walks only the rows after it)."""
        mark = self.backend.mark
        sql = (
            f"SELECT max(seq) FROM events WHERE run_id = {mark} AND seq >= {mark} "
            f"AND seq <= {mark} AND type IN ({', '.join([mark] * len(types))})"
        )
        with self.engine.connect() as conn:
            for span in reversed(lineage.segments(conn, run_id)):
                last = span.last if span.last is not None else self._last(conn, run_id)[0]
                found = conn.exec_driver_sql(sql, (span.run_id, span.first, last, *types)).scalar()
                if found is not None:
                    return found
        return None

    def _stream(
        self, run_id: str, from_seq: int, types: list[str] | None, to_seq: int | None, batch: int
    ) -> Iterator[StoredEvent]:
        """The run's history as stored, unchecked: a branch's ancestors' rows (store/lineage.py),
        then its own."""
        for span in self.segments(run_id):
            part = span.clip(from_seq, to_seq)
            if part is not None:
                yield from self._stream_own(span.run_id, part[0], types, part[1], batch)

    def _stream_own(
        self, run_id: str, from_seq: int, types: list[str] | None, to_seq: int | None, batch: int
    ) -> Iterator[StoredEvent]:
        mark = self.backend.mark
        sql = f"{self._select_sql} AND seq > {mark}"
        bounds: list = []
        if to_seq is not None:
            sql += f" AND seq <= {mark}"
            bounds.append(to_seq)
        if types is not None:
            sql += f" AND type IN ({', '.join([mark] * len(types))})"
            bounds.extend(types)
        sql += f" ORDER BY seq LIMIT {int(batch)}"
        after = from_seq - 1
        while True:
            # One query a chunk, its connection back in the pool before a row is handed out: a
            # stream left mid-way (a row refused, a reader that stops early) holds no connection,
            # so no cursor is open when the garbage collector rolls a pooled connection back
            # (psycopg's rollback would wait for ever on the lock of an open stream).
            with self.engine.connect() as conn:
                cursor = conn.connection.driver_connection.cursor()
                params = [run_id, after, *bounds]
                try:
                    cursor.execute(sql, params)
                    rows = cursor.fetchall()
                except conn.dialect.loaded_dbapi.Error as e:  # retried like SQLAlchemy's own
                    if not not_utf8(e):
                        raise as_dbapi_error(conn, sql, params, e) from e
                    rows = lenient_rows(conn, sql, params)  # the walk then names the row
                finally:
                    cursor.close()
            yield from itertools.starmap(StoredEvent, rows)
            # an edited seq SQLite keeps as text ends the stream: the chain walk refuses it
            if len(rows) < batch or not isinstance(rows[-1][1], int):
                return
            after = rows[-1][1]

    def check_chain(self, run_id: str) -> None:
        """Walk the rows past the verified prefix, check the prefix's end still holds and the
        keyed head (with a key); then record the new prefix. `ChainBroken` on a break.
        A branch's history starts with its ancestors' rows: their chains are checked first."""
        try:
            for span in self.segments(run_id):  # the run's own segment is the last
                self._check_own_chain(span.run_id)
        except DBAPIError as e:
            raise self.named_not_utf8(run_id, e) from e

    def named_not_utf8(self, run_id: str, error: DBAPIError) -> Exception:
        """SQLite's refusal to decode a text column (it names no row and, printed, shows the
        SQL) as the chain break of the first row of the run's history holding such text; any
        other error as it is. Only on that failure path: the rows are read again as bytes."""
        if not not_utf8(error):
            return error
        with self.engine.connect() as conn:
            for span in self.segments(run_id):
                found = first_not_utf8(conn, span.run_id)
                if found is not None:
                    why = f"its {found[1]} is not UTF-8 text (the store was edited)"
                    return ChainBroken(run_id, found[0], why)
        return error

    def _check_own_chain(self, run_id: str) -> None:
        known = _known_parents.get()
        if known is not None:
            parent = known.get(run_id)
        else:
            with self.engine.connect() as conn:
                parent = lineage.parent_of(conn, run_id)

        def walk() -> tuple[int, str] | None:
            # The claims first, then the rows' end (see check_end): a run being written while it
            # is read (`rlvr status` on a live run) must not look truncated.
            heads = self.key.heads(run_id) if self.key is not None else None
            with self.engine.connect() as conn:
                record = self._prefix.get(conn, run_id)
                last_seq = self._last(conn, run_id)[0]
                start = (0, GENESIS_HASH)
                if parent is not None:
                    start = (parent.seq, self._junction(conn, run_id, parent))
                vouches = lambda row: vouched(row, heads, record)  # noqa: E731
                try:
                    hash_at = lambda s: self._hash_at(conn, run_id, s)  # noqa: E731
                    check_end(run_id, last_seq, record, hash_at, self.key, heads)
                    if last_seq <= (record or start)[0]:
                        return None
                    return self._walk_own(conn, run_id, record or start, vouches)
                except ChainBroken as e:
                    # Some claim or link failed: name the first bad seq, as `verify` does (a
                    # walk of the whole segment, on this failure path only).
                    raise self._first_break(conn, run_id, start, vouches, e) from None

        verified = with_retries(f"check run {run_id}", walk, self.retry, warn_retry)
        if verified is None:
            return
        try:
            with self.engine.begin() as conn:
                self._prefix.advance(conn, run_id, *verified)
        except DBAPIError as e:  # a read-only store is still readable: the next read walks again
            # At info: a read-only store (a hot standby) says so on every read otherwise, and
            # before the one line of a refusal that follows (round 22, log 033)
            _log.info("could not record the verified prefix of %s: %s", run_id, e.orig)

    def _walk_own(
        self, conn: sa.Connection, run_id: str, start: tuple[int, str], vouches: Any
    ) -> tuple[int, str]:
        """Walk the run's own rows after `start`; the new verified end."""
        sql = f"{self._select_sql} AND seq > {self.backend.mark} ORDER BY seq"
        rows = self.backend.stream(conn, sql, [run_id, start[0]], 5000)
        with contextlib.closing(rows):  # before the connection: see `_stream_own`
            return walk_from(run_id, start, (StoredEvent(*r) for r in rows), vouches)

    def _junction(self, conn: sa.Connection, run_id: str, parent: lineage.Parent) -> str:
        """The hash of the parent's row a branch starts from, once the branch's own rows are
        checked to start right after it and chain from it (store/lineage.py: `check_junction`)."""
        junction = self._hash_at(conn, parent.run_id, parent.seq)
        first = conn.exec_driver_sql(self._first_sql, (run_id,)).first()
        first_seq = first[0] if first is not None else None
        link = before = None
        if type(first_seq) is int:  # a seq stored as text is named by the walk, not here
            link = first[1]
            if first_seq > parent.seq + 1:  # only then can the pointer have been moved back
                before = self._hash_at(conn, parent.run_id, first_seq - 1)
        return lineage.check_junction(run_id, parent, junction, (first_seq, link), before)

    def _hash_at(self, conn: sa.Connection, run_id: str, seq: int) -> str | None:
        owner = lineage.owner_of(_segments(conn, run_id), seq)
        row = conn.exec_driver_sql(self._hash_sql, (owner, seq)).first()
        return row[0] if row else None

    def segments(self, run_id: str) -> list[lineage.Segment]:
        """The stored runs whose rows make up `run_id`'s history, oldest first."""
        with self.engine.connect() as conn:
            return _segments(conn, run_id)


def _segments(conn: sa.Connection, run_id: str) -> list[lineage.Segment]:
    return lineage.segments(conn, run_id, _known_parents.get())


def warn_retry(error: BaseException, delay: float) -> None:
    _log.warning("transient store error, retrying in %.2f s: %s", delay, error)


def _is_seq(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
