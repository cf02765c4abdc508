"""Day-two commands as a person types them (issue 29): naming runs by `latest` or the start of an
id, `status` of a run another process is driving, tables in 100 columns, a closed pipe, typos in
`--type`, `supervise --once`, and hiding runs from lists (outside every run's chain)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from store.log import EventLog
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages
from tests.slow.runs import wait_until
from tests.unit.audit.conftest import drive


@pytest.fixture
def two_runs(tmp_path: Path) -> tuple[str, str, str]:
    """A completed run, then a failed one (stage 3's gate), in one store."""
    _, done = drive(tmp_path, FakeStages())
    time.sleep(0.01)  # `latest` is the one started last
    _, failed = drive(tmp_path, FakeStages(false_positive_rate=0.2))
    return str(tmp_path / "events.db"), done, failed


def test_latest_and_the_start_of_an_id_name_a_run_wherever_a_run_id_goes(
    two_runs: tuple[str, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    store, done, failed = two_runs
    latest = rlvr(capsys, "status", "latest", "--store", store)
    assert latest.code == 0 and f"run {failed}" in latest.out
    unique = next(done[:n] for n in range(1, len(done)) if not failed.startswith(done[:n]))
    by_start = rlvr(capsys, "verify", unique, "--store", store)
    assert by_start.code == 0 and f"run {done}: hash chain intact" in by_start.out
    for command in (["why"], ["events"], ["report", "--out", str(Path(store).parent / "r")]):
        named = rlvr(capsys, command[0], "latest", *command[1:], "--store", store)
        assert named.code == 0, (command, named.err)


def test_an_unknown_or_ambiguous_run_is_bad_input_exit_2(
    two_runs: tuple[str, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    store, done, failed = two_runs
    unknown = rlvr(capsys, "status", "nope", "--store", store)
    assert unknown.code == 2 and unknown.error_lines == [
        f"error: no run 'nope' in sqlite:///{store} (latest runs: {done}, {failed})"
    ]
    ambiguous = rlvr(capsys, "why", "run-", "--store", store)
    assert ambiguous.code == 2
    assert ambiguous.error_lines[0].startswith("error: 'run-' is the start of several runs (")


def test_the_list_of_runs_fits_100_columns_with_whole_run_ids(
    two_runs: tuple[str, str, str], capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    store, done, failed = two_runs
    monkeypatch.setenv("COLUMNS", "100")
    listed = rlvr(capsys, "status", "--store", store)
    assert listed.code == 0
    lines = listed.out.splitlines()
    assert max(map(len, lines)) <= 100
    assert any(done in line and "completed" in line and "done" in line for line in lines)
    assert any(failed in line and "failed" in line for line in lines)


def test_status_into_a_closed_pipe_is_quiet(two_runs: tuple[str, str, str]) -> None:
    store, done, _ = two_runs
    done_ = subprocess.run(
        ["bash", "-o", "pipefail", "-c",
         f"{sys.executable} -m orchestrator status {done} --store {store} | head -n 1"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done_.returncode == 0, done_.stderr
    assert done_.stderr == "" and done_.stdout.strip()


def test_an_unknown_event_type_is_an_error_with_a_suggestion(
    two_runs: tuple[str, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    store, done, _ = two_runs
    typo = rlvr(capsys, "events", done, "--type", "GateEvaluted", "--store", store)
    assert typo.code == 2 and typo.out == ""
    assert "no such event type (did you mean GateEvaluated" in typo.error_lines[0]
    right = rlvr(capsys, "events", done, "--type", "GateEvaluated", "--store", store)
    assert right.code == 0 and "GateEvaluated" in right.out


def test_supervise_once_says_what_it_did_even_when_nothing(
    two_runs: tuple[str, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    store, _, _ = two_runs
    once = rlvr(capsys, "supervise", "--once", "--store", store)
    assert once.code == 0
    assert f"supervisor: checked 2 runs in sqlite:///{store}: nothing to restart" in once.out


def test_a_hidden_run_leaves_the_lists_and_latest_and_comes_back(
    two_runs: tuple[str, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    store, done, failed = two_runs
    last_seq = EventLog(store).last_seq(failed)
    hidden = rlvr(capsys, "runs", "hide", failed, "--store", store)
    assert hidden.code == 0 and f"run {failed}: hidden from lists" in hidden.out
    assert EventLog(store).last_seq(failed) == last_seq  # outside the run's chain
    listed = rlvr(capsys, "status", "--store", store, "--json")
    assert [row["run_id"] for row in json.loads(listed.out)] == [done]
    assert f"run {done}" in rlvr(capsys, "status", "latest", "--store", store).out
    every = rlvr(capsys, "status", "--all", "--store", store)
    assert failed in every.out and "(hidden)" in every.out
    one = rlvr(capsys, "status", failed, "--store", store)  # still readable by id, and says so
    assert one.code == 0 and "rlvr runs unhide to list it again" in one.out
    shown = rlvr(capsys, "runs", "unhide", failed, "--store", store)
    assert shown.code == 0 and f"run {failed}: listed again" in shown.out
    assert f"run {failed}" in rlvr(capsys, "status", "latest", "--store", store).out


@pytest.fixture
def live_run(tmp_path: Path) -> Iterator[tuple[Path, str, subprocess.Popen]]:
    """A run driven by another process, waiting inside step 12, lease TTL 1 s (renewed)."""
    job = subprocess.Popen(
        [sys.executable, "-m", "tests.scenario.waiting_driver", str(tmp_path), "1"],
        env={**os.environ, "RLVR_LOG_LEVEL": "WARNING"}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_until(lambda: (tmp_path / "ready").exists() or job.poll() is not None,
                   timeout=120, what="the driver to reach step 12")  # fmt: skip
        assert job.poll() is None, job.communicate()[1][-3000:]
        yield tmp_path, (tmp_path / "run_id").read_text(), job
    finally:
        if job.poll() is None:
            job.kill()
        job.communicate()


def _finish(folder: Path, job: subprocess.Popen) -> str:
    (folder / "go").write_text("1")
    _, err = job.communicate(timeout=120)
    assert job.returncode == 0, err[-3000:]
    return (folder / "done").read_text()


def test_status_of_a_run_another_process_drives_reads_its_renewed_lease(
    live_run: tuple[Path, str, subprocess.Popen], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, run_id, job = live_run
    time.sleep(3)  # three TTLs: the lease the log recorded at acquisition has long expired
    store = str(folder / "events.db")
    one = rlvr(capsys, "status", run_id, "--json", "--store", store)
    detail = json.loads(one.out)
    assert detail["health"].startswith("ok (lease held by "), detail["health"]
    listed = rlvr(capsys, "status", "--json", "--store", store)
    assert json.loads(listed.out)[0]["health"] == detail["health"]
    assert _finish(folder, job) == "completed"


def test_hiding_a_live_run_never_touches_its_chain_and_it_completes(
    live_run: tuple[Path, str, subprocess.Popen], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, run_id, job = live_run
    store = str(folder / "events.db")
    hidden = rlvr(capsys, "runs", "hide", run_id, "--store", store)
    assert hidden.code == 0, hidden.err
    assert _finish(folder, job) == "completed"  # the driver's appends went on unbroken
    assert rlvr(capsys, "verify", run_id, "--store", store).code == 0
    assert rlvr(capsys, "status", "--json", "--store", store).out.strip() == "[]"


def test_branch_at_a_step_cuts_where_that_step_ends(
    two_runs: tuple[str, str, str], capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    import orchestrator.cli.app as cli_app

    store, done, _ = two_runs
    monkeypatch.setattr(cli_app, "_stages", FakeStages().registry)
    log = EventLog(store)
    step_15 = next(r for r in log.read(done, types=["MetricsRecorded"]) if r.event.step == 15)
    branched = rlvr(capsys, "branch", done, "--at-step", "15", "gates.max_kl=0.2", "--store", store)
    assert branched.code == 0, branched.err
    assert (
        f"--at-step 15: cutting run {done} at seq {step_15.seq}, the end of step 15" in branched.err
    )
    child = branched.err.split("branched ", 1)[1].split(" ", 1)[0]
    assert log.parent(child).seq == step_15.seq
    never = rlvr(capsys, "branch", done, "--at-step", "99", "--store", store)
    assert never.code == 2 and f"run {done} has no step 99 (its last step is 30)" in never.err
    both = rlvr(capsys, "branch", done, "--at", "5", "--at-step", "3", "--store", store)
    assert both.code == 2 and "not both" in both.err
