"""`rlvr pause RUN` as a person types it: a live driver in another process (SQLite, PostgreSQL)
pauses at its next batch, its `RunPaused` naming who asked; a run whose driver died is paused at
once; a paused run is left alone; a finished run is refused with one error line. `rlvr resume`
(the lifecycle's resume) then continues each paused run to the end; a pause asked while a
detached resume starts (the run still paused, no driver holding it) is not lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import load_state, start_run
from orchestrator.driver.lifecycle import drive, resume
from store.log import EventLog
from store.requests import pending_for
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages
from tests.slow.runs import wait_until


def _driver(folder: Path, store: str) -> subprocess.Popen:
    """A driver in a process of its own that waits inside step 12 until `folder/go` exists."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.scenario.waiting_driver", str(folder), "5", store],
        env={**os.environ, "RLVR_LOG_LEVEL": "WARNING"}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _at_step_12(folder: Path, job: subprocess.Popen) -> str:
    wait_until(lambda: (folder / "ready").exists() or job.poll() is not None,
               timeout=120, what="the driver to reach step 12")  # fmt: skip
    assert job.poll() is None, job.communicate()[1][-3000:]
    return (folder / "run_id").read_text()


def test_rlvr_pause_of_a_live_driver_in_another_process_pauses_it_at_its_next_batch(
    store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = _driver(tmp_path, store_url)
    try:
        run_id = _at_step_12(tmp_path, job)
        log = EventLog(store_url)
        before = log.last_seq(run_id)
        said = rlvr(capsys, "pause", run_id, "--store", store_url, "--reason", "look at the KL")
        assert said.code == 0, said.err
        assert f"run {run_id} is being driven by " in said.out
        assert "it pauses at its next batch" in said.out
        # Not appended under the driver: queued for it.
        assert log.last_seq(run_id) == before and pending_for(log.engine, run_id).queued == 1
        (tmp_path / "go").write_text("1")
        _, err = job.communicate(timeout=120)
    finally:
        if job.poll() is None:
            job.kill()
    assert job.returncode == 0, err[-3000:]
    assert (tmp_path / "done").read_text() == "paused"
    [asked] = log.read(run_id, types=["PauseRequested"])
    [paused] = log.read(run_id, types=["RunPaused"])
    assert paused.seq == asked.seq + 1  # right after the batch that carried the request
    assert paused.event.reason.startswith("paused at the request of ")
    assert paused.event.reason.endswith("(rlvr pause): look at the KL")
    # It waited after step 12's batch: step 13's batch carried the request.
    assert load_state(log, run_id).step == 13 and pending_for(log.engine, run_id).queued == 0
    status = rlvr(capsys, "status", run_id, "--store", store_url, "--json")
    assert json.loads(status.out)["state"] == "paused"
    assert resume(log, run_id, FakeStages().registry()).state == "completed"
    assert log.verify(run_id).ok


def test_rlvr_pause_of_a_run_whose_driver_died_pauses_it_at_once_and_resume_continues_it(
    store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = _driver(tmp_path, store_url)
    try:
        run_id = _at_step_12(tmp_path, job)
    finally:
        job.send_signal(signal.SIGKILL)  # its lease stays behind, its process is gone
        job.communicate(timeout=60)
    log = EventLog(store_url)
    last = log.last_seq(run_id)
    said = rlvr(capsys, "pause", run_id, "--store", store_url)
    assert said.code == 0, said.err
    assert said.out.strip() == (
        f"run {run_id} paused (recorded at seq {last + 2}); continue with: rlvr resume {run_id}"
    )
    rows = log.read(run_id, from_seq=last + 1)
    assert [r.type for r in rows] == ["PauseRequested", "RunPaused", "StateChanged"]
    assert load_state(log, run_id).state == "paused"
    again = rlvr(capsys, "pause", run_id, "--store", store_url)
    assert again.code == 0 and "is paused already (paused at the request of " in again.out
    # Only the request is recorded the second time (for a resume already on its way, see below);
    # a resume asked for after it is not paused by it.
    assert [r.type for r in log.read(run_id, from_seq=last + 4)] == ["PauseRequested"]
    assert load_state(log, run_id).state == "paused" and pending_for(log.engine, run_id).queued == 0
    assert resume(log, run_id, FakeStages().registry()).state == "completed"
    assert log.verify(run_id).ok


def test_rlvr_pause_of_a_finished_run_is_one_error_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "events.db"
    log = EventLog(store)
    config = RunConfig(log_path=str(tmp_path))
    run_id, _ = start_run(log, config)
    assert drive(log, run_id, config, FakeStages().registry()).state == "completed"
    last = log.last_seq(run_id)
    said = rlvr(capsys, "pause", run_id, "--store", str(store))
    assert said.code == 1
    assert said.error_lines == [f"error: run {run_id} is completed: there is nothing to pause"]
    assert log.last_seq(run_id) == last and pending_for(log.engine, run_id).queued == 0


def test_rlvr_pause_of_an_unknown_run_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "events.db"
    EventLog(store)
    said = rlvr(capsys, "pause", "no-such-run", "--store", str(store))
    assert said.code == 2 and said.error_lines[0].startswith("error: ")


def test_rlvr_pause_while_a_detached_resume_starts_is_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The console's resume (`start_resume`) spawns `rlvr resume` and returns before the child
    takes the lease; a `rlvr pause` (a process of its own) in that window finds the run paused
    and no driver: the request is recorded, and the child, told where the resume was asked,
    resumes and pauses again at its first batch, saying who asked."""
    from orchestrator import actions

    store = tmp_path / "events.db"
    log = EventLog(store)
    run_id, _ = start_run(log, RunConfig(log_path=str(tmp_path)))
    actions.request_pause(log, run_id, "before", by="test")
    assert load_state(log, run_id).state == "paused"
    spawned: list[list[str]] = []

    class NoChild:  # the child is started by hand below, after the pause (the race's order)
        pid = 0

        def __init__(self, argv: list[str], **_: object) -> None:
            spawned.append(argv)

        def wait(self) -> int:
            return 0

    monkeypatch.setattr(actions.subprocess, "Popen", NoChild)
    actions.start_resume(log, run_id)
    monkeypatch.undo()  # `subprocess` is one module: the pause below is a real process
    [argv] = spawned
    assert argv[-4:] == ["resume", run_id, "--asked-at-seq", str(log.last_seq(run_id))]
    paused = subprocess.run(
        [sys.executable, "-m", "orchestrator", "pause", run_id, "--store", str(store),
         "--reason", "stop it"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert paused.returncode == 0, paused.stderr
    assert "paused already" in paused.stdout and "the request is recorded" in paused.stdout
    state = resume(log, run_id, FakeStages().registry(), asked_at_seq=int(argv[-1]))
    assert state.state == "paused"
    after = [r.type for r in log.read(run_id, from_seq=int(argv[-1]) + 1)]
    assert after[0] == "PauseRequested" and "RunResumed" in after and "RunPaused" in after
    assert after.index("RunResumed") < after.index("RunPaused")  # resumed, then paused again
    [*_, last_pause] = log.read(run_id, types=["RunPaused"])
    assert last_pause.event.reason.startswith("paused at the request of ")
    assert last_pause.event.reason.endswith("(rlvr pause): stop it")
    assert resume(log, run_id, FakeStages().registry()).state == "completed"
