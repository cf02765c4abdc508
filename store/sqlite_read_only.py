"""A SQLite store this process may read but not write (another user's, a read-only copy): opened
read-only, so every reader reads it as the README says a read-only store is read (the verified
prefix is not recorded, a table it lacks reads as empty). Opened for writing, every command said
`attempt to write a readonly database` (the WAL pragma and BEGIN IMMEDIATE each write), and a
tampered row was never named (red team round 29, log 023)."""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event as sa_event
from sqlmodel import create_engine


def may_not_write(path: Path) -> bool:
    """An existing store this process may not write: its file, or its folder where SQLite must
    create its WAL files beside it (both there and writable, a writer needs no folder access)."""
    if not path.is_file():
        return False
    if not os.access(path, os.W_OK):
        return True
    if os.access(path.parent, os.W_OK):
        return False
    beside = [Path(f"{path}-wal"), Path(f"{path}-shm")]
    return not all(p.is_file() and os.access(p, os.W_OK) for p in beside)


def read_only_engine(path: Path, busy_timeout_s: float, text_factory: Any) -> sa.Engine:
    """An engine reading `path` read-only. With a write-ahead log beside it (a writer has it
    open), SQLite's read-only mode reads its commits; without one the file holds every commit,
    and is read as immutable (SQLite then needs no shared-memory file it could not create)."""
    wal = Path(f"{path}-wal")
    mode = "mode=ro" if wal.is_file() and wal.stat().st_size else "immutable=1"
    uri = f"file:{urllib.parse.quote(str(path.resolve()))}?{mode}"

    def connect() -> sqlite3.Connection:
        return sqlite3.connect(uri, uri=True, timeout=busy_timeout_s, check_same_thread=False)

    engine = create_engine("sqlite://", creator=connect, poolclass=sa.pool.QueuePool)

    def on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # SQLAlchemy's "begin" hook issues BEGIN itself
        dbapi_conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
        dbapi_conn.text_factory = text_factory

    sa_event.listen(engine, "connect", on_connect)
    sa_event.listen(engine, "begin", lambda conn: conn.exec_driver_sql("BEGIN"))  # takes no lock
    return engine
