"""The append-only event log on sqlmodel, written once over `store.backends`: SQLite (WAL,
default) or PostgreSQL.

Rows are keyed by `(run_id, seq)`: a writer appends with the `seq` it expects to be last, and a
stale writer gets `ConcurrencyError` with nothing written. Each row carries
`hash = sha256(prev_hash + canonical content)`, a per-run chain that `verify` walks.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import IntegrityError as SAIntegrityError
from sqlmodel import Field, SQLModel

from store import batches
from store.backends import backend_for
from store.crashpoints import crashpoint
from store.errors import ConcurrencyError, StoreError, UnknownRunError
from store.events import Event
from store.upcasters import decode

GENESIS_HASH = "0" * 64


class EventRow(SQLModel, table=True):
    __tablename__ = "events"
    __table_args__ = (sa.Index("ix_events_run_type", "run_id", "type"),)

    run_id: str = Field(primary_key=True, max_length=200)
    seq: int = Field(primary_key=True)
    type: str = Field(max_length=100)
    schema_version: int
    payload: str
    recorded_at: str
    prev_hash: str = Field(max_length=64)
    hash: str = Field(max_length=64)


_TABLE = EventRow.__table__
# StoredEvent's field order, so a selected row unpacks straight into it.
_COLUMNS = [
    "run_id",
    "seq",
    "type",
    "schema_version",
    "recorded_at",
    "prev_hash",
    "hash",
    "payload",
]


def canonical_json(payload: dict[str, Any]) -> str:
    """One text per value: sorted keys, no spaces. (Events refuse NaN/inf at construction.)"""
    try:
        return orjson.dumps(payload, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError as e:
        raise StoreError(f"event payload is not JSON-native: {e}") from e


def chain_hash(
    prev_hash: str, run_id: str, seq: int, type_name: str, version: int, at: str, payload: str
) -> str:
    content = f"{prev_hash}\n{run_id}\n{seq}\n{type_name}\n{version}\n{at}\n{payload}"
    return hashlib.sha256(content.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class StoredEvent:
    run_id: str
    seq: int
    type: str
    schema_version: int
    recorded_at: str
    prev_hash: str
    hash: str
    payload: str

    @property
    def event(self) -> Event:
        """The event as the current code knows it (old versions upcast on read)."""
        return decode(self.type, self.schema_version, orjson.loads(self.payload))

    def to_json(self) -> dict[str, Any]:
        row = {name: getattr(self, name) for name in _COLUMNS}
        row["payload"] = orjson.loads(self.payload)
        return row


@dataclass(frozen=True)
class VerifyReport:
    run_id: str
    n_events: int
    first_bad_seq: int | None
    reason: str

    @property
    def ok(self) -> bool:
        return self.first_bad_seq is None


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    n_events: int
    last_seq: int
    last_type: str
    last_recorded_at: str


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class EventLog:
    """A store of many runs' logs. `url`: a path / `sqlite:///...` file or `postgresql://...`."""

    def __init__(self, url: str | Path) -> None:
        self.backend = backend_for(url)
        self.url = self.backend.url
        try:
            self.engine = self.backend.engine()
            SQLModel.metadata.create_all(self.engine, tables=[_TABLE, batches.TABLE])
        except (DBAPIError, ModuleNotFoundError) as e:
            raise StoreError(f"cannot open event store {self.url}: {e}") from e
        mark = self.backend.mark
        self._last_sql = (
            f"SELECT seq, hash FROM events WHERE run_id = {mark} ORDER BY seq DESC LIMIT 1"
        )
        marks = ", ".join([mark] * len(_COLUMNS))
        self._insert_sql = f"INSERT INTO events ({', '.join(_COLUMNS)}) VALUES ({marks})"
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
    ) -> list[StoredEvent]:
        """Append `events` after `expected_seq` in one transaction, or raise and write nothing.
        The append is recorded as one batch (store/batches.py); `batch_ends` (a branch copying its
        parent's history) splits it at those seqs as well."""
        if not events:
            return []
        # Event fields are JSON-native by contract, so the field dict serialises directly
        # (model_dump would first copy every nested list and dict).
        encoded = [(e.type_name(), e.schema_version, canonical_json(vars(e))) for e in events]
        try:
            with self.engine.begin() as conn:
                last = conn.exec_driver_sql(self._last_sql, (run_id,)).first()
                last_seq, prev = (last[0], last[1]) if last else (0, GENESIS_HASH)
                if last_seq != expected_seq:
                    raise ConcurrencyError(
                        f"run {run_id}: expected last seq {expected_seq}, the log is at {last_seq}"
                    )
                rows = []
                at = _now()
                for offset, (type_name, version, payload) in enumerate(encoded, start=1):
                    seq = last_seq + offset
                    digest = chain_hash(prev, run_id, seq, type_name, version, at, payload)
                    rows.append(
                        StoredEvent(run_id, seq, type_name, version, at, prev, digest, payload)
                    )
                    prev = digest
                self._insert(conn, rows)
                batches.record(conn, run_id, _spans(rows[0].seq, rows[-1].seq, batch_ends))
                crashpoint("store_transaction")  # rows written, transaction not committed
        except SAIntegrityError as e:
            # Another writer inserted the same (run_id, seq) between our read and our insert.
            raise ConcurrencyError(f"run {run_id}: a concurrent writer appended first") from e
        except DBAPIError as e:
            raise StoreError(f"append to run {run_id} failed: {e.orig}") from e
        for observe in self.observers:
            observe(rows)
        return rows

    def _insert(self, conn: sa.Connection, rows: list[StoredEvent]) -> None:
        # A plain executemany: the ORM's per-row parameter building costs more than SQLite's insert.
        conn.exec_driver_sql(self._insert_sql, [_row_tuple(r) for r in rows])

    def import_rows(self, rows: Iterable[StoredEvent], batch_ends: Sequence[int] = ()) -> int:
        """Insert already-hashed rows (from an export) verbatim, after checking their chain.
        `batch_ends`: the seqs the export marked as ends of batches; without them the run's
        boundaries are unknown and cuts into it are refused (store/batches.py)."""
        # Store the canonical text, whatever spacing the export used: the hash covers that form.
        rows = [_canonical_row(r) for r in rows]
        if not rows:
            return 0
        run_ids = {r.run_id for r in rows}
        if len(run_ids) != 1:
            raise StoreError(f"an import holds one run; this one holds {sorted(run_ids)}")
        run_id = rows[0].run_id
        report = verify_rows(run_id, rows)
        if not report.ok:
            raise StoreError(f"import refused: seq {report.first_bad_seq}: {report.reason}")
        if self.last_seq(run_id):
            raise StoreError(f"run {run_id} already exists in {self.url}")
        try:
            with self.engine.begin() as conn:
                self._insert(conn, rows)
                if batch_ends:
                    ends = sorted({e for e in batch_ends if e < rows[-1].seq})
                    batches.record(conn, run_id, _spans(rows[0].seq, rows[-1].seq, ends))
        except SAIntegrityError as e:
            raise ConcurrencyError(f"run {run_id} was written while importing") from e
        return len(rows)

    # --- reading ---------------------------------------------------------------------------

    def last_seq(self, run_id: str) -> int:
        with self.engine.connect() as conn:
            value = conn.execute(
                sa.select(sa.func.max(_TABLE.c.seq)).where(_TABLE.c.run_id == run_id)
            ).scalar()
        return value or 0

    def read(
        self,
        run_id: str,
        from_seq: int = 1,
        types: Iterable[str] | None = None,
        to_seq: int | None = None,
        batch: int = 5000,
    ) -> Iterator[StoredEvent]:
        """Stream a run's events in `seq` order, optionally only some types or up to `to_seq`."""
        mark = self.backend.mark
        sql = f"SELECT {', '.join(_COLUMNS)} FROM events WHERE run_id = {mark} AND seq >= {mark}"
        params: list = [run_id, from_seq]
        if to_seq is not None:
            sql += f" AND seq <= {mark}"
            params.append(to_seq)
        if types is not None:
            types = list(types)
            if not types:
                return
            sql += f" AND type IN ({', '.join([mark] * len(types))})"
            params.extend(types)
        sql += " ORDER BY seq"
        with self.engine.connect() as conn:
            for row in self.backend.stream(conn, sql, params, batch):
                yield StoredEvent(*row)

    def cut_at(self, run_id: str, seq: int) -> batches.Cut:
        """Where a cut (`resume --from`, `branch --at`) at `seq` lands: see store/batches.py."""
        with self.engine.connect() as conn:
            return batches.cut_at(conn, run_id, seq)

    def batch_ends(self, run_id: str, to_seq: int | None = None) -> list[int]:
        """The recorded last seqs of a run's batches (up to `to_seq`), in order."""
        with self.engine.connect() as conn:
            return [last for _, last in batches.spans_of(conn, run_id, to_seq)]

    def require(self, run_id: str) -> int:
        """The run's last seq; `UnknownRunError` when the store has no such run."""
        last = self.last_seq(run_id)
        if not last:
            known = ", ".join(r.run_id for r in self.runs()[-5:]) or "none"
            raise UnknownRunError(f"no run {run_id!r} in {self.url} (latest runs: {known})")
        return last

    def runs(self) -> list[RunSummary]:
        last = (
            sa.select(
                _TABLE.c.run_id,
                sa.func.max(_TABLE.c.seq).label("last_seq"),
                sa.func.count().label("n"),
            )
            .group_by(_TABLE.c.run_id)
            .subquery()
        )
        query = (
            sa.select(last.c.run_id, last.c.n, last.c.last_seq, _TABLE.c.type, _TABLE.c.recorded_at)
            .join(_TABLE, (_TABLE.c.run_id == last.c.run_id) & (_TABLE.c.seq == last.c.last_seq))
            .order_by(_TABLE.c.recorded_at)
        )
        with self.engine.connect() as conn:
            return [RunSummary(*row) for row in conn.execute(query)]

    def verify(self, run_id: str) -> VerifyReport:
        self.require(run_id)
        return verify_rows(run_id, self.read(run_id))


def verify_rows(run_id: str, rows: Iterable[StoredEvent]) -> VerifyReport:
    """Walk the chain: contiguous seqs from 1, each prev_hash the last hash, each hash recomputed."""
    prev, expected, n = GENESIS_HASH, 1, 0
    for row in rows:
        if row.seq != expected:
            return VerifyReport(
                run_id, n, expected, f"seq {expected} is missing (next is {row.seq})"
            )
        if row.prev_hash != prev:
            return VerifyReport(run_id, n, row.seq, "prev_hash does not match the previous event")
        try:
            payload = canonical_json(orjson.loads(row.payload))
        except orjson.JSONDecodeError:
            return VerifyReport(run_id, n, row.seq, "payload is not valid JSON")
        digest = chain_hash(
            prev, run_id, row.seq, row.type, row.schema_version, row.recorded_at, payload
        )
        if digest != row.hash:
            return VerifyReport(run_id, n, row.seq, "content does not match its hash (edited?)")
        prev, expected, n = row.hash, expected + 1, n + 1
    return VerifyReport(run_id, n, None, "ok")


def _spans(first: int, last: int, ends: Sequence[int]) -> list[tuple[int, int]]:
    """Seqs `first..last` cut into (first, last) spans after each of `ends` inside it."""
    spans, start = [], first
    for end in sorted(e for e in ends if first <= e < last):
        spans.append((start, end))
        start = end + 1
    return [*spans, (start, last)]


def _canonical_row(row: StoredEvent) -> StoredEvent:
    try:
        payload = canonical_json(orjson.loads(row.payload))
    except orjson.JSONDecodeError as e:
        raise StoreError(f"seq {row.seq}: payload is not valid JSON") from e
    return StoredEvent(
        row.run_id, row.seq, row.type, row.schema_version, row.recorded_at, row.prev_hash,
        row.hash, payload,
    )  # fmt: skip


def _row_tuple(stored: StoredEvent) -> tuple:
    return (
        stored.run_id, stored.seq, stored.type, stored.schema_version, stored.recorded_at,
        stored.prev_hash, stored.hash, stored.payload,
    )  # fmt: skip
