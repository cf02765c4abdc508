"""Transient store errors are retried with backoff; when the retries run out the caller gets
`StoreUnavailable` and nothing is written. Real faults: PostgreSQL backends of this test killed
with `pg_terminate_backend`, SQLite's write lock held by another connection."""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from store.backends import SQLiteBackend
from store.events import MetricsRecorded, RunStarted
from store.log import EventLog
from store.retry import RetryPolicy, StoreUnavailable
from tests.conftest import POSTGRES_URL
from tests.faults import failing_inserts, sqlite_write_lock, tagged, terminate_tagged

QUICK = RetryPolicy(attempts=4, first_delay_s=0.02, max_delay_s=0.1)


def _batch(step: int) -> list:
    return [MetricsRecorded(step=step, metrics={"i": float(i)}) for i in range(5)]


@pytest.fixture
def postgres() -> tuple[str, str]:
    if not POSTGRES_URL:
        pytest.skip("RLVR_TEST_POSTGRES_URL is not set")
    return tagged(POSTGRES_URL)


def test_postgres_append_survives_its_connection_being_killed_mid_batch(
    postgres: tuple[str, str], run_id: str
) -> None:
    url, tag = postgres
    log = EventLog(url, retry=QUICK)
    log.append(run_id, [RunStarted(config={}, config_hash="x")], expected_seq=0)
    with failing_inserts(log, 2, lambda: terminate_tagged(POSTGRES_URL, tag)) as kills:
        stored = log.append(run_id, _batch(1), expected_seq=1)
    assert len(kills) == 2
    assert [r.seq for r in stored] == [2, 3, 4, 5, 6]
    assert [r.seq for r in log.read(run_id)] == [1, 2, 3, 4, 5, 6]  # the batch once, whole
    assert log.verify(run_id).ok
    log.close()


def test_postgres_append_gives_up_with_nothing_written_when_kills_outlast_the_retries(
    postgres: tuple[str, str], run_id: str
) -> None:
    url, tag = postgres
    log = EventLog(url, retry=QUICK)
    log.append(run_id, [RunStarted(config={}, config_hash="x")], expected_seq=0)
    with (
        failing_inserts(log, QUICK.attempts, lambda: terminate_tagged(POSTGRES_URL, tag)),
        pytest.raises(StoreUnavailable, match=f"append to run {run_id}: .* after 4 attempts"),
    ):
        log.append(run_id, _batch(1), expected_seq=1)
    assert log.last_seq(run_id) == 1
    log.append(run_id, _batch(1), expected_seq=1)  # the store is back: the log goes on
    assert log.verify(run_id).ok
    log.close()


def test_postgres_read_survives_its_connection_being_killed(
    postgres: tuple[str, str], run_id: str
) -> None:
    url, tag = postgres
    log = EventLog(url, retry=QUICK)
    log.append(run_id, [RunStarted(config={}, config_hash="x"), *_batch(1)], expected_seq=0)
    log.last_seq(run_id)  # a pooled connection to kill
    terminate_tagged(POSTGRES_URL, tag)
    assert [r.seq for r in log.read(run_id)] == [1, 2, 3, 4, 5, 6]
    log.close()


def test_postgres_read_killed_mid_stream_resumes_after_the_last_row_it_handed_out(
    postgres: tuple[str, str], run_id: str
) -> None:
    # ~16 MB of rows: more than the socket buffers hold, so the kill lands while the server is
    # still sending (the read streams them, it does not fetch them all first).
    url, tag = postgres
    log = EventLog(url, retry=QUICK)
    wide = {f"m{i:04d}": float(i) for i in range(2000)}
    log.append(run_id, [RunStarted(config={}, config_hash="x")], expected_seq=0)
    for first in range(0, 400, 100):
        batch = [MetricsRecorded(step=s, metrics=wide) for s in range(first, first + 100)]
        log.append(run_id, batch, expected_seq=log.last_seq(run_id))
    rows = log.read(run_id, batch=50)
    seqs = [next(rows).seq]
    assert terminate_tagged(POSTGRES_URL, tag) >= 1  # the streaming connection among them
    seqs += [row.seq for row in rows]
    assert seqs == list(range(1, 402))
    log.close()


@pytest.fixture
def quick_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SQLiteBackend, "busy_timeout_s", 0.05)


def test_sqlite_append_waits_out_another_writers_lock(
    tmp_path: Path, run_id: str, quick_busy_timeout: None
) -> None:
    path = str(tmp_path / "events.db")
    log = EventLog(path, retry=RetryPolicy(attempts=8, first_delay_s=0.05, max_delay_s=0.2))
    log.append(run_id, [RunStarted(config={}, config_hash="x")], expected_seq=0)
    with sqlite_write_lock(path, hold_s=0.4):
        stored = log.append(run_id, _batch(1), expected_seq=1)
    assert [r.seq for r in stored] == [2, 3, 4, 5, 6]
    assert log.verify(run_id).ok


def test_sqlite_append_gives_up_when_the_lock_is_never_released(
    tmp_path: Path, run_id: str, quick_busy_timeout: None
) -> None:
    path = str(tmp_path / "events.db")
    log = EventLog(path, retry=QUICK)
    log.append(run_id, [RunStarted(config={}, config_hash="x")], expected_seq=0)
    with (
        sqlite_write_lock(path),
        pytest.raises(StoreUnavailable, match="after 4 attempts .*database is locked"),
    ):
        log.append(run_id, _batch(1), expected_seq=1)
    assert log.last_seq(run_id) == 1 and log.verify(run_id).ok


class _ReplyLost:
    """The engine, except that the first transaction's commit goes through and its reply is lost
    (as when the connection drops just after COMMIT reached the server)."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        self.lost = False

    def __getattr__(self, name: str):
        return getattr(self.engine, name)

    @contextmanager
    def begin(self):
        with self.engine.begin() as conn:
            yield conn
        if not self.lost:
            self.lost = True
            raise sa.exc.OperationalError(
                "COMMIT", {}, sqlite3.OperationalError("database is locked")
            )


def test_a_batch_whose_commit_reply_was_lost_is_recognised_not_written_twice(
    event_log: EventLog, run_id: str
) -> None:
    event_log.retry = QUICK
    event_log.append(run_id, [RunStarted(config={}, config_hash="x")], expected_seq=0)
    engine = event_log.engine
    event_log.engine = _ReplyLost(engine)
    try:
        stored = event_log.append(run_id, _batch(1), expected_seq=1)
    finally:
        event_log.engine = engine
    assert [r.seq for r in stored] == [2, 3, 4, 5, 6]
    assert [r.seq for r in event_log.read(run_id)] == [1, 2, 3, 4, 5, 6]
    assert event_log.verify(run_id).ok
