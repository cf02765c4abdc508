"""A run whose driver crashes at the same point after each restart (a row that segfaults mlx, say)
is not restarted a third time: the supervisor gives up with the reason as soon as two restarts in
a row made no progress, whatever `max_restarts` allows. A run that moves on between crashes is
restarted as before."""

from __future__ import annotations

from pathlib import Path

from orchestrator.config import RunConfig
from orchestrator.driver.commands import load_state, start_run
from orchestrator.driver.supervisor import SupervisorConfig, scan
from store.events import Event, LeaseAcquired, StageStarted, StepFailed
from store.leases import LeaseTable
from store.log import EventLog

POLICY = SupervisorConfig(max_restarts=5, backoff_base_s=0, grace_s=0)


def _orphan(tmp_path: Path) -> tuple[EventLog, str]:
    log = EventLog(tmp_path / "events.db")
    run_id, _ = start_run(log, RunConfig(log_path=str(tmp_path)))
    LeaseTable(log).acquire(run_id, "dead-host:1", ttl_s=30)
    LeaseTable(log).expire_now(run_id)  # its driver died and the TTL ran out
    return log, run_id


def _restarted_driver_crashes(log: EventLog, run_id: str, progress: list[Event]) -> None:
    """What a restarted driver appends before it crashes: its lease, the stage it starts again,
    and (when it gets further than last time) the work it did."""
    rows = [LeaseAcquired(owner="host:2", expires_at="2000-01-01T00:00:00+00:00"),
            StageStarted(stage="task_design"), *progress]  # fmt: skip
    log.append(run_id, rows, expected_seq=log.last_seq(run_id))
    LeaseTable(log).expire_now(run_id)


def test_two_restarts_that_crash_at_the_same_point_are_not_followed_by_a_third(
    tmp_path: Path,
) -> None:
    log, run_id = _orphan(tmp_path)
    launched: list[str] = []
    for _ in range(2):
        [action] = scan(log, POLICY, launched.append)
        assert action.action == "restart"
        _restarted_driver_crashes(log, run_id, progress=[])
    [action] = scan(log, POLICY, launched.append)
    assert action.action == "give_up" and launched == [run_id, run_id]
    assert "crashed twice at the same point" in action.detail
    state = load_state(log, run_id)
    assert state.state == "failed" and "crashed twice at the same point" in state.failure_reason
    acted = [r.event.action for r in log.read(run_id, types=["SupervisorActed"])]
    assert acted == ["restart", "restart", "give_up"]


def test_a_run_that_gets_further_between_crashes_is_restarted_again(tmp_path: Path) -> None:
    log, run_id = _orphan(tmp_path)
    launched: list[str] = []
    for step in range(4):
        [action] = scan(log, POLICY, launched.append)
        assert action.action == "restart", action
        failed = StepFailed(step=step, kind="exception", message="crashed later each time")
        _restarted_driver_crashes(log, run_id, progress=[failed])
    assert len(launched) == 4
