"""The append-only event log on sqlmodel, written once over `store.backends`: SQLite (WAL,
default) or PostgreSQL.

Rows are keyed by `(run_id, seq)`: a writer appends with the `seq` it expects to be last, and a
stale writer gets `ConcurrencyError` with nothing written. Each row carries
`hash = sha256(prev_hash + canonical content)`, a per-run chain. `read` is the one way rows come
out, and it checks them (`store.verification`: incrementally, plus the keyed head of
`store.keyed` when a key is configured); `verify` walks the whole chain. Transient database errors
are retried with backoff (`store.retry`). A branch stores only its own rows: its history starts
with its parent's, read where they are (`store.lineage`), and every read follows that pointer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import IntegrityError as SAIntegrityError

from store import batches, blob_users, lineage, requests
from store.backends import backend_for, create_tables
from store.crashpoints import crashpoint
from store.errors import ConcurrencyError, StoreError, UnknownRunError
from store.events import Event
from store.import_check import checked_import
from store.keyed import ChainKey, Head, signed_marks
from store.log_reads import ReadsAndChecks, warn_retry
from store.prefix_record import PrefixRecord
from store.retry import RetryPolicy, with_retries
from store.rows import COLUMNS, EVENTS_TABLE, EventRow, RunSummary, StoredEvent
from store.run_ids import check_run_id
from store.verification import (
    GENESIS_HASH,
    VERIFIED_TABLE,
    ChainBroken,
    VerifyReport,
    canonical_json,
    chain_hash,
)

_log = logging.getLogger("rlvr.store")

__all__ = [
    "GENESIS_HASH",
    "EventLog",
    "EventRow",
    "RunSummary",
    "StoredEvent",
    "VerifyReport",
    "canonical_json",
    "chain_hash",
]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class EventLog(ReadsAndChecks):
    """A store of many runs' logs. `url`: a path / `sqlite:///...` file or `postgresql://...`."""

    def __init__(self, url: str | Path, retry: RetryPolicy | None = None) -> None:
        self.backend = backend_for(url)
        self.url = self.backend.url
        self.target = str(url)  # as given: a path reopens as itself, not through its URL's decoding
        self.retry = retry or RetryPolicy()
        self.key = ChainKey.from_env()  # the keyed chain, when RLVR_CHAIN_KEY_FILE names a key
        try:
            self.engine = self.backend.engine()
            # Side tables new in a version (`run_parents`, `run_blob_stores`): creating them is
            # the whole migration (runs without a pointer or a record are read as before).
            tables = [EVENTS_TABLE, VERIFIED_TABLE, batches.TABLE, lineage.TABLE, requests.TABLE]
            create_tables(self.engine, [*tables, blob_users.TABLE])
        except (DBAPIError, ModuleNotFoundError) as e:
            # The driver's own words ("database is locked"), not SQLAlchemy's SQL and web link.
            reason = str(getattr(e, "orig", None) or e).strip().splitlines()[0]
            if self.backend.name == "sqlite" and "locked" in reason:
                reason += f" (another process held it for {self.backend.busy_timeout_s:g} s)"
            raise StoreError(f"cannot open event store {self.url}: {reason}") from e
        mark = self.backend.mark
        self._last_sql = (
            f"SELECT seq, hash FROM events WHERE run_id = {mark} ORDER BY seq DESC LIMIT 1"
        )
        self._select_sql = f"SELECT {', '.join(COLUMNS)} FROM events WHERE run_id = {mark}"
        self._hash_sql = f"SELECT hash FROM events WHERE run_id = {mark} AND seq = {mark}"
        self._link_sql = f"SELECT prev_hash FROM events WHERE run_id = {mark} AND seq = {mark}"
        self._first_sql = (
            f"SELECT seq, prev_hash FROM events WHERE run_id = {mark} ORDER BY seq LIMIT 1"
        )
        marks = ", ".join([mark] * len(COLUMNS))
        self._insert_sql = f"INSERT INTO events ({', '.join(COLUMNS)}) VALUES ({marks})"
        self._prefix = PrefixRecord(mark)
        # Inside `walking_once`: run id -> (first seq, last seq, its hash) of the span walked last.
        self._walked: dict[str, tuple[int, int, str]] | None = None
        # Called with each committed batch (a driver's live metric sinks): views, never the truth.
        self.observers: list[Callable[[list[StoredEvent]], None]] = []

    def close(self) -> None:
        self.engine.dispose()

    # --- writing ---------------------------------------------------------------------------

    def append(
        self,
        run_id: str,
        events: Sequence[Event],
        expected_seq: int,
        batch_ends: Sequence[int] = (),
        *,
        drain_requests: bool = False,
    ) -> list[StoredEvent]:
        """Append `events` after `expected_seq` in one transaction, or raise and write nothing.
        Transient errors are retried; `StoreUnavailable` when the retries run out.
        The append is recorded as one batch (store/batches.py); `batch_ends` (a branch copying its
        parent's history) splits it at those seqs as well. `drain_requests` (a writer holding the
        run's lease): the events other processes queued for the run (store/requests.py) follow
        `events` in the same transaction, which takes them off the queue."""
        if not events and not drain_requests:
            return []
        if expected_seq == 0:
            check_run_id(run_id)  # a new run: its id will name a directory
        # Event fields are JSON-native by contract, so the field dict serialises directly
        # (model_dump would first copy every nested list and dict).
        encoded = [(e.type_name(), e.schema_version, canonical_json(vars(e))) for e in events]
        tried: list[list[StoredEvent]] = []  # each attempt's rows: a lost reply may hide a commit

        def attempt() -> list[StoredEvent]:
            with self.engine.begin() as conn:
                last_seq, prev = self._last(conn, run_id)
                if last_seq != expected_seq:
                    landed = next((r for r in tried if r[-1].hash == prev), None)
                    if landed is not None and landed[-1].seq == last_seq:
                        return landed  # the connection died after our commit went through
                    raise ConcurrencyError(
                        f"run {run_id}: expected last seq {expected_seq}, the log is at {last_seq}: "
                        "another process appended to it first"
                    )
                queued = requests.take(conn, run_id, self.key) if drain_requests else []
                both = encoded + [(q.type, q.schema_version, q.payload) for q in queued]
                if not both:
                    return []
                rows = _chained(run_id, last_seq, prev, both)
                tried.append(rows)
                self._write(conn, rows, (last_seq, prev), batch_ends)
                crashpoint("store_transaction")  # rows written, transaction not committed
            return rows

        try:
            rows = with_retries(f"append to run {run_id}", attempt, self.retry, warn_retry)
        except SAIntegrityError as e:
            # Another writer inserted the same (run_id, seq) between our read and our insert.
            raise ConcurrencyError(f"run {run_id}: a concurrent writer appended first") from e
        except DBAPIError as e:
            raise StoreError(f"append to run {run_id} failed: {e.orig}") from e
        if not rows:
            return rows
        if self.key is not None:
            self._promote_head(run_id, rows[-1])
        for observe in self.observers:
            observe(rows)
        return rows

    def _promote_head(self, run_id: str, last: StoredEvent) -> None:
        """Sign the committed batch's last row as the run's head. The batch is committed and its
        pending head (written in the transaction) already vouches for it, so a failure here (a
        full disk) is no failed append: raising made the caller retry or pause one batch behind
        the log (red team round 12). The next append signs again."""
        try:
            self.key.sign(run_id, last.seq, last.hash)  # type: ignore[union-attr]
        except OSError as e:
            _log.warning(
                "run %s: the keyed head was not moved to seq %s (%s); its pending head vouches "
                "for the batch until the next append signs", run_id, last.seq, e,
            )  # fmt: skip

    def _write(
        self, conn, rows: list[StoredEvent], after: tuple[int, str], batch_ends: Sequence[int]
    ) -> None:  # noqa: ANN001 - a SQLAlchemy connection
        """The rows and what records them, in the append's transaction: the batch, the verified
        prefix, a new run's blob-store record and (with a key) the pending head signature."""
        run_id = rows[0].run_id
        self._insert(conn, rows)
        if after[0] == 0:
            blob_users.created(conn, run_id)
        batches.record(
            conn, run_id, batches.split_at(rows[0].seq, rows[-1].seq, batch_ends), self.key
        )
        self._prefix.extend(conn, run_id, after, (rows[-1].seq, rows[-1].hash))
        if self.key is not None:
            self.key.sign(run_id, rows[-1].seq, rows[-1].hash, pending=True)

    def branch(
        self, parent_id: str, child: str, at_seq: int, then: Sequence[Event]
    ) -> list[StoredEvent]:
        """Start run `child` as a branch of `parent_id` at `at_seq`: a pointer (store/lineage.py)
        and the events `then`, chained from the parent's row at `at_seq`, in one transaction. The
        parent's rows are not copied, so this costs the same whatever the parent's length."""
        if not then:
            raise StoreError(f"branch {child}: a branch starts with at least one event of its own")
        check_run_id(child)
        encoded = [(e.type_name(), e.schema_version, canonical_json(vars(e))) for e in then]
        # Checked before the write transaction opens: the check records what it verified, a write
        # that would wait on this transaction's lock.
        self.check_chain(parent_id)
        try:
            with self.engine.begin() as conn:
                if self._last(conn, child)[0]:
                    raise ConcurrencyError(f"run {child} already exists in {self.url}")
                junction = self._hash_at(conn, parent_id, at_seq)
                if junction is None or not 1 <= at_seq <= self._last(conn, parent_id)[0]:
                    raise StoreError(f"run {parent_id} has no seq {at_seq} to branch from")
                rows = _chained(child, at_seq, junction, encoded)
                self._insert(conn, rows)
                lineage.record(conn, child, lineage.Parent(parent_id, at_seq))
                blob_users.inherit(conn, child, parent_id)
                batches.record(conn, child, [(rows[0].seq, rows[-1].seq)], self.key)
                self._prefix.advance(conn, child, rows[-1].seq, rows[-1].hash)
                if self.key is not None:
                    self.key.sign(child, rows[-1].seq, rows[-1].hash, pending=True)
        except SAIntegrityError as e:
            raise ConcurrencyError(f"run {child} was written while it was being created") from e
        except DBAPIError as e:
            raise StoreError(f"branching {parent_id} into {child} failed: {e.orig}") from e
        if self.key is not None:
            self.key.sign(child, rows[-1].seq, rows[-1].hash)
        return rows

    def _insert(self, conn: sa.Connection, rows: list[StoredEvent]) -> None:
        # A plain executemany: the ORM's per-row parameter building costs more than SQLite's insert.
        conn.exec_driver_sql(self._insert_sql, [_row_tuple(r) for r in rows])

    def import_rows(
        self,
        rows: Iterable[StoredEvent],
        batch_ends: Sequence[int] = (),
        *,
        head: Head | None = None,
    ) -> int:
        """Insert already-hashed rows (an export, or another store's run) verbatim, after checking
        their chain and, given the export's `head`, that they end on it (an export cut short does
        not; `store.exports.import_file` requires one). With a key, the head is required, must be
        signed by it, and becomes the imported run's keyed head.
        `batch_ends`: the seqs the export marked as ends of batches; without them the run's
        boundaries are unknown and cuts into it are refused (store/batches.py).
        A branch's export starts with its ancestors' rows (their run ids, their chain): checked as
        exported, then the whole history is chained afresh under the branch's id, a standalone
        run (with a key, its new head is signed)."""
        rows = checked_import(rows, head, self.key, batch_ends)
        if not rows:
            return 0
        batch_ends = signed_marks(batch_ends, head, self.key)
        run_id = rows[-1].run_id
        if self.last_seq(run_id):
            raise StoreError(f"run {run_id} already exists in {self.url}")
        if rows[0].run_id != run_id:
            rows = lineage.rechained(run_id, rows)
            head = self.key.signed(run_id, rows[-1].seq, rows[-1].hash) if self.key else None
        if self.key is not None and head is not None:
            # Pending before the rows (a head it refuses leaves nothing imported), the head once
            # they committed: a kill in between leaves no run (round 28, log 021).
            self.key.adopt(head, pending=True)
        try:
            with self.engine.begin() as conn:
                self._insert(conn, rows)
                self._prefix.advance(conn, run_id, rows[-1].seq, rows[-1].hash)
                if batch_ends:
                    ends = sorted({e for e in batch_ends if e < rows[-1].seq})
                    batches.record(
                        conn, run_id, batches.split_at(rows[0].seq, rows[-1].seq, ends), self.key
                    )
        except SAIntegrityError as e:
            raise ConcurrencyError(f"run {run_id} was written while importing") from e
        if self.key is not None and head is not None:
            self.key.adopt(head)
        return len(rows)

    # --- reading ---------------------------------------------------------------------------

    # Reads, chain checks and verify: store/log_reads.py (ReadsAndChecks).

    def cut_at(self, run_id: str, seq: int) -> batches.Cut:
        """Where a cut (`resume --from`, `branch --at`) at `seq` lands: see store/batches.py.
        In a branch's shared prefix, the parent's boundaries (and the branch point) count.
        The chain first: boundaries read through a forged branch pointer blamed an old log."""
        self.check_chain(run_id)
        with self.engine.connect() as conn:
            spans = lineage.segments(conn, run_id)
            if any(span.last == seq for span in spans):
                return batches.Cut(seq, seq)  # a branch point: the branch's own rows follow it
            return batches.cut_at(conn, lineage.owner_of(spans, seq), seq, self.key)

    def batch_ends(self, run_id: str, to_seq: int | None = None, *, cut: bool = True) -> list[int]:
        """The recorded last seqs of a run's batches (up to `to_seq`), in order; a branch's
        include its ancestors' up to where it was cut, and the cut. `cut`: for a cut, so checked
        as `cut_at` checks them (`CutError`); False: as recorded (an export, a suggestion), less
        those whose MAC does not verify with a key."""
        with self.engine.connect() as conn:
            return lineage.batch_ends(conn, run_id, to_seq, self.key, cut)

    def parent(self, run_id: str) -> lineage.Parent | None:
        """The run and seq a branch points at (None for a run with no pointer)."""
        with self.engine.connect() as conn:
            return lineage.parent_of(conn, run_id)

    def require(self, run_id: str) -> int:
        """The run's last seq; `UnknownRunError` when the store has no such run."""
        last = self.last_seq(run_id)
        if not last and self.key is not None:
            head, pending = self.key.heads(run_id)
            # a pending head alone, no row: the run's first batch never committed (a crash in
            # its first append, round 25, log 023), not a run deleted whole
            if head is not None:
                where = self.key.heads_dir
                parent = self.parent(run_id)  # a branch's own rows start after its cut
                first = parent.seq + 1 if parent is not None and type(parent.seq) is int else 1
                raise ChainBroken(
                    run_id, first, f"the keyed head is at seq {head.seq} but this store "
                    f"has no row of the run (deleted whole, or these heads are another store's: "
                    f"{where})",
                )  # fmt: skip
        if not last:
            known = ", ".join(r.run_id for r in self.runs()[-5:]) or "none"
            raise UnknownRunError(f"no run {run_id!r} in {self.url} (latest runs: {known})")
        return last

    def summary(self, run_id: str) -> RunSummary:
        """One run's summary, read from its own rows only; `UnknownRunError` when absent."""
        last = self.require(run_id)
        try:
            return self._summary(run_id, last)
        except DBAPIError as e:  # a recorded_at that is not UTF-8: named by its seq
            raise self.named_not_utf8(run_id, e) from e

    def _summary(self, run_id: str, last: int) -> RunSummary:
        with self.engine.connect() as conn:
            # A branch's first own seq follows its shared prefix: count that too.
            own, first = conn.execute(
                sa.select(sa.func.count(), sa.func.min(EVENTS_TABLE.c.seq)).where(
                    EVENTS_TABLE.c.run_id == run_id
                )
            ).one()
            n = own + first - 1
            type_name, at = conn.execute(
                sa.select(EVENTS_TABLE.c.type, EVENTS_TABLE.c.recorded_at).where(
                    (EVENTS_TABLE.c.run_id == run_id) & (EVENTS_TABLE.c.seq == last)
                )
            ).one()
        return RunSummary(run_id, n, last, type_name, at)

    def runs(self) -> list[RunSummary]:
        last = (
            sa.select(
                EVENTS_TABLE.c.run_id,
                sa.func.max(EVENTS_TABLE.c.seq).label("last_seq"),
                # a branch's own rows follow its shared prefix: count that too
                (sa.func.count() + sa.func.min(EVENTS_TABLE.c.seq) - 1).label("n"),
            )
            .group_by(EVENTS_TABLE.c.run_id)
            .subquery()
        )
        query = (
            sa.select(
                last.c.run_id,
                last.c.n,
                last.c.last_seq,
                EVENTS_TABLE.c.type,
                EVENTS_TABLE.c.recorded_at,
            )
            .join(
                EVENTS_TABLE,
                (EVENTS_TABLE.c.run_id == last.c.run_id) & (EVENTS_TABLE.c.seq == last.c.last_seq),
            )
            .order_by(EVENTS_TABLE.c.recorded_at)
        )

        def query_runs() -> list[RunSummary]:
            with self.engine.connect() as conn:
                return [RunSummary(*row) for row in conn.execute(query)]

        return with_retries("list runs", query_runs, self.retry, warn_retry)


def _chained(
    run_id: str, last_seq: int, prev: str, encoded: list[tuple[str, int, str]]
) -> list[StoredEvent]:
    rows = []
    at = _now()
    for offset, (type_name, version, payload) in enumerate(encoded, start=1):
        seq = last_seq + offset
        digest = chain_hash(prev, run_id, seq, type_name, version, at, payload)
        rows.append(StoredEvent(run_id, seq, type_name, version, at, prev, digest, payload))
        prev = digest
    return rows


def _row_tuple(stored: StoredEvent) -> tuple:
    return (
        stored.run_id, stored.seq, stored.type, stored.schema_version, stored.recorded_at,
        stored.prev_hash, stored.hash, stored.payload,
    )  # fmt: skip
