"""`rlvr branch` checks what its driver will replay of the parent before it writes a row: a
setting recorded as text (`HyperparametersChanged` lets a string through its schema) or a
training set naming a task the branch's task file does not hold is one `error:` line naming the
setting or `data.data_path` and the parent's seq, and the store holds no branch (they were
refused by the branch's driver, after its rows were written: a branch no driver could run)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver import registry
from orchestrator.driver.commands import start_run, transition
from stages.config import DataConfig
from stages.services import task_suite
from store.events import Event, HyperparametersChanged, TrainingSetBuilt
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages


def _config(tmp_path: Path) -> RunConfig:
    tasks = tmp_path / "tasks.jsonl"
    rows = [{"prompt": f"{n}+1?", "answer": str(n + 1), "difficulty": 1} for n in range(10)]
    tasks.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return RunConfig(
        run_name=f"replay-{uuid.uuid4().hex[:8]}",
        log_path=str(tmp_path / "runs"),
        data=DataConfig(task_family="math", data_path=str(tasks)),
    )


def _parent(store: str, config: RunConfig, rows: list[Event]) -> tuple[str, int]:
    """A run in its first stage with `rows` appended, then paused: its id and the seq of the
    last of `rows` (a batch's end, where the branch is cut)."""
    log = EventLog(store)
    run_id, _ = start_run(log, config)
    transition(log, run_id, "start")
    log.append(run_id, rows, expected_seq=log.last_seq(run_id))
    at = log.last_seq(run_id)
    transition(log, run_id, "pause", reason="test")
    log.close()
    return run_id, at


def _runs(store: str) -> list[str]:
    log = EventLog(store)
    try:
        return sorted(s.run_id for s in log.runs())
    finally:
        log.close()


@pytest.fixture(autouse=True)
def _fake_stages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "product_stages", lambda: FakeStages().registry())


def _training_set(pass_rates: dict[str, float]) -> TrainingSetBuilt:
    return TrainingSetBuilt(
        n_candidates=10, n_kept=len(pass_rates), coverage={"all": 10}, pass_rates=pass_rates
    )


@pytest.mark.parametrize("overrides", [[], ["kl_penalty_coef=0.05"]], ids=["plain", "override"])
def test_a_setting_recorded_as_text_refuses_the_branch_before_it_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], overrides: list[str]
) -> None:
    store = str(tmp_path / "events.db")
    parent, _ = _parent(store, _config(tmp_path), [])
    # appended after the run paused: the fold refuses the row by its seq since red team round 20
    # (store.setting_values), so the writer's own transition would not get past it
    text_rate = HyperparametersChanged(changes={"learning_rate": "0.001"}, reason="test")
    log = EventLog(store)
    log.append(parent, [text_rate], expected_seq=log.last_seq(parent))
    at = log.last_seq(parent)
    log.close()
    result = rlvr(capsys, "branch", parent, "--at", str(at), *overrides, "--store", store)
    assert result.code == 1, (result.out[-2000:], result.err[-2000:])
    assert len(result.error_lines) == 1 and "Traceback" not in result.err, result.err[-3000:]
    line = result.error_lines[0]
    assert line.startswith(f"error: run {parent}: seq {at}: ") and "learning_rate" in line, line
    assert "'0.001'" in line, line
    assert _runs(store) == [parent]


def test_a_training_set_naming_a_task_the_file_lacks_refuses_the_branch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "events.db")
    config = _config(tmp_path)
    known = sorted(task_suite(config).by_id())[:2]
    rows = [_training_set({**dict.fromkeys(known, 0.5), "no-such-task": 0.5})]
    parent, at = _parent(store, config, rows)
    result = rlvr(capsys, "branch", parent, "--at", str(at), "--store", store)
    assert result.code == 2, (result.out[-2000:], result.err[-2000:])
    assert len(result.error_lines) == 1 and "Traceback" not in result.err, result.err[-3000:]
    line = result.error_lines[0]
    assert line.startswith(f"error: data.data_path: the training set of run {parent} at seq {at}")
    assert "'no-such-task'" in line and str(known[0]) not in line, line
    assert _runs(store) == [parent]


def test_a_branch_whose_history_replays_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "events.db")
    config = _config(tmp_path)
    known = sorted(task_suite(config).by_id())[:2]
    rows = [
        _training_set(dict.fromkeys(known, 0.5)),
        HyperparametersChanged(changes={"learning_rate": 0.001}, reason="test"),
    ]
    parent, at = _parent(store, config, rows)
    result = rlvr(capsys, "branch", parent, "--at", str(at), "--store", store)
    assert result.code == 0, result.err[-3000:]
    assert len(_runs(store)) == 2
