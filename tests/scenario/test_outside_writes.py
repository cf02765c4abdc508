"""The one rule for writing to a run another process may drive (orchestrator/driver/outside_writes
.py): a record for a run whose lease is live is queued and appended by its driver with its next
batch; a finished run's is appended at once under the lease, taken and let go. Either way the
run's chain stays whole and each record is in it once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from orchestrator.config import RunConfig
from orchestrator.driver.commands import load_state, start_run
from orchestrator.driver.lifecycle import drive, resume
from orchestrator.driver.outside_writes import append_or_queue
from store.events import ModelExported
from store.leases import LeaseTable
from store.log import EventLog
from store.requests import pending_for, queue_for
from tests.scenario.fake_stages import FakeStages
from tests.slow.runs import wait_until


def _record(step: int) -> ModelExported:
    return ModelExported(checkpoint="c" * 64, step=step, which=f"step {step}", out="m",
                         layout="full")  # fmt: skip


def _exports(log: EventLog, run_id: str) -> list:
    return list(log.read(run_id, types=["ModelExported"]))


def test_a_finished_run_gets_the_record_at_once_under_a_lease_it_lets_go(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    config = RunConfig(log_path=str(tmp_path))
    run_id, _ = start_run(log, config)
    drive(log, run_id, config, FakeStages().registry())
    last = log.last_seq(run_id)
    written = append_or_queue(log, run_id, [_record(30)], by="test")
    assert written.queued_for is None and [r.seq for r in written.rows] == [last + 1]
    assert f"at seq {last + 1}" in written.said(run_id)
    assert LeaseTable(log).get(run_id) is None  # taken for the append, then let go
    assert log.verify(run_id).ok and pending_for(log.engine, run_id).queued == 0


def test_a_live_runs_record_is_queued_and_its_driver_appends_it_with_its_next_batch(
    tmp_path: Path,
) -> None:
    job = subprocess.Popen(
        [sys.executable, "-m", "tests.scenario.waiting_driver", str(tmp_path), "5"],
        env={**os.environ, "RLVR_LOG_LEVEL": "WARNING"}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_until(lambda: (tmp_path / "ready").exists() or job.poll() is not None,
                   timeout=120, what="the driver to reach step 12")  # fmt: skip
        log = EventLog(tmp_path / "events.db")
        run_id = (tmp_path / "run_id").read_text()
        before = log.last_seq(run_id)
        written = append_or_queue(log, run_id, [_record(12)], by="test")
        assert written.rows == [] and written.queued_for == LeaseTable(log).get(run_id).owner
        assert "appends with its next batch" in written.said(run_id)
        assert log.last_seq(run_id) == before and pending_for(log.engine, run_id).queued == 1
        (tmp_path / "go").write_text("1")
        _, err = job.communicate(timeout=120)
    finally:
        if job.poll() is None:
            job.kill()
    assert job.returncode == 0, err[-3000:]
    assert (tmp_path / "done").read_text() == "completed"  # no append of the driver's broke
    [exported] = _exports(log, run_id)
    assert exported.seq > before and exported.event.step == 12
    assert pending_for(log.engine, run_id).queued == 0 and log.verify(run_id).ok


def test_a_driver_taking_the_lease_appends_what_waited_in_the_queue(tmp_path: Path) -> None:
    """A record queued in the moment a driver let its lease go waits for the next holder."""
    log = EventLog(tmp_path / "events.db")
    config = RunConfig(log_path=str(tmp_path))
    run_id, _ = start_run(log, config)
    stages = FakeStages(metrics_at=lambda s: {"judge_error_rate": 1.0} if s == 13 else {})
    assert drive(log, run_id, config, stages.registry()).state == "paused"
    queue_for(log.engine, log.retry, run_id, [_record(13)], queued_by="test")
    state = resume(log, run_id, stages.registry())
    assert state.state == "completed"
    [exported] = _exports(log, run_id)
    acquired = [r.seq for r in log.read(run_id, types=["LeaseAcquired"])][-1]
    assert exported.seq == acquired + 1  # in the batch that took the lease
    assert (
        load_state(log, run_id).state == "completed" and pending_for(log.engine, run_id).queued == 0
    )
