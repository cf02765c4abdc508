"""Snapshots and the chain key: with a key a snapshot is signed, a forged one is refused naming
its seq, a stale fold version is ignored, and a reader without the key writes none into a keyed
store; without a key a snapshot is tied to the chain against careless edits only."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

import store.snapshots as snapshots_module
from store.events import MetricsRecorded, RunStarted, StateChanged
from store.keyed import KEY_ENV
from store.log import EventLog
from store.projections import project
from store.snapshots import SnapshotRefused, SnapshotRow, Snapshots, fold_run
from tests.tampering import forge_snapshot, write_key

_TABLE = SnapshotRow.__table__


@pytest.fixture(autouse=True)
def _snapshot_often(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshots_module, "SNAPSHOT_EVERY", 10)


def _run(url: Path, steps: int = 30) -> EventLog:
    log = EventLog(url)
    started = RunStarted(config={"seed": 0}, config_hash="h", hyperparameters={"lr": 1e-4})
    moved = StateChanged(trigger="start", source="created", dest="rlvr_optimization")
    log.append("r", [started, moved], 0)
    for step in range(1, steps + 1):
        log.append("r", [MetricsRecorded(step=step, metrics={"kl": 0.01})], log.last_seq("r"))
    return log


def _macs(log: EventLog) -> list[str | None]:
    with log.engine.connect() as conn:
        return list(conn.execute(sa.select(_TABLE.c.mac).order_by(_TABLE.c.seq)).scalars())


@pytest.fixture
def keyed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> EventLog:
    monkeypatch.setenv(KEY_ENV, str(write_key(tmp_path)))
    return _run(tmp_path / "e.db")


def test_with_a_key_a_snapshot_is_signed_and_a_fold_starts_from_it(keyed: EventLog) -> None:
    full = project(keyed.read("r"))
    assert fold_run(keyed, "r") == full
    assert [len(m or "") for m in _macs(keyed)] == [64]
    assert Snapshots(keyed).newest_usable("r") == full


@pytest.mark.parametrize("mac", [None, "0" * 64], ids=["no MAC", "a made-up MAC"])
def test_with_a_key_a_forged_snapshot_is_refused_naming_its_seq(
    keyed: EventLog, mac: str | None
) -> None:
    forge_snapshot(keyed, "r", 20, {"hyperparameters": {"lr": 0.05}}, mac)
    with pytest.raises(SnapshotRefused, match="run r: snapshot at seq 20 refused: ") as e:
        fold_run(keyed, "r")
    assert e.value.seq == 20
    with pytest.raises(SnapshotRefused, match="snapshot at seq 20"):
        fold_run(keyed, "r", to_seq=25)  # resume --from, branch --at: a fold up to a seq
    assert fold_run(keyed, "r", to_seq=19).hyperparameters == {"lr": 1e-4}  # not past it


def test_a_snapshot_signed_for_another_seq_is_refused(keyed: EventLog) -> None:
    fold_run(keyed, "r")  # a signed snapshot at the end (seq 32)
    mac = _macs(keyed)[0]
    forge_snapshot(keyed, "r", 20, {"hyperparameters": {"lr": 0.05}}, mac)  # its MAC copied
    with pytest.raises(SnapshotRefused, match="seq 20 refused: its MAC does not match"):
        fold_run(keyed, "r", to_seq=25)


def test_a_snapshot_of_a_stale_fold_version_is_ignored_not_refused(
    keyed: EventLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    fold_run(keyed, "r")
    monkeypatch.setattr(snapshots_module, "FOLD_KEY", "another-version")
    assert Snapshots(keyed).newest_usable("r") is None
    assert fold_run(keyed, "r") == project(keyed.read("r"))  # refolded from seq 1


def test_a_reader_without_the_key_writes_no_snapshot_into_a_keyed_store(
    keyed: EventLog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Snapshots(keyed)  # a keyed reader marks the store
    monkeypatch.delenv(KEY_ENV)
    unkeyed = EventLog(tmp_path / "e.db")
    assert fold_run(unkeyed, "r") == project(unkeyed.read("r"))
    assert _macs(unkeyed) == []  # it folded from seq 1 and left nothing a keyed fold refuses


def test_without_a_key_a_forged_snapshot_is_used(tmp_path: Path) -> None:
    """The guarantee without a key, as the README states it: careless edits only."""
    log = _run(tmp_path / "e.db")
    forge_snapshot(log, "r", 20, {"hyperparameters": {"lr": 0.05}}, None)
    assert fold_run(log, "r").hyperparameters == {"lr": 0.05}
    fold_run(log, "r")
    with log.engine.begin() as conn:  # a careless edit of the event it is tied to
        conn.execute(sa.text("UPDATE events SET hash = 'x' WHERE seq = 20"))
    assert Snapshots(log).newest_usable("r", to_seq=25) is None
