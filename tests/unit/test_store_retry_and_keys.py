"""The pure parts of store faults and keys: which errors are transient, how long retries wait,
and keyed heads that only move forward and refuse an edited head file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa

from store.errors import IntegrityError, StoreError
from store.keyed import ChainKey
from store.retry import RetryPolicy, is_transient
from tests.tampering import write_key


def _wrapped(orig: BaseException) -> sa.exc.DBAPIError:
    return sa.exc.OperationalError("SELECT 1", {}, orig)


def _pg(sqlstate: str) -> BaseException:
    """The error psycopg raises for a server reply with this SQLSTATE."""
    return psycopg.errors.lookup(sqlstate)("server says no")


@pytest.mark.parametrize(
    ("orig", "transient"),
    [
        (sqlite3.OperationalError("database is locked"), True),
        (sqlite3.OperationalError("database table is locked"), True),
        (sqlite3.OperationalError("no such table: events"), False),
        (_pg("40001"), True),  # serialization failure
        (_pg("40P01"), True),  # deadlock
        (_pg("55P03"), True),  # lock not available (lock_timeout)
        (_pg("57P01"), True),  # terminated by pg_terminate_backend / shutdown
        (_pg("08006"), True),  # connection failure
        (_pg("42P01"), False),  # undefined table
        (psycopg.OperationalError("the connection is closed"), True),
    ],
)
def test_only_transient_errors_are_retried(orig: BaseException, transient: bool) -> None:
    assert is_transient(_wrapped(orig)) is transient


def test_the_default_retries_ride_out_about_sixteen_seconds() -> None:
    delays = RetryPolicy().delays()
    assert delays == sorted(delays) and 15 <= sum(delays) <= 17


def test_a_keyed_head_only_moves_forward(tmp_path: Path) -> None:
    key = ChainKey(write_key(tmp_path))
    key.sign("r", 5, "a" * 64)
    with pytest.raises(IntegrityError, match="head is at seq 5; refusing to move it back to 4"):
        key.sign("r", 4, "b" * 64)
    assert key.heads("r")[0].seq == 5


def test_an_edited_head_file_or_another_key_is_refused(tmp_path: Path) -> None:
    key = ChainKey(write_key(tmp_path))
    key.sign("r", 5, "a" * 64)
    (path,) = key.heads_dir.iterdir()
    data = json.loads(path.read_text())
    data["head"]["seq"] = 9
    path.write_text(json.dumps(data))
    with pytest.raises(IntegrityError, match="does not match the key"):
        key.heads("r")


def test_a_short_key_is_refused(tmp_path: Path) -> None:
    (tmp_path / "k").write_bytes(b"short")
    with pytest.raises(StoreError, match="5 bytes .needs at least 16"):
        ChainKey(tmp_path / "k")


def test_a_head_not_promoted_after_the_commit_is_no_failed_append(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red team round 12: the disk filled between the commit and the head's promotion; append
    raised although its batch was in the log, and the driver's pause then failed one seq behind.
    The pending head vouches for the batch; the next append signs again."""
    import errno

    from store.events import MetricsRecorded
    from store.keyed import KEY_ENV
    from store.log import EventLog
    from tests.tampering import synthetic_run

    monkeypatch.setenv(KEY_ENV, str(write_key(tmp_path)))
    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, "run-a", steps=2)
    sign, failures = ChainKey.sign, []

    def full_disk_once(self, run_id, seq, hash_, *, pending=False):  # noqa: ANN001, ANN202
        if not pending and not failures:
            failures.append(seq)
            raise OSError(errno.ENOSPC, "No space left on device")
        return sign(self, run_id, seq, hash_, pending=pending)

    monkeypatch.setattr(ChainKey, "sign", full_disk_once)
    rows = log.append("run-a", [MetricsRecorded(step=3, metrics={"kl": 0.1})], 4)
    assert [r.seq for r in rows] == [5] and failures == [5]
    assert [r.seq for r in log.read("run-a")] == [1, 2, 3, 4, 5]  # the pending head vouches
    log.append("run-a", [MetricsRecorded(step=4, metrics={"kl": 0.1})], 5)
    head, _ = log.key.heads("run-a")
    assert head is not None and head.seq == 6
    assert log.verify("run-a").ok
