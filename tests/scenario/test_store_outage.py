"""A store outage mid-run: the driver's appends retry, and when the retries run out the run pauses
with the reason (no half-written batch); resume then finishes it with every step logged once."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from orchestrator.driver.runner import Driver
from store.blobs import BlobStore
from store.log import EventLog
from store.retry import RetryPolicy, StoreUnavailable
from tests.conftest import POSTGRES_URL
from tests.faults import failing_inserts, sqlite_locked, tagged, terminate_tagged
from tests.scenario.fake_stages import FakeStages

QUICK = RetryPolicy(attempts=3, first_delay_s=0.02, max_delay_s=0.05)


@pytest.fixture(params=["sqlite", "postgresql"])
def outage(request: pytest.FixtureRequest, tmp_path: Path):
    """A store, and a real fault for it (a killed connection / a held lock) to inject."""
    if request.param == "sqlite":
        log, fault = EventLog(tmp_path / "events.db", retry=QUICK), sqlite_locked
    else:
        if not POSTGRES_URL:
            pytest.skip("RLVR_TEST_POSTGRES_URL is not set")
        url, tag = tagged(POSTGRES_URL)
        log, fault = EventLog(url, retry=QUICK), lambda: terminate_tagged(POSTGRES_URL, tag)
    yield log, fault
    log.close()


def _driver(log: EventLog, run_id: str, tmp_path: Path, stages: FakeStages) -> Driver:
    config = RunConfig(log_path=str(tmp_path))
    return Driver(
        log, run_id, config, stages.registry(), run_dir=tmp_path / run_id,
        blobs=BlobStore(tmp_path / "blobs"),
    )  # fmt: skip


def _outage_after_step(log: EventLog, faults: ExitStack, times: int, fault: Callable) -> FakeStages:
    def on_step(step: int) -> None:
        if step == 13:
            faults.enter_context(failing_inserts(log, times, fault))

    return FakeStages(on_step=on_step)


def _steps(log: EventLog, run_id: str) -> list[int]:
    return [r.event.step for r in log.read(run_id, types=["MetricsRecorded"])]


def test_retries_running_out_pause_the_run_with_the_reason_and_resume_finishes_it(
    outage: tuple[EventLog, Callable], tmp_path: Path
) -> None:
    log, fault = outage
    run_id, _ = start_run(log, RunConfig(log_path=str(tmp_path)))
    with ExitStack() as faults:
        state = _driver(log, run_id, tmp_path, _outage_after_step(log, faults, 3, fault)).run()
    assert state.state == "paused"
    reason = list(log.read(run_id, types=["RunPaused"]))[-1].event.reason
    assert reason.startswith(f"event store unavailable: append to run {run_id}")
    assert "after 3 attempts" in reason
    assert _steps(log, run_id) == [11, 12, 13]  # step 14's batch: none of it
    assert _driver(log, run_id, tmp_path, FakeStages()).run().state == "completed"
    assert _steps(log, run_id) == [*range(11, 21), *range(21, 31)]
    assert log.verify(run_id).ok


def test_a_store_that_stays_down_leaves_the_run_to_its_lease_with_a_reason(
    outage: tuple[EventLog, Callable], tmp_path: Path
) -> None:
    log, fault = outage
    run_id, _ = start_run(log, RunConfig(log_path=str(tmp_path)))
    with (
        ExitStack() as faults,
        pytest.raises(StoreUnavailable, match="the pause could not be recorded either .* lease"),
    ):
        _driver(log, run_id, tmp_path, _outage_after_step(log, faults, 6, fault)).run()
    assert _steps(log, run_id) == [11, 12, 13]
    assert not list(log.read(run_id, types=["RunPaused"]))
    assert log.verify(run_id).ok
