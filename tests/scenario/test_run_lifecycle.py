"""Given stand-in stages, when the driver runs, then the log holds exactly these transitions."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import load_state, start_run, transition
from orchestrator.driver.runner import Driver
from orchestrator.errors import IllegalTransitionError
from store.blobs import BlobStore
from store.log import EventLog
from tests.scenario.fake_stages import FakeStages

FORWARD = [
    ("start", "created", "sft_preparation"),
    ("advance", "sft_preparation", "task_design"),
    ("advance", "task_design", "verification"),
    ("advance", "verification", "data_generation"),
    ("advance", "data_generation", "rlvr_optimization"),
    ("advance", "rlvr_optimization", "iterative_training"),
    ("advance", "iterative_training", "evaluation"),
    ("advance", "evaluation", "completed"),
]


def _drive(tmp_path: Path, stages: FakeStages) -> tuple[EventLog, str]:
    log = EventLog(tmp_path / "events.db")
    config = RunConfig(log_path=str(tmp_path))
    run_id, _ = start_run(log, config)
    driver = Driver(
        log,
        run_id,
        config,
        stages.registry(),
        run_dir=tmp_path / run_id,
        blobs=BlobStore(tmp_path / "blobs"),
    )
    driver.run()
    return log, run_id


def _moves(log: EventLog, run_id: str) -> list[tuple[str, str, str]]:
    return [
        (e.event.trigger, e.event.source, e.event.dest)
        for e in log.read(run_id, types=["StateChanged"])
    ]


def test_a_run_with_passing_gates_goes_through_all_seven_stages_in_order(tmp_path: Path) -> None:
    stages = FakeStages()
    log, run_id = _drive(tmp_path, stages)
    assert _moves(log, run_id) == FORWARD
    state = load_state(log, run_id)
    assert state.state == "completed" and state.finished
    assert [g for g in state.gates] == [
        "baseline_recorded", "verifiability", "false_positive_rate", "coverage", "kl",
        "verify_rate_improving", "capability_retention",
    ]  # fmt: skip
    assert all(g.passed for g in state.gates.values())
    assert log.verify(run_id).ok


def test_every_gate_cites_evidence_events_that_exist(tmp_path: Path) -> None:
    log, run_id = _drive(tmp_path, FakeStages())
    seqs = {e.seq: e for e in log.read(run_id)}
    for gate_row in log.read(run_id, types=["GateEvaluated"]):
        gate = gate_row.event
        assert gate.evidence_seqs, gate.gate
        assert all(s in seqs and s < gate_row.seq for s in gate.evidence_seqs)


def test_a_failing_gate_fails_the_run_with_its_evidence(tmp_path: Path) -> None:
    stages = FakeStages(false_positive_rate=0.2)
    log, run_id = _drive(tmp_path, stages)
    assert _moves(log, run_id)[-1] == ("fail", "verification", "failed")
    assert "data_generation" not in stages.ran
    state = load_state(log, run_id)
    assert state.state == "failed"
    assert "false_positive_rate" in state.failure_reason and "0.2" in state.failure_reason
    failed = next(log.read(run_id, types=["RunFailed"])).event
    gate_seq = state.gates["false_positive_rate"].seq
    assert failed.evidence_seqs == [gate_seq]


def test_a_capability_regression_fails_the_last_gate(tmp_path: Path) -> None:
    log, run_id = _drive(tmp_path, FakeStages(capability_after=0.9))
    state = load_state(log, run_id)
    assert state.state == "failed"
    assert state.gates["capability_retention"].value == pytest.approx(0.9)


def test_a_stage_error_fails_the_run_with_its_reason(tmp_path: Path) -> None:
    log, run_id = _drive(tmp_path, FakeStages(raise_in="task_design"))
    state = load_state(log, run_id)
    assert state.state == "failed" and "unreadable" in state.failure_reason


def test_an_illegal_transition_is_refused_and_appends_nothing(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    run_id, _ = start_run(log, RunConfig())
    transition(log, run_id, "start")
    before = list(log.read(run_id))
    with pytest.raises(
        IllegalTransitionError, match="cannot 'advance' from state 'sft_preparation'"
    ):
        transition(log, run_id, "advance", gate_passed=False)
    with pytest.raises(IllegalTransitionError, match="allowed here"):
        transition(log, run_id, "resume", target="evaluation")
    assert list(log.read(run_id)) == before


def test_pause_and_resume_return_to_the_stage_that_was_paused(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    run_id, _ = start_run(log, RunConfig())
    transition(log, run_id, "start")
    transition(log, run_id, "pause", reason="operator")
    assert load_state(log, run_id).paused_from == "sft_preparation"
    transition(log, run_id, "resume", target="sft_preparation")
    assert load_state(log, run_id).state == "sft_preparation"


def test_a_drive_leaves_no_log_file_of_its_run_behind(tmp_path: Path) -> None:
    """The run directory's `driver.jsonl` is the drive's: once it is over, a later line of this
    process (the console, the next run, a test) goes to that run's file no more. It did, and when
    the run's folder was gone a later run's warning printed a notice about it (round 22)."""
    import logging

    from orchestrator.driver.lifecycle import drive

    log = EventLog(tmp_path / "events.db")
    config = RunConfig(log_path=str(tmp_path))
    run_id, _ = start_run(log, config)
    drive(log, run_id, config, FakeStages().registry())
    written = (tmp_path / run_id / "driver.jsonl").read_text()
    assert written  # the drive logged there
    logging.getLogger("rlvr.runner").warning("a line after the drive")
    assert (tmp_path / run_id / "driver.jsonl").read_text() == written
    assert not [h for h in logging.getLogger().handlers if isinstance(h, logging.FileHandler)]
