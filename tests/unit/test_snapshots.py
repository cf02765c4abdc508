"""RunState snapshots: a fold starts from the newest usable one and ends where a fold from seq 1
ends; a snapshot that a later rewind abandoned, or whose event changed, is not used."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

import store.snapshots as snapshots_module
from store.events import (
    CheckpointSaved,
    EvalRecorded,
    GateEvaluated,
    MetricsRecorded,
    RunRewound,
    RunStarted,
    StateChanged,
)
from store.log import EventLog
from store.projections import project
from store.snapshots import Snapshots, fold_run, state_from_json, state_to_json
from store.verification import ChainBroken


@pytest.fixture(autouse=True)
def _snapshot_often(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshots_module, "SNAPSHOT_EVERY", 10)


def _steps(log: EventLog, run: str, first: int, last: int) -> None:
    for step in range(first, last + 1):
        batch = [MetricsRecorded(step=step, metrics={"kl": 0.01 * step, "reward_mean": 0.5})]
        if step % 4 == 0:
            batch.append(CheckpointSaved(step=step, checkpoint=f"{step:064x}"))
            batch.append(EvalRecorded(step=step, verify_rate=0.5, capability={"reverse": 1.0}))
            batch.append(GateEvaluated(
                gate="capability_retention", stage="evaluation", metric="capability_retention",
                value=1.0, threshold=0.9, comparator=">=", passed=True, judges_checkpoint=True,
            ))  # fmt: skip
        log.append(run, batch, log.last_seq(run))


def _run(tmp_path: Path, steps: int = 30) -> EventLog:
    log = EventLog(tmp_path / "e.db")
    started = RunStarted(config={"seed": 0}, config_hash="h", hyperparameters={"lr": 1e-4})
    moved = StateChanged(trigger="start", source="created", dest="rlvr_optimization")
    log.append("r", [started, moved], 0)
    _steps(log, "r", 1, steps)
    return log


def _reads_from(log: EventLog, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    starts: list[int] = []
    read = log.read

    def recording(run_id, from_seq=1, types=None, to_seq=None, batch=5000):
        if types is None:
            starts.append(from_seq)
        return read(run_id, from_seq=from_seq, types=types, to_seq=to_seq, batch=batch)

    monkeypatch.setattr(log, "read", recording)
    return starts


def test_a_state_survives_its_json_form_unchanged(tmp_path: Path) -> None:
    state = project(_run(tmp_path).read("r"))
    assert state.lineage and state.gates and state.metrics_window and state.early_metrics
    assert state_from_json(state_to_json(state)) == state


def test_a_fold_starts_from_the_newest_snapshot_and_ends_where_a_full_fold_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = _run(tmp_path)
    full = project(log.read("r"))
    assert fold_run(log, "r") == full  # the first fold reads everything and leaves a snapshot
    _steps(log, "r", 31, 33)
    starts = _reads_from(log, monkeypatch)
    assert fold_run(log, "r") == project(EventLog(tmp_path / "e.db").read("r"))
    assert starts == [full.last_seq + 1]  # only the tail after the snapshot was read


def test_a_snapshot_in_a_span_a_later_rewind_abandoned_is_not_used(tmp_path: Path) -> None:
    log = _run(tmp_path)
    fold_run(log, "r")  # a snapshot at the end of the run
    snapshot_seq = log.last_seq("r")
    log.append("r", [RunRewound(to_seq=10, reason="resume --from 10")], snapshot_seq)
    _steps(log, "r", 3, 5)
    expected = project(log.read("r"))  # the in-memory fold re-folds the prefix itself
    assert fold_run(log, "r") == expected
    assert expected.step == 5 and expected.last_seq > snapshot_seq


def test_a_snapshot_whose_event_was_edited_is_not_used(tmp_path: Path) -> None:
    log = _run(tmp_path)
    fold_run(log, "r")
    tampered = project(log.read("r"))
    with log.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE events SET hash = 'x' WHERE seq = :s"), {"s": tampered.last_seq}
        )
    # The snapshot no longer matches its event: not used; the fold from seq 1 refuses the run.
    assert Snapshots(log).newest_usable("r") is None
    with pytest.raises(ChainBroken, match=f"broken at seq {tampered.last_seq}"):
        fold_run(log, "r")


def test_a_fold_up_to_a_seq_uses_no_snapshot_past_it(tmp_path: Path) -> None:
    log = _run(tmp_path)
    fold_run(log, "r")
    assert fold_run(log, "r", to_seq=12) == project(log.read("r", to_seq=12))


def test_the_driver_writes_snapshots_as_it_appends(tmp_path: Path) -> None:
    from orchestrator.config import RunConfig
    from orchestrator.driver.commands import start_run
    from orchestrator.driver.runner import Driver
    from store.blobs import BlobStore
    from tests.scenario.fake_stages import FakeStages

    log = EventLog(tmp_path / "e.db")
    config = RunConfig(log_path=str(tmp_path))
    run_id, _ = start_run(log, config)
    Driver(log, run_id, config, FakeStages().registry(), run_dir=tmp_path / run_id,
           blobs=BlobStore(tmp_path / "b")).run()  # fmt: skip
    newest = Snapshots(log).newest_usable(run_id)
    assert newest is not None and log.last_seq(run_id) - newest.last_seq < 10
    assert newest == project(log.read(run_id, to_seq=newest.last_seq))
