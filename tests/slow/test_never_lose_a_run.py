"""Crash-safe resume, two drivers, branching and the supervisor, through the real CLI on a
shortened quickstart (see tests/slow/runs.py: the gates that judge the gain are opened)."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

from orchestrator.config import load_config
from orchestrator.driver.commands import start_run
from store.log import EventLog
from tests.slow.runs import (
    QUICKSTART,
    SHORT,
    events,
    only_run,
    rlvr,
    start,
    state,
    wait_for_lease_to_expire,
    wait_until,
)

pytestmark = pytest.mark.slow

TTL = ["lease_ttl_s=2"]
TIMING = ("_s", "per_s")  # wall-clock metrics differ between runs by nature


def _run(workdir: Path, *extra: str, env: dict | None = None):
    return rlvr("run", str(QUICKSTART), *SHORT, *TTL, *extra, cwd=workdir, env=env, timeout=1500)


def _step_metrics(store: Path, run_id: str) -> list[tuple[int, dict]]:
    return [
        (e.event.step, {k: v for k, v in e.event.metrics.items() if not k.endswith(TIMING)})
        for e in events(store, run_id, "MetricsRecorded")
    ]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    workdir = tmp_path_factory.mktemp("uninterrupted")
    result = _run(workdir)
    assert result.returncode == 0, result.stderr[-4000:]
    store = workdir / "runs" / "events.db"
    return store, only_run(store)


def test_sigkill_at_every_kind_of_moment_then_resume_equals_the_uninterrupted_run(
    uninterrupted, tmp_path: Path
) -> None:
    reference_store, reference_id = uninterrupted
    store = tmp_path / "runs" / "events.db"
    crashes = ["sampling:2", "verification:3", "optimizer:4", "checkpoint:3", "store_transaction:5"]
    first = _run(tmp_path, env={"RLVR_CRASH_AT": crashes[0]})
    assert first.returncode == -signal.SIGKILL, first.stderr[-2000:]
    run_id = only_run(store)
    for point in crashes[1:]:
        wait_for_lease_to_expire(EventLog(store), run_id)  # SIGKILL left it behind
        crashed = rlvr(
            "resume", run_id, "--store", str(store), cwd=tmp_path, env={"RLVR_CRASH_AT": point}
        )
        assert crashed.returncode == -signal.SIGKILL, (
            f"{point} was not reached: {crashed.stderr[-2000:]}"
        )
    wait_for_lease_to_expire(EventLog(store), run_id)
    rlvr("resume", run_id, "--store", str(store), cwd=tmp_path, check=True)

    assert EventLog(store).verify(run_id).ok
    steps = [s for s, _ in _step_metrics(store, run_id)]
    assert steps == sorted(set(steps)) == list(range(len(steps)))  # each step exactly once
    assert _step_metrics(store, run_id) == _step_metrics(reference_store, reference_id)
    final, reference = state(store, run_id), state(reference_store, reference_id)
    assert final.state == reference.state == "completed"
    assert final.last_eval["verify_rate"] == reference.last_eval["verify_rate"]
    assert final.last_eval["capability"] == reference.last_eval["capability"]
    completed = events(store, run_id, "RunCompleted")[0].event
    expected = events(reference_store, reference_id, "RunCompleted")[0].event
    assert completed.final_checkpoint == expected.final_checkpoint  # same weights, byte for byte
    assert len(events(store, run_id, "LeaseAcquired")) == len(crashes) + 1


def test_two_drivers_on_one_run_exactly_one_proceeds(tmp_path: Path) -> None:
    store = tmp_path / "runs" / "events.db"
    config = load_config(QUICKSTART, [*SHORT, *TTL, f"log_path={tmp_path / 'runs'}"])
    run_id, _ = start_run(EventLog(store), config)
    outcomes: dict[int, object] = {}

    def drive(index: int) -> None:
        outcomes[index] = rlvr("resume", run_id, "--store", str(store), cwd=tmp_path)

    threads = [threading.Thread(target=drive, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    codes = sorted(o.returncode for o in outcomes.values())
    assert codes[0] == 0 and codes[1] != 0, [o.stderr[-1000:] for o in outcomes.values()]
    loser = next(o for o in outcomes.values() if o.returncode != 0)
    assert "is owned by driver" in loser.stderr
    assert EventLog(store).verify(run_id).ok
    assert len(events(store, run_id, "LeaseAcquired")) == 1
    assert state(store, run_id).state == "completed"


def test_a_branch_with_another_lr_completes_and_leaves_the_parent_byte_for_byte(
    uninterrupted, tmp_path: Path
) -> None:
    reference_store, parent = uninterrupted
    store = tmp_path / "events.db"
    exported = rlvr(
        "events", "export", parent, "--store", str(reference_store), cwd=tmp_path, check=True
    )
    (tmp_path / "parent.jsonl").write_text(exported.stdout)
    rlvr(
        "events",
        "import",
        str(tmp_path / "parent.jsonl"),
        "--store",
        str(store),
        cwd=tmp_path,
        check=True,
    )
    metrics = events(store, parent, "MetricsRecorded")
    at = next(e.seq for e in metrics if e.event.step == 5)
    before = rlvr(
        "events", "export", parent, "--store", str(store), cwd=tmp_path, check=True
    ).stdout
    # The parent's blobs live with the parent's runs directory.
    env = {"RLVR_STORE": str(store)}
    result = rlvr(
        "branch",
        parent,
        "--at",
        str(at),
        "learning_rate=5e-5",
        cwd=reference_store.parent.parent,
        env=env,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    child = next(r.run_id for r in EventLog(store).runs() if r.run_id != parent)
    parent_events = [(e.type, e.payload) for e in events(store, parent)][:at]
    assert [(e.type, e.payload) for e in events(store, child)][:at] == parent_events
    child_state = state(store, child)
    assert child_state.state == "completed" and child_state.parent == (parent, at)
    assert any(
        e.event.metrics.get("learning_rate_scheduled") == 5e-5  # the rate the step applied
        for e in events(store, child, "MetricsRecorded")[5:]
    )
    after = rlvr("events", "export", parent, "--store", str(store), cwd=tmp_path, check=True).stdout
    assert after == before


def test_supervise_once_resumes_a_killed_run_whose_lease_expired(tmp_path: Path) -> None:
    store = tmp_path / "runs" / "events.db"
    driver = start("run", str(QUICKSTART), *SHORT, *TTL, cwd=tmp_path)

    def sampling() -> bool:
        assert driver.poll() is None, driver.communicate()[1][-3000:]
        runs = store.exists() and EventLog(store).runs()
        return bool(runs) and bool(events(store, only_run(store), "RolloutsSampled"))

    # SFT (400 steps) and stages 2-4 come first: minutes on a slow 2-core machine.
    wait_until(sampling, timeout=900, what="the driver's first RL step", every=1)
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    run_id = only_run(store)
    wait_for_lease_to_expire(EventLog(store), run_id)
    scan = rlvr("supervise", "--once", "--store", str(store), cwd=tmp_path, check=True)
    assert f"{run_id}: restart" in scan.stdout
    # The supervisor's child runs the rest of the shortened quickstart (about 2 minutes here).
    wait_until(lambda: state(store, run_id).finished, timeout=900,
               what=f"the restarted run {run_id} to finish", every=2)  # fmt: skip
    final = state(store, run_id)
    assert final.state == "completed", final.failure_reason
    assert events(store, run_id, "SupervisorActed")[0].event.action == "restart"
    assert any(e.event.took_over_from for e in events(store, run_id, "LeaseAcquired"))
