"""`rlvr rescore` (issue 31 item 3) on runs of the real RL loop (a tiny untrained model, 4 steps
of 4 groups of 4, a checkpoint every 2 steps) whose verdicts a silent fault corrupted from step 2:
re-verifying the logged rollouts names step 2, the share mis-scored, the checkpoint before it and
the branch command; the record goes into the run's log and changes nothing of its fold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.errors import OrchestratorError
from orchestrator.rescore.rescore import check_data, rescore_config
from store.log import EventLog
from store.projections import RunState
from store.snapshots import fold_run
from tests.cli_runner import rlvr
from tests.unit.stages.test_stage_verdict_corruption import _run

FLIP_FROM_2 = "{kind='verdict_corruption', step=2, mode='flip', silent=true}"


def _rescore(capsys, tmp_path: Path, run_id: str, *args: str):
    return rlvr(capsys, "rescore", run_id, *args, "--store", str(tmp_path / "events.db"))


def test_rescore_names_the_first_corrupted_step_the_checkpoint_before_it_and_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log, run_id = _run(tmp_path, monkeypatch, FLIP_FROM_2)
    before = fold_run(log, run_id)
    done = _rescore(capsys, tmp_path, run_id)
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert any(line.startswith("step 2 (seq ") and "16 pass->fail" in line for line in lines)
    assert not any(line.startswith(("step 0 ", "step 1 ")) for line in lines)
    assert "2 of 4 steps unchanged" in done.out
    assert "first step whose rewards differ: step 2" in done.out
    assert "32 of 32 rewards were mis-scored (100.0%)" in done.out
    assert "last retained checkpoint before it: step 2 (" in done.out
    command = next(line for line in lines if line.startswith("retrain from there: "))
    checkpoint = next(r for r in log.read(run_id, types=["CheckpointSaved"]) if r.event.step == 2)
    cut = next(e for e in log.batch_ends(run_id) if e >= checkpoint.seq)
    assert command == (
        f"retrain from there: rlvr branch {run_id} --at {cut} --store {tmp_path / 'events.db'}"
    )
    assert f"recorded in run {run_id}'s log" in done.err
    # An audit record: in the log, nothing of the fold changed but its position.
    record = next(log.read(run_id, types=["RunRescored"])).event
    assert (record.first_step, record.changed, record.rollouts) == (2, 32, 64)
    after = fold_run(log, run_id)
    assert (after.step, after.checkpoints, after.hyperparameters) == (
        before.step, before.checkpoints, before.hyperparameters,
    )  # fmt: skip
    why = rlvr(capsys, "why", run_id, "--store", str(tmp_path / "events.db"))
    assert why.code == 0 and "first step whose rewards differ: step 2" in why.out
    as_json = rlvr(capsys, "why", run_id, "--json", "--store", str(tmp_path / "events.db"))
    assert json.loads(as_json.out)["rescores"][0]["first_step"] == 2


def test_a_partial_corruption_is_measured_as_its_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fault = "{kind='verdict_corruption', step=1, mode='flip', share=0.5, silent=true}"
    log, run_id = _run(tmp_path, monkeypatch, fault)
    flipped = sum(x == 1.0 for r in log.read(run_id, types=["RolloutsSampled"])
                  for row in r.event.rewards for x in row)  # fmt: skip
    done = _rescore(capsys, tmp_path, run_id, "--from", "1")
    assert done.code == 0, done.err
    assert "first step whose rewards differ: step 1" in done.out
    record = next(log.read(run_id, types=["RunRescored"])).event
    assert record.changed == record.to_fail == flipped and 0 < flipped < 48
    assert record.rollouts_since_first == 48


def test_an_uncorrupted_run_rescores_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log, run_id = _run(tmp_path, monkeypatch, "{kind='learning_rate', step=99, value=1e-4}")
    done = _rescore(capsys, tmp_path, run_id)
    assert done.code == 0, done.err
    assert "no reward differs from the log" in done.out and "retrain" not in done.out


def test_a_from_seq_outside_the_run_is_one_line_naming_its_seqs_and_nothing_is_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Red team round 24 (log 009): `--from -1` reached the RunRescored model and the refusal was
    pydantic's dump, naming neither --from nor the run's seqs; `--from 99999` recorded a rescore
    of nothing."""
    log, run_id = _run(tmp_path, monkeypatch, "{kind='learning_rate', step=99, value=1e-4}")
    last = log.last_seq(run_id)
    for bad in ("-1", "0", str(last + 1)):
        refused = _rescore(capsys, tmp_path, run_id, "--from", bad)
        assert refused.code == 2, refused.err
        assert refused.error_lines == [f"error: --from {bad}: run {run_id} has seqs 1..{last}"]
    assert log.last_seq(run_id) == last


def test_rescore_refuses_a_task_file_that_changed(tmp_path: Path) -> None:
    data = tmp_path / "tasks.jsonl"
    data.write_text('{"task_id": "a", "prompt": "1+1=", "answer": "2"}\n')
    state = RunState(
        run_id="r", config={"data": {"task_family": "math", "data_path": str(data)}},
        data_digest="0" * 64,
    )  # fmt: skip
    config = rescore_config(state, [])
    with pytest.raises(OrchestratorError, match="changed since run r read it"):
        check_data(state, config)
    data.unlink()
    with pytest.raises(OrchestratorError, match="no such file"):
        check_data(state, config)


def test_rescore_with_a_judge_says_how_many_calls_and_needs_a_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log, run_id = _run(tmp_path, monkeypatch, FLIP_FROM_2)
    # The arithmetic tasks have no rubrics: one judge call per rollout, 4 steps x 16.
    judged = _rescore(capsys, tmp_path, run_id, "verifier={kind='rubric', judge_model='judge-7b'}")
    assert judged.code == 2
    assert "makes 64 judge calls" in judged.err and "--max-judge-calls" in judged.err
    assert not list(EventLog(tmp_path / "events.db").read(run_id, types=["RunRescored"]))
