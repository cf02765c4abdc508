"""Leases, stop requests, resume, rewind, branch and the supervisor, with stand-in stages."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import load_state, start_run
from orchestrator.driver.lease import (
    LeaseKeeper,
    driver_identity,
    holder_is_dead,
    release_held_leases,
)
from orchestrator.driver.lifecycle import branch, drive, resume
from orchestrator.driver.runner import Driver
from orchestrator.driver.signals import StopRequest
from orchestrator.driver.supervisor import SupervisorConfig, scan
from orchestrator.errors import LeaseHeldError, OrchestratorError
from store.leases import LeaseTable
from store.log import EventLog
from tests.scenario.fake_stages import FakeStages
from tests.tampering import edit_payload


def _started(tmp_path: Path) -> tuple[EventLog, str, RunConfig]:
    log = EventLog(tmp_path / "events.db")
    config = RunConfig(log_path=str(tmp_path), lease_ttl_s=5)
    run_id, _ = start_run(log, config)
    return log, run_id, config


def _steps(log: EventLog, run_id: str) -> list[int]:
    return [e.event.step for e in log.read(run_id, types=["MetricsRecorded"])]


def test_a_stop_request_pauses_after_the_current_step_and_resume_finishes(tmp_path: Path) -> None:
    log, run_id, config = _started(tmp_path)
    stop = StopRequest()
    stages = FakeStages(
        on_step=lambda step: stop.request("SIGTERM received") if step == 13 else None
    )
    state = drive(log, run_id, config, stages.registry(), stop=stop)
    assert state.state == "paused" and state.paused_from == "rlvr_optimization"
    assert _steps(log, run_id) == list(range(11, 14))
    paused = next(log.read(run_id, types=["RunPaused"])).event
    assert paused.reason == "SIGTERM received"

    state = resume(log, run_id, FakeStages().registry())
    assert state.state == "completed"
    assert _steps(log, run_id) == list(range(11, 31))  # each step once
    assert log.verify(run_id).ok


def test_a_second_driver_is_refused_while_the_lease_is_live(tmp_path: Path) -> None:
    log, run_id, _ = _started(tmp_path)
    with LeaseKeeper(log, run_id, ttl_s=30, owner="host-a:1") as _held:
        before = log.last_seq(run_id)
        with pytest.raises(LeaseHeldError, match="owned by driver host-a:1"):
            resume(log, run_id, FakeStages().registry())
        assert log.last_seq(run_id) == before


def test_an_expired_lease_is_taken_over_and_the_take_over_is_an_event(tmp_path: Path) -> None:
    log, run_id, _ = _started(tmp_path)
    LeaseTable(log).acquire(run_id, "dead-host:1", ttl_s=30)
    LeaseTable(log).expire_now(run_id)  # its driver died and the TTL ran out
    state = resume(log, run_id, FakeStages().registry())
    assert state.state == "completed"
    taken = [e.event for e in log.read(run_id, types=["LeaseAcquired"])]
    assert taken[0].took_over_from == "dead-host:1"


def _dead_pid() -> int:
    done = subprocess.Popen(["true"])
    done.wait()  # gone and reaped
    return done.pid


def test_a_live_lease_whose_process_is_gone_from_this_host_is_taken_over(tmp_path: Path) -> None:
    """`rlvr resume` right after a SIGKILL: the holder's pid on this host is dead, so its lease
    does not have to run out first."""
    log, run_id, _ = _started(tmp_path)
    holder = f"{socket.gethostname()}:{_dead_pid()}:beef"
    LeaseTable(log).acquire(run_id, holder, ttl_s=3600)
    state = resume(log, run_id, FakeStages().registry())
    assert state.state == "completed"
    taken = [e.event for e in log.read(run_id, types=["LeaseAcquired"])]
    assert taken[0].took_over_from == holder


def test_a_live_lease_whose_process_runs_or_ran_elsewhere_is_not_taken_over(
    tmp_path: Path,
) -> None:
    log, run_id, _ = _started(tmp_path)
    with subprocess.Popen(["sleep", "30"]) as alive:
        for holder in (
            f"{socket.gethostname()}:{alive.pid}:beef",  # alive here
            f"another-{socket.gethostname()}:{_dead_pid()}:beef",  # another host: cannot tell
        ):
            LeaseTable(log).acquire(run_id, holder, ttl_s=3600)
            with pytest.raises(LeaseHeldError, match=f"owned by driver {holder}"):
                resume(log, run_id, FakeStages().registry())
            LeaseTable(log).release(run_id, holder)
        alive.kill()
        alive.wait()


def test_a_killed_holder_not_yet_reaped_counts_as_dead() -> None:
    with subprocess.Popen(["sleep", "30"]) as zombie:
        zombie.kill()
        time.sleep(0.2)  # killed; its parent (this test) has not waited for it yet
        assert holder_is_dead(f"{socket.gethostname()}:{zombie.pid}:beef")
        zombie.wait()
    assert not holder_is_dead(f"{socket.gethostname()}:{os.getpid()}:beef")  # this process
    assert not holder_is_dead("host-a:1")


def test_rewind_in_place_keeps_the_abandoned_span_but_folds_past_it(tmp_path: Path) -> None:
    log, run_id, config = _started(tmp_path)
    drive(log, run_id, config, FakeStages().registry())
    rewind_to = next(
        e.seq for e in log.read(run_id, types=["MetricsRecorded"]) if e.event.step == 15
    )
    total_before = log.last_seq(run_id)
    state = resume(log, run_id, FakeStages().registry(), from_seq=rewind_to)
    assert state.state == "completed"
    rewound = next(log.read(run_id, types=["RunRewound"]))
    assert rewound.event.to_seq == rewind_to and rewound.seq > total_before  # nothing deleted
    assert _steps(log, run_id)[:20] == list(range(11, 31))  # the abandoned span is still there
    assert load_state(log, run_id).step == 30


def test_a_branch_shares_history_up_to_seq_by_reference_and_leaves_the_parent_untouched(
    tmp_path: Path,
) -> None:
    log, run_id, config = _started(tmp_path)
    drive(log, run_id, config, FakeStages().registry())
    parent_before = [e.hash for e in log.read(run_id)]
    at = next(e.seq for e in log.read(run_id, types=["MetricsRecorded"]) if e.event.step == 14)
    child, _ = branch(log, run_id, at, ["seed=9"])
    # Nothing of the parent's was copied: the child's own rows start after the branch point.
    assert [r.run_id for r in log.read(child)][at - 1 : at + 1] == [run_id, child]
    with log.engine.connect() as conn:
        own = conn.exec_driver_sql("SELECT min(seq) FROM events WHERE run_id = ?", (child,))
        assert own.scalar_one() == at + 1
    state = resume(log, child, FakeStages().registry())
    assert state.state == "completed" and state.parent == (run_id, at)
    parent_events = [e.event for e in log.read(run_id, to_seq=at)]
    assert [e.event for e in log.read(child, to_seq=at)] == parent_events
    assert [e.hash for e in log.read(run_id)] == parent_before
    assert state.config_overrides == ("seed=9",)


def test_a_branch_with_a_bad_override_writes_nothing(tmp_path: Path) -> None:
    log, run_id, config = _started(tmp_path)
    drive(log, run_id, config, FakeStages().registry())
    runs_before = log.runs()
    with pytest.raises(OrchestratorError):
        branch(log, run_id, 5, ["seed=lots"])
    assert log.runs() == runs_before


def test_the_supervisor_restarts_an_orphan_with_backoff_and_then_gives_up(tmp_path: Path) -> None:
    log, run_id, config = _started(tmp_path)
    LeaseTable(log).acquire(run_id, "dead-host:1", ttl_s=30)
    LeaseTable(log).expire_now(run_id)  # its driver died and the TTL ran out
    launched: list[str] = []
    policy = SupervisorConfig(max_restarts=2, backoff_base_s=0, grace_s=0)
    actions = scan(log, policy, launched.append)
    assert [a.action for a in actions] == ["restart"] and launched == [run_id]
    scan(log, policy, launched.append)
    actions = scan(log, policy, launched.append)
    assert actions[0].action == "give_up"
    state = load_state(log, run_id)
    assert state.state == "failed" and "gave up after 2 restarts" in state.failure_reason
    assert [e.event.action for e in log.read(run_id, types=["SupervisorActed"])] == [
        "restart",
        "restart",
        "give_up",
    ]


def test_the_supervisor_leaves_live_and_finished_runs_alone(tmp_path: Path) -> None:
    log, run_id, config = _started(tmp_path)
    with LeaseKeeper(log, run_id, ttl_s=30):
        assert scan(log, SupervisorConfig(grace_s=0), lambda _: None) == []
    drive(log, run_id, config, FakeStages().registry())
    assert scan(log, SupervisorConfig(grace_s=0), lambda _: None) == []


def test_the_supervisor_skips_a_tampered_run_and_still_restarts_the_others(tmp_path: Path) -> None:
    log, broken, _ = _started(tmp_path)
    _, orphan, _ = _started(tmp_path)
    for run_id in (broken, orphan):
        LeaseTable(log).acquire(run_id, "dead-host:1", ttl_s=30)
        LeaseTable(log).expire_now(run_id)
    edit_payload(log, broken, 1, {"config": {}, "config_hash": "forged"})
    launched: list[str] = []
    actions = scan(log, SupervisorConfig(backoff_base_s=0, grace_s=0), launched.append)
    assert {(a.run_id, a.action) for a in actions} == {(broken, "broken"), (orphan, "restart")}
    assert launched == [orphan]
    assert "hash chain broken at seq 1" in next(a.detail for a in actions if a.run_id == broken)


def test_a_branch_that_changes_a_trainer_knob_records_the_change_after_the_branch_point(
    tmp_path: Path,
) -> None:
    # The trainer restores LR and KL coefficient from its checkpoint; without this event the
    # branch's learning_rate override would be silently lost.
    log, run_id, config = _started(tmp_path)
    drive(log, run_id, config, FakeStages().registry())
    at = next(e.seq for e in log.read(run_id, types=["MetricsRecorded"]) if e.event.step == 14)
    child, _ = branch(log, run_id, at, ["learning_rate=5e-5", "seed=3"])
    tail = [e for e in log.read(child) if e.seq > at]
    assert [e.type for e in tail] == ["RunBranched", "HyperparametersChanged"]
    assert tail[1].event.changes == {"learning_rate": 5e-5}
    assert load_state(log, child).hyperparameters["learning_rate"] == 5e-5


class _SlowCleanupDriver(Driver):
    """Records whether the lease row still exists when cleanup after the loop begins (under
    mlx.launch that cleanup is a collective that can take minutes)."""

    lease_at_cleanup: list = []

    def run(self):
        try:
            return super().run()
        finally:
            self.lease_at_cleanup.append(LeaseTable(self.log).get(self.run_id))


def test_the_pause_path_releases_the_lease_before_any_cleanup(tmp_path: Path) -> None:
    log, run_id, config = _started(tmp_path)
    stop = StopRequest()
    stages = FakeStages(on_step=lambda step: stop.request("peer lost") if step == 12 else None)
    state = drive(log, run_id, config, stages.registry(), stop=stop,
                  driver_factory=_SlowCleanupDriver)  # fmt: skip
    assert state.state == "paused"
    assert _SlowCleanupDriver.lease_at_cleanup == [None]  # released as the pause was appended
    assert resume(log, run_id, FakeStages().registry()).state == "completed"


def test_the_os_exit_paths_release_every_lease_the_process_holds(tmp_path: Path) -> None:
    log, run_id, _ = _started(tmp_path)
    keeper = LeaseKeeper(log, run_id, ttl_s=30, owner="host-a:1")
    keeper.acquire()
    assert LeaseTable(log).get(run_id) is not None
    release_held_leases("second SIGTERM")
    assert LeaseTable(log).get(run_id) is None
    release_held_leases("again")  # nothing left: a no-op
    keeper.release()  # idempotent


def test_a_second_sigterm_exits_at_once_and_releases_the_lease(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    job = subprocess.Popen([sys.executable, "-m", "tests.scenario.hanging_driver", str(tmp_path)],
                           cwd=root, stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.time() + 60
    while not (tmp_path / "ready").exists():  # the driver is inside step 12, holding the lease
        assert job.poll() is None and time.time() < deadline, "the driver never reached step 12"
        time.sleep(0.1)
    log = EventLog(tmp_path / "events.db")
    run_id = (tmp_path / "run_id").read_text()
    assert LeaseTable(log).get(run_id) is not None
    job.send_signal(signal.SIGTERM)  # the first asks for a stop after the step: the step hangs
    time.sleep(0.5)
    assert job.poll() is None
    job.send_signal(signal.SIGTERM)
    assert job.wait(timeout=30) == 128 + signal.SIGTERM, job.stderr.read()[-2000:]
    assert LeaseTable(log).get(run_id) is None  # a resume can start now, not after the TTL


def test_sigterm_during_sft_pauses_the_run_between_two_sft_steps(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    job = subprocess.Popen([sys.executable, "-m", "tests.scenario.sft_driver", str(tmp_path)],
                           cwd=root, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.time() + 120
        while not (tmp_path / "ready").exists():  # stage 1 is running its (million-step) SFT
            assert job.poll() is None, job.stderr.read()[-2000:]
            assert time.time() < deadline, "the driver never reached SFT"
            time.sleep(0.1)
        time.sleep(1.0)
        job.send_signal(signal.SIGTERM)
        assert job.wait(timeout=60) == 0, job.stderr.read()[-2000:]
    finally:
        job.kill()  # a driver that did not stop must not run on after the test
    log = EventLog(tmp_path / "events.db")
    state = load_state(log, (tmp_path / "run_id").read_text())
    assert state.state == "paused" and state.paused_from == "sft_preparation"
    assert "SIGTERM" in [e.event.reason for e in log.read(state.run_id, types=["RunPaused"])][-1]
    assert not list(log.read(state.run_id, types=["SFTCompleted", "BaselineRecorded"]))


def test_a_cut_inside_a_batch_rounds_down_to_the_batch_before_and_says_so(tmp_path: Path) -> None:
    log, run_id, config = _started(tmp_path)
    drive(log, run_id, config, FakeStages().registry())
    # The first of a batch [CheckpointSaved, EvalRecorded]: a cut there would keep the checkpoint
    # without the eval (and the decisions) appended with it.
    inside = next(log.read(run_id, types=["CheckpointSaved"])).seq
    notes: list[str] = []
    child, at = branch(log, run_id, inside, [], say=notes.append)
    assert at == inside - 1 and f"cutting at seq {at}" in notes[0]
    assert load_state(log, child).parent == (run_id, at)
    assert log.batch_ends(child)[:-1] == log.batch_ends(run_id, to_seq=at)  # the child's own cuts

    state = resume(log, run_id, FakeStages().registry(), from_seq=inside, say=notes.append)
    assert state.state == "completed" and len(notes) == 2
    assert next(log.read(run_id, types=["RunRewound"])).event.to_seq == inside - 1


def test_resume_folds_the_log_once_and_continues_from_that_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import orchestrator.driver.commands as commands
    import orchestrator.driver.lifecycle as lifecycle
    import orchestrator.driver.runner as runner

    log, run_id, config = _started(tmp_path)
    stop = StopRequest()
    stages = FakeStages(on_step=lambda step: stop.request("stop") if step == 13 else None)
    drive(log, run_id, config, stages.registry(), stop=stop)
    folds: list[int | None] = []
    for module in (commands, lifecycle, runner):
        real = module.fold_run

        def counted(log, run_id, to_seq=None, real=real):
            folds.append(to_seq)
            return real(log, run_id, to_seq)

        monkeypatch.setattr(module, "fold_run", counted)
    state = resume(log, run_id, FakeStages().registry())
    assert state.state == "completed" and folds == [None]
    assert state == load_state(log, run_id)  # the driver's incremental state is the log's


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_a_live_holder_in_another_pid_namespace_of_this_host_is_not_taken_over(
    tmp_path: Path,
) -> None:
    """Red team round 12: a process with this host's name but its own pid namespace (a container
    sharing the host name) asked `os.kill(pid, 0)` about a pid that is not the holder's, found it
    gone, and took the lease of a live driver."""
    log, run_id, _ = _started(tmp_path)
    holder = LeaseKeeper(log, run_id, ttl_s=600)
    holder.acquire()
    try:
        asks = (
            "import sys\n"
            "from store.log import EventLog\n"
            "from orchestrator.driver.lease import LeaseKeeper\n"
            "from orchestrator.errors import LeaseHeldError\n"
            f"keeper = LeaseKeeper(EventLog({str(tmp_path / 'events.db')!r}), {run_id!r}, 600)\n"
            "try:\n    keeper.acquire()\nexcept LeaseHeldError:\n    sys.exit(3)\n"
        )
        jail = ["bwrap", "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid",
                "--die-with-parent"]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        other = subprocess.run([*jail, sys.executable, "-c", asks], env=env, timeout=120)
        assert other.returncode == 3  # refused: the holder is alive
        assert LeaseTable(log).all()[run_id].owner == holder.owner
    finally:
        holder.release()


def test_an_owner_of_another_pid_space_on_this_host_is_never_provably_dead() -> None:
    dead = _dead_pid()
    assert not holder_is_dead(f"{socket.gethostname()}:{dead}:00000000-beef")
    ours = driver_identity().split(":")[2].split("-")[0]
    assert holder_is_dead(f"{socket.gethostname()}:{dead}:{ours}-beef")
