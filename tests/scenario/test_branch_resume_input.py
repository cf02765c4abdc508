"""`rlvr branch` and `rlvr resume` check their input before anything is written, as `rlvr run`
does: a bad override or a task file gone bad is one `error:` line, exit 2, and no new run or
event in the store."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run, transition
from stages.config import DataConfig
from store.log import EventLog
from tests.cli_runner import rlvr


@pytest.fixture
def paused_run(tmp_path: Path, store_url: str) -> tuple[str, str, Path]:
    """A math run on a good task file, paused in its first stage."""
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"prompt": "1+1?", "answer": "2", "difficulty": 1}) + "\n")
    config = RunConfig(
        run_name=f"input-{uuid.uuid4().hex[:8]}",
        log_path=str(tmp_path / "runs"),
        data=DataConfig(task_family="math", data_path=str(tasks)),
    )
    log = EventLog(store_url)
    run_id, _ = start_run(log, config)
    transition(log, run_id, "start")
    transition(log, run_id, "pause", reason="test")
    log.close()
    return store_url, run_id, tasks


def _refused(result, expected: str) -> None:
    assert result.code == 2, result.err
    assert len(result.error_lines) == 1 and result.error_lines[0].startswith("error: "), result.err
    assert expected in result.error_lines[0], result.err


def _runs_named(store: str, run_id: str) -> list[str]:
    log = EventLog(store)
    try:
        name = "-".join(run_id.split("-")[:2])  # the run name: input-<hex>
        return sorted(s.run_id for s in log.runs() if s.run_id.startswith(name))
    finally:
        log.close()


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("learning_rate=inf", "command line: grpo.learning_rate: must be a finite number"),
        ("kl_penalty_coef=nan", "command line: grpo.kl_penalty_coef: must be a finite number"),
        ('group_size="8"', "command line: grpo.group_size: Input should be a valid integer"),
        ("seed=true", "command line: seed: Input should be a valid integer"),
        ("max_pass_rate=0.0", "command line: pipeline: Value error, min_pass_rate (0.0) must be"),
        ("group_size=9223372036854775807", "grpo.group_size: Input should be less than or equal"),
    ],
)
def test_a_bad_branch_override_writes_no_branch(
    paused_run: tuple[str, str, Path],
    capsys: pytest.CaptureFixture[str],
    override: str,
    expected: str,
) -> None:
    store, run_id, _ = paused_run
    before = _runs_named(store, run_id)
    _refused(rlvr(capsys, "branch", run_id, "--at", "3", override, "--store", store), expected)
    assert _runs_named(store, run_id) == before == [run_id]


def test_a_branch_onto_a_bad_task_file_writes_no_branch(
    paused_run: tuple[str, str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, run_id, _ = paused_run
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"prompt": "p", "answer": "1", "difficulty": "hard"}) + "\n")
    result = rlvr(capsys, "branch", run_id, "--at", "3", f"data.data_path={bad}", "--store", store)
    _refused(result, f"{bad}:1: field 'difficulty': expected a non-negative integer, got 'hard'")
    assert _runs_named(store, run_id) == [run_id]


def test_resume_onto_a_task_file_gone_bad_appends_nothing(
    paused_run: tuple[str, str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    store, run_id, tasks = paused_run
    tasks.write_text(tasks.read_text() + '{"prompt": "2+2?", "answer": "4", "difficulty": 2.5}\n')
    log = EventLog(store)
    last = log.last_seq(run_id)
    _refused(rlvr(capsys, "resume", run_id, "--store", store), "tasks.jsonl:2: field 'difficulty'")
    assert log.last_seq(run_id) == last
    log.close()
    assert not (tasks.parent / "runs").exists()
