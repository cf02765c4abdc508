"""Snapshots and the chain key: with a key a snapshot is signed, a forged one is refused naming
its seq, a stale fold version is ignored, and a reader without the key writes none into a keyed
store; without a key a snapshot is tied to the chain against careless edits only."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import sqlalchemy as sa

import store.snapshots as snapshots_module
from store.errors import IntegrityError
from store.events import MetricsRecorded, RunStarted, StateChanged
from store.keyed import KEY_ENV
from store.log import EventLog
from store.projections import project
from store.snapshots import SnapshotRefused, SnapshotRow, Snapshots, StoreMark, fold_run
from tests.tampering import forge_chain, forge_snapshot, write_key

_TABLE = SnapshotRow.__table__


@pytest.fixture(autouse=True)
def _snapshot_often(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshots_module, "SNAPSHOT_EVERY", 10)


def _run(url: str, run: str, steps: int = 30) -> EventLog:
    log = EventLog(url)
    started = RunStarted(config={"seed": 0}, config_hash="h", hyperparameters={"lr": 1e-4})
    moved = StateChanged(trigger="start", source="created", dest="rlvr_optimization")
    log.append(run, [started, moved], 0)
    for step in range(1, steps + 1):
        log.append(run, [MetricsRecorded(step=step, metrics={"kl": 0.01})], log.last_seq(run))
    return log


def _macs(log: EventLog, run: str) -> list[str | None]:
    query = sa.select(_TABLE.c.mac).where(_TABLE.c.run_id == run).order_by(_TABLE.c.seq)
    with log.engine.connect() as conn:
        return list(conn.execute(query).scalars())


@pytest.fixture
def keyed(
    store_url: str, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store_marks_lock
):
    monkeypatch.setenv(KEY_ENV, str(write_key(tmp_path)))
    log = _run(store_url, run_id)
    yield log
    with log.engine.begin() as conn:  # a shared PostgreSQL test database stays unmarked
        conn.execute(sa.delete(StoreMark.__table__))
    log.close()


def test_with_a_key_a_snapshot_is_signed_and_a_fold_starts_from_it(
    keyed: EventLog, run_id: str
) -> None:
    full = project(keyed.read(run_id))
    assert fold_run(keyed, run_id) == full
    assert [len(m or "") for m in _macs(keyed, run_id)] == [64]
    assert Snapshots(keyed).newest_usable(run_id) == full


# a MAC that is not ASCII made hmac.compare_digest raise TypeError: a crash naming no seq
# (red team round 15)
@pytest.mark.parametrize(
    "mac", [None, "0" * 64, "\u00e9" * 64], ids=["no MAC", "a made-up MAC", "a non-ASCII MAC"]
)
def test_with_a_key_a_forged_snapshot_is_refused_naming_its_seq(
    keyed: EventLog, run_id: str, mac: str | None
) -> None:
    forge_snapshot(keyed, run_id, 20, {"hyperparameters": {"lr": 0.05}}, mac)
    with pytest.raises(SnapshotRefused, match=f"run {run_id}: snapshot at seq 20 refused: ") as e:
        fold_run(keyed, run_id)
    assert e.value.seq == 20
    with pytest.raises(SnapshotRefused, match="snapshot at seq 20"):
        fold_run(keyed, run_id, to_seq=25)  # resume --from, branch --at: a fold up to a seq
    assert fold_run(keyed, run_id, to_seq=19).hyperparameters == {"lr": 1e-4}  # not past it


def test_a_snapshot_signed_for_another_seq_is_refused(keyed: EventLog, run_id: str) -> None:
    fold_run(keyed, run_id)  # a signed snapshot at the end (seq 32)
    mac = _macs(keyed, run_id)[0]
    forge_snapshot(keyed, run_id, 20, {"hyperparameters": {"lr": 0.05}}, mac)  # its MAC copied
    with pytest.raises(SnapshotRefused, match="seq 20 refused: its MAC does not match"):
        fold_run(keyed, run_id, to_seq=25)


def test_a_snapshot_of_a_stale_fold_version_is_ignored_not_refused(
    keyed: EventLog, run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fold_run(keyed, run_id)
    monkeypatch.setattr(snapshots_module, "FOLD_KEY", "another-version")
    assert Snapshots(keyed).newest_usable(run_id) is None
    assert fold_run(keyed, run_id) == project(keyed.read(run_id))  # refolded from seq 1


def test_a_reader_without_the_key_writes_no_snapshot_into_a_keyed_store(
    keyed: EventLog, run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    Snapshots(keyed)  # a keyed reader marks the store
    monkeypatch.delenv(KEY_ENV)
    unkeyed = EventLog(keyed.url)
    assert fold_run(unkeyed, run_id) == project(unkeyed.read(run_id))
    assert (
        _macs(unkeyed, run_id) == []
    )  # it folded from seq 1 and left nothing a keyed fold refuses


def test_without_a_key_a_forged_snapshot_is_used(store_url: str, run_id: str) -> None:
    """The guarantee without a key, as the README states it: careless edits only."""
    log = _run(store_url, run_id)
    forge_snapshot(log, run_id, 20, {"hyperparameters": {"lr": 0.05}}, None)
    assert fold_run(log, run_id).hyperparameters == {"lr": 0.05}
    assert log.verify(run_id).ok  # the events are intact: nothing there to see
    fold_run(log, run_id)
    with log.engine.begin() as conn:  # a careless edit of the event it is tied to
        conn.execute(
            sa.text("UPDATE events SET hash = 'x' WHERE run_id = :r AND seq = 20"), {"r": run_id}
        )
    assert Snapshots(log).newest_usable(run_id, to_seq=25) is None


def test_snapshots_written_before_they_were_signed_are_not_read(
    store_url: str, run_id: str
) -> None:
    log = _run(store_url, run_id)
    event_hash = next(log.read(run_id, from_seq=20)).hash
    with log.engine.begin() as conn:  # the unsigned table of earlier versions, with a forgery
        conn.execute(sa.text(
            "CREATE TABLE IF NOT EXISTS run_snapshots (run_id VARCHAR(200), seq INTEGER, "
            "event_hash VARCHAR(64), fold_key VARCHAR(16), state TEXT)"
        ))  # fmt: skip
        conn.execute(
            sa.text("INSERT INTO run_snapshots VALUES (:r, 20, :h, :k, '{}')"),
            {"r": run_id, "h": event_hash, "k": snapshots_module.FOLD_KEY},
        )  # fmt: skip
    assert Snapshots(log).newest_usable(run_id) is None
    assert fold_run(log, run_id) == project(log.read(run_id))


# Red team round 15 (log 031/033/035): an unsigned snapshot holding a verify rate or a gate value
# as text was folded from, and `status` then crashed formatting it in the last-resort handler.
@pytest.mark.parametrize(
    "change",
    [
        {"baseline_verify_rate": "0.99"},
        {"gates": {"g": {"gate": "g", "stage": "s", "metric": "m", "value": "0.9",
                         "threshold": 0.5, "comparator": ">=", "passed": True, "seq": 3}}},
        {"last_metrics": {"kl": "0.01"}},
        {"decisions": {"rollback:rollback": "2"}},
    ],
    ids=["verify rate as text", "gate value as text", "metric as text", "count as text"],
)  # fmt: skip
def test_without_a_key_a_snapshot_of_the_wrong_types_is_skipped(
    store_url: str, run_id: str, change: dict
) -> None:
    log = _run(store_url, run_id)
    forge_snapshot(log, run_id, 20, change, None)
    assert Snapshots(log).newest_usable(run_id) is None  # refused by its shape, with a warning
    assert fold_run(log, run_id) == project(log.read(run_id))


# Red team round 15 (log 011): an unsigned snapshot the next rows cannot follow made the fold blame
# the row after it, which is intact; the fold now reads the events, and a real fault in them is
# named by its own seq. (A handler that trips over the forged state stands in for any such state.)
def test_without_a_key_a_snapshot_the_rows_cannot_follow_is_not_blamed_on_them(
    store_url: str, run_id: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import store.projections as projections

    log = _run(store_url, run_id)
    metrics = projections._HANDLERS["MetricsRecorded"]

    def trips_on_the_forgery(state, stored) -> None:
        if state.hyperparameters.get("lr") == 0.05:
            raise TypeError("a state no fold wrote")
        metrics(state, stored)

    monkeypatch.setitem(projections._HANDLERS, "MetricsRecorded", trips_on_the_forgery)
    forge_snapshot(log, run_id, 20, {"hyperparameters": {"lr": 0.05}}, None)
    with caplog.at_level(logging.WARNING, logger="rlvr.store"):
        assert fold_run(log, run_id) == project(log.read(run_id))
    assert "do not fold onto it" in caplog.text  # the snapshot was the fault: said once
    caplog.clear()
    forge_chain(log, run_id, 25, {"metrics": {"kl": "high"}})  # a real fault, its chain intact
    with (
        caplog.at_level(logging.WARNING, logger="rlvr.store"),
        pytest.raises(IntegrityError, match="seq 25"),
    ):
        fold_run(log, run_id)
    # The refusal is the one line (round 22, log 013): no warning about the snapshot before it.
    assert "do not fold onto it" not in caplog.text
