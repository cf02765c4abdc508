"""Real store faults for the retry tests: PostgreSQL connections of this test killed with
`pg_terminate_backend` (found by their `application_name` tag, so other users of the shared
database are never touched), and SQLite's write lock held by a second connection."""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

from store.log import EventLog


def tagged(postgres_url: str) -> tuple[str, str]:
    """`postgres_url` with a unique `application_name`, and that name."""
    tag = f"rlvr-test-{uuid.uuid4().hex[:10]}"
    joiner = "&" if "?" in postgres_url else "?"
    return f"{postgres_url}{joiner}application_name={tag}", tag


def terminate_tagged(postgres_url: str, tag: str) -> int:
    """Kill every backend whose application_name is `tag` and wait until they are gone."""
    engine = sa.create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://", 1))
    query = "SELECT pid FROM pg_stat_activity WHERE application_name = :tag"
    try:
        with engine.connect() as conn:
            pids = [row[0] for row in conn.execute(sa.text(query), {"tag": tag})]
            for pid in pids:
                conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            for _ in range(200):
                conn.commit()  # pg_stat_activity is a snapshot per transaction
                if not conn.execute(sa.text(query), {"tag": tag}).first():
                    break
                time.sleep(0.01)
    finally:
        engine.dispose()
    return len(pids)


@contextmanager
def failing_inserts(log: EventLog, times: int, fault: Callable[[], None]) -> Iterator[list[int]]:
    """Call `fault` just before each of the next `times` inserts into `events`, inside the append's
    transaction. Yields the list of faults done so far (its length)."""
    done: list[int] = []

    def before(conn, cursor, statement, parameters, context, executemany) -> None:
        if statement.startswith("INSERT INTO events") and len(done) < times:
            done.append(1)
            fault()

    sa.event.listen(log.engine, "before_cursor_execute", before)
    try:
        yield done
    finally:
        sa.event.remove(log.engine, "before_cursor_execute", before)


def sqlite_locked() -> None:
    """What SQLite reports when another writer holds the lock past the busy timeout."""
    raise sa.exc.OperationalError(
        "INSERT INTO events", {}, sqlite3.OperationalError("database is locked")
    )


@contextmanager
def sqlite_write_lock(path: str, hold_s: float | None = None) -> Iterator[None]:
    """A second connection holding SQLite's write lock (for `hold_s`, or until the block ends)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("BEGIN IMMEDIATE")
    released = False

    def release() -> None:
        nonlocal released
        if not released:
            released = True
            conn.execute("ROLLBACK")
            conn.close()

    timer = None
    if hold_s is not None:
        timer = threading.Timer(hold_s, release)
        timer.start()
    try:
        yield
    finally:
        if timer is not None:
            timer.join()
        release()


@contextmanager
def small_tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A real tmpfs of `size` mounted at `folder` (made here), unmounted after. Mounting needs
    root: elsewhere the test skips, but under CI (root) not getting one fails it."""
    import os
    import subprocess

    import pytest

    folder.mkdir()
    problem = "mounting a small tmpfs needs root" if os.geteuid() != 0 else ""
    if not problem:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                              capture_output=True, text=True)  # fmt: skip
        problem = done.stderr.strip() if done.returncode else ""
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"CI must exercise a real full disk: {problem}")
        pytest.skip(f"{problem}: the real full-disk path is not exercised here")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
