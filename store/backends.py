"""The two databases an event log can live in, behind one interface.

`backend_for(target)` is the one rule that turns what a user passes (`--store`, `RLVR_STORE`, the
config's `store`) into a database: a file path or `sqlite:///...` is SQLite, `postgresql://...` is
PostgreSQL. Each backend says how to open its engine, how SQL parameters are written, and how to
stream a large result; `EventLog` is written once against that.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy import event as sa_event
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel, create_engine

from store.errors import StoreError


class Backend(ABC):
    """How the event log talks to one kind of database."""

    name: ClassVar[str]
    mark: ClassVar[str]  # the driver's parameter placeholder

    def __init__(self, url: str) -> None:
        self.url = url

    @abstractmethod
    def engine(self) -> sa.Engine:
        """A SQLAlchemy engine for `self.url`, set up for this database."""

    @abstractmethod
    def stream(
        self, conn: sa.Connection, sql: str, params: Sequence[Any], batch: int
    ) -> Iterator[tuple]:
        """Rows of `sql` in batches of `batch`, never the whole result in memory."""

    def local_file(self) -> Path | None:
        """The database file when the store is one on this machine (a reader checks it exists)."""
        return None


class SQLiteBackend(Backend):
    name = "sqlite"
    mark = "?"
    # How long a writer waits for another's lock before SQLite reports "database is locked"
    # (then `store.retry` backs off and tries again).
    busy_timeout_s: ClassVar[float] = 30.0

    def __init__(self, url: str, path: Path | None = None) -> None:
        super().__init__(url)
        # A plain path is opened as written: in a URL, SQLAlchemy decodes `%41` and ends the
        # path at `?`, so `team%41/events.db` opened `teamA/events.db` while the reader checked
        # the file it was given (red team round 28, log 001: "intact" for an edited store).
        self._path = path

    def engine(self) -> sa.Engine:
        from store.sqlite_read_only import may_not_write, read_only_engine

        path = self.local_file()
        if path is not None and may_not_write(path):
            return read_only_engine(path, self.busy_timeout_s, _text_or_bytes)
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:  # a path through a file, a read-only or missing mount
                raise StoreError(
                    f"cannot create the event store {path}: {e.strerror or e} ({e.filename})"
                ) from e
        url = self.url if self._path is None else sa.URL.create("sqlite", database=str(self._path))
        engine = create_engine(url, connect_args={"timeout": self.busy_timeout_s})
        busy_ms = int(self.busy_timeout_s * 1000)
        sa_event.listen(
            engine, "connect", lambda conn, record: _sqlite_on_connect(conn, record, busy_ms)
        )
        sa_event.listen(engine, "begin", _sqlite_on_begin)
        return engine

    def stream(
        self, conn: sa.Connection, sql: str, params: Sequence[Any], batch: int
    ) -> Iterator[tuple]:
        # The driver's own cursor: folding a long run is dominated by per-row cost.
        cursor = conn.connection.driver_connection.cursor()
        done = 0
        try:
            cursor.execute(sql, list(params))
            while rows := cursor.fetchmany(batch):
                done += len(rows)
                yield from rows
        except conn.dialect.loaded_dbapi.Error as e:  # "database is locked": retried
            if not not_utf8(e):
                raise as_dbapi_error(conn, sql, params, e) from e
            yield from lenient_rows(conn, sql, params)[done:]
        finally:
            cursor.close()

    def local_file(self) -> Path | None:
        if self._path is not None:
            return self._path
        path = sa.make_url(self.url).database  # as the engine reads the URL: decoded
        return Path(path) if path and path != ":memory:" else None


class PostgresBackend(Backend):
    name = "postgresql"
    mark = "%s"

    # A lock another session holds (an `ALTER TABLE`, a stuck `LOCK TABLE`) made every reader wait
    # for ever: a wait longer than this is SQLSTATE 55P03, which store/retry.py retries, then one
    # error line. Long enough for any lock this project's own transactions hold.
    lock_timeout_s: ClassVar[float] = 3.0
    # A server that does not answer: psycopg waits for the TCP connect with no limit by default.
    connect_timeout_s: ClassVar[int] = 10

    def engine(self) -> sa.Engine:
        engine = create_engine(
            self.url, pool_pre_ping=True, connect_args={"connect_timeout": self.connect_timeout_s}
        )
        lock_ms = int(self.lock_timeout_s * 1000)
        sa_event.listen(engine, "connect", lambda conn, _record: _set_lock_timeout(conn, lock_ms))
        return engine

    def stream(
        self, conn: sa.Connection, sql: str, params: Sequence[Any], batch: int
    ) -> Iterator[tuple]:
        import psycopg  # the PostgreSQL driver; only a PostgreSQL store needs it

        # The driver's streaming query, `batch` rows a chunk: the server sends rows as it produces
        # them while we fold (a server-side cursor waits a round trip for every batch), and only
        # what the socket holds plus one chunk is in memory. libpq < 17 streams row by row.
        chunk = batch if psycopg.pq.version() >= 170000 else 1
        cursor = conn.connection.driver_connection.cursor()
        try:
            yield from cursor.stream(sql, tuple(params), size=chunk)
        except psycopg.Error as e:  # as SQLAlchemy would raise it: `store.retry` retries it
            raise as_dbapi_error(conn, sql, params, e) from e
        finally:
            cursor.close()


def not_utf8(error: Exception) -> bool:
    """Whether SQLite refused to hand out a text column holding bytes that are not UTF-8 (put
    there by SQL: the project only writes Python text)."""
    return "Could not decode to UTF-8" in str(error)


def lenient_rows(conn: sa.Connection, sql: str, params: Sequence[Any]) -> list[tuple]:
    """`sql`'s rows again with text that is not UTF-8 read with U+FFFD for its bad bytes. No row
    the project wrote holds such text, so the row read this way fails its own hash and the chain
    walk names its seq (SQLite's error named no row and, printed, showed the SQL; red team round
    18). Only on that failure path: a text factory in Python on every read would slow the fold."""
    raw = conn.connection.driver_connection
    before = raw.text_factory
    raw.text_factory = lambda data: data.decode("utf-8", "replace")
    cursor = raw.cursor()
    try:
        cursor.execute(sql, list(params))
        return cursor.fetchall()
    finally:
        cursor.close()
        raw.text_factory = before


@contextlib.contextmanager
def lenient_text(conn: sa.Connection) -> Iterator[None]:
    """Within: SQLite hands out text that is not UTF-8 with U+FFFD for its bad bytes instead of
    refusing the whole query. For the side tables' small reads (branch pointers, batch boundaries):
    such a value then fails the check that value already has (an unknown run, a MAC that does not
    verify) and is named there, not by SQLite's error and its SQL (red team round 21). PostgreSQL
    stores no such text: a no-op there."""
    if conn.dialect.name != "sqlite":
        yield
        return
    raw = conn.connection.driver_connection
    before = raw.text_factory
    raw.text_factory = lambda data: data.decode("utf-8", "replace")
    try:
        yield
    finally:
        raw.text_factory = before


_TEXT_COLUMNS = ("type", "recorded_at", "prev_hash", "hash", "payload")


def first_not_utf8(conn: sa.Connection, run_id: str) -> tuple[Any, str] | None:
    """The first row of `run_id` (seq, column) whose text is not UTF-8, read as bytes: for a
    query SQLite refused (the last row's hash, a summary's recorded_at) to be named by its seq.
    None elsewhere (PostgreSQL stores no such text) or when every row decodes."""
    if conn.dialect.name != "sqlite":
        return None
    values = ", ".join(f"CAST({column} AS BLOB)" for column in _TEXT_COLUMNS)
    sql = f"SELECT seq, {values} FROM events WHERE run_id = ? ORDER BY seq"
    for seq, *texts in conn.exec_driver_sql(sql, (run_id,)):
        for column, text in zip(_TEXT_COLUMNS, texts, strict=True):
            try:
                if isinstance(text, bytes):
                    text.decode("utf-8")
            except UnicodeDecodeError:
                return seq, column
    return None


def as_dbapi_error(conn: sa.Connection, sql: str, params: Sequence[Any], error: Exception):
    """A driver's own error from a raw cursor, as SQLAlchemy would raise it (a `DBAPIError` that
    `store.retry` can call transient), the connection dropped from the pool when it is gone (red
    team round 16: a PostgreSQL backend terminated mid-read raised psycopg's AdminShutdown past
    the retries). The dialect is shown the driver's connection: psycopg's answer rests on whether
    that is closed or broken (asked of no connection, it never says disconnected)."""
    dialect = conn.dialect
    raw = None if conn.invalidated else conn.connection.dbapi_connection
    gone = dialect.is_disconnect(error, raw, None)
    if gone:
        conn.invalidate()
    return sa.exc.DBAPIError.instance(
        sql, params, error, dialect.loaded_dbapi.Error, connection_invalidated=gone
    )


def backend_for(target: str | Path) -> Backend:
    """The backend for a store path or URL; nothing is opened or created yet."""
    target = str(target)
    if target.startswith("postgresql://"):
        return PostgresBackend("postgresql+psycopg://" + target.removeprefix("postgresql://"))
    if target.startswith("postgresql+psycopg://"):
        return PostgresBackend(target)
    if target.startswith("sqlite:"):
        return SQLiteBackend(target)
    if "://" in target:
        raise StoreError(
            f"unsupported event store {target!r}: use a SQLite path or a postgresql:// URL"
        )
    return SQLiteBackend(f"sqlite:///{target}", path=Path(target))


def _sqlite_on_connect(dbapi_conn: Any, _record: Any, busy_ms: int) -> None:
    # Let SQLAlchemy's "begin" hook issue BEGIN IMMEDIATE itself (pysqlite would defer it).
    dbapi_conn.isolation_level = None
    cursor = dbapi_conn.cursor()
    # Larger pages suit ~1 KB rows (only takes effect when the file is created).
    cursor.execute("PRAGMA page_size=16384")
    cursor.execute("PRAGMA journal_mode=WAL")
    # WAL + NORMAL survives a killed process; only a power cut may lose the last commits.
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
    cursor.close()
    dbapi_conn.text_factory = _text_or_bytes


def _text_or_bytes(raw: bytes) -> str | bytes:
    """SQLite TEXT as str; text that is not UTF-8 (a row written by hand: `CAST(X'FF' AS
    TEXT)`) as the bytes it holds, which every reader refuses as a value that is not text, naming
    its row and table, as it refuses a BLOB there. sqlite3's own decoding raised 'Could not
    decode' out of the whole read: one such side-table row hid every run (round 26, log 001)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw


def _sqlite_on_begin(conn: Any) -> None:
    # IMMEDIATE takes the write lock up front, so two writers serialise instead of deadlocking.
    conn.exec_driver_sql("BEGIN IMMEDIATE")


def _set_lock_timeout(dbapi_conn: Any, lock_ms: int) -> None:
    """The session's lock_timeout, committed (a SET in a transaction rolled back is undone)."""
    cursor = dbapi_conn.cursor()
    try:
        cursor.execute(f"SET lock_timeout = {int(lock_ms)}")
    finally:
        cursor.close()
    dbapi_conn.commit()


# duplicate table, duplicate object, unique violation (on the catalog's pg_type index)
_CREATED_BY_ANOTHER = {"42P07", "42710", "23505"}


def create_tables(engine: sa.Engine, tables: Sequence[sa.Table]) -> None:
    """Create the missing `tables`. Two processes opening a fresh PostgreSQL database at once
    both see a table missing and both create it: the loser's CREATE fails on the catalog's
    unique index. That table then exists, so another pass (which checks first) goes further."""
    for attempt in range(5):  # a pass that lost a race left that table created by the winner
        try:
            SQLModel.metadata.create_all(engine, tables=list(tables))
            for table in tables:
                add_mac_column(engine, table)
            _require_columns(engine, tables)
            return
        except DBAPIError as e:
            # Only a lost creation race is tried again: a locked or unreachable store is the
            # caller's to report (retrying here multiplied SQLite's 30 s lock wait by five).
            if attempt == 4 or getattr(e.orig, "sqlstate", None) not in _CREATED_BY_ANOTHER:
                raise


def created_or_missing(engine: sa.Engine, tables: Sequence[sa.Table]) -> bool:
    """Create the missing `tables`; True when one is missing and cannot be created (a read-only
    store, a hot standby of a store written before it: its reader then sees no rows of them, as
    of a table nobody wrote yet), the store's own error when they are there or unreadable."""
    try:
        create_tables(engine, tables)
        return False
    except DBAPIError:
        if any(table_missing(engine, table.name) for table in tables):
            return True
        raise


def table_missing(engine: sa.Engine, table: str) -> bool:
    """Whether the store has no `table` (False when even that cannot be read: the store's own
    error is then the one reported)."""
    try:
        return not sa.inspect(engine).has_table(table)
    except DBAPIError:
        return False


def _require_columns(engine: sa.Engine, tables: Sequence[sa.Table]) -> None:
    """A table of ours that another program created (`events(a int)` in a file passed as
    --store) is a `StoreError` naming what it holds, not an SQL error at the first query."""
    inspector = sa.inspect(engine)
    for table in tables:
        found = [c["name"] for c in inspector.get_columns(table.name, schema=table.schema)]
        missing = [c.name for c in table.columns if c.name not in found]
        if missing:
            where = (
                engine.url.database
                if engine.url.get_backend_name() == "sqlite"
                else (engine.url.render_as_string(hide_password=True))
            )
            raise StoreError(
                f"{where} is not an rlvr event store (table {table.name} has columns "
                f"{', '.join(found) or 'none'}; missing {', '.join(missing)})"
            )


def add_mac_column(engine: sa.Engine, table: sa.Table) -> None:
    """A side table made before it had a `mac` column (store/requests.py, store/batches.py): add
    it, NULL in the older rows (which a keyed reader refuses, as any row it cannot check). Only
    to a table that has every other column of ours: another program's is `_require_columns`'s."""

    def found() -> set[str]:
        return {c["name"] for c in sa.inspect(engine).get_columns(table.name, schema=table.schema)}

    if "mac" not in table.columns or {c.name for c in table.columns} - found() != {"mac"}:
        return
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(f"ALTER TABLE {table.name} ADD COLUMN mac VARCHAR(100)"))
    except DBAPIError:
        if "mac" not in found():  # else another process added it first
            raise
