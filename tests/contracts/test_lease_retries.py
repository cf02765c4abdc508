"""Taking and dropping a run's lease ride out a transient store error (here SQLite's write lock
held by another connection past the busy timeout, a real fault), as appends do."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from orchestrator.driver.lease import LeaseKeeper
from store.backends import SQLiteBackend
from store.leases import LeaseTable
from store.log import EventLog
from store.retry import RetryPolicy
from tests.faults import sqlite_write_lock


@pytest.fixture
def locked_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[EventLog, str, str]]:
    monkeypatch.setattr(SQLiteBackend, "busy_timeout_s", 0.05)
    path = str(tmp_path / "events.db")
    log = EventLog(path, retry=RetryPolicy(attempts=8, first_delay_s=0.05, max_delay_s=0.2))
    run_id, _ = start_run(log, RunConfig(log_path=str(tmp_path)))
    yield log, run_id, path
    log.close()


def test_taking_the_lease_waits_out_another_writers_lock(
    locked_store: tuple[EventLog, str, str],
) -> None:
    log, run_id, path = locked_store
    keeper = LeaseKeeper(log, run_id, ttl_s=30.0)
    with sqlite_write_lock(path, hold_s=0.4):
        keeper.acquire()  # the lock outlasts the busy timeout: the first tries fail
    try:
        assert LeaseTable(log).get(run_id).owner == keeper.owner
        taken = list(log.read(run_id, types=["LeaseAcquired"]))
        assert [r.event.owner for r in taken] == [keeper.owner]
    finally:
        keeper.release()


def test_dropping_the_lease_waits_out_another_writers_lock(
    locked_store: tuple[EventLog, str, str],
) -> None:
    log, run_id, path = locked_store
    keeper = LeaseKeeper(log, run_id, ttl_s=30.0)
    keeper.acquire()
    with sqlite_write_lock(path, hold_s=0.4):
        keeper.release()
    assert LeaseTable(log).get(run_id) is None  # a resume may start at once, not after the TTL
