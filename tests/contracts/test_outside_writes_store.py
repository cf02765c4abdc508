"""The store side of the outside-write rule, on SQLite and PostgreSQL alike: queued events are
appended after a lease holder's batch in its transaction and leave the queue with it; a run
label lives outside the chain; runs are found by the start of their id."""

from __future__ import annotations

from orchestrator.driver.outside_writes import append_or_queue
from store.events import ModelExported, RunStarted, StageStarted
from store.labels import RunLabels
from store.leases import LeaseTable
from store.log import EventLog
from store.requests import pending_for
from store.run_lookup import starting_with


def _exported(step: int) -> ModelExported:
    return ModelExported(checkpoint="d" * 64, step=step, which="final", out="m", layout="full")


def test_queued_events_follow_the_lease_holders_batch_once(
    event_log: EventLog, run_id: str
) -> None:
    event_log.append(run_id, [RunStarted(config={}, config_hash="h")], 0)
    LeaseTable(event_log).acquire(run_id, "driver-a", 60)
    written = append_or_queue(event_log, run_id, [_exported(1), _exported(2)], by="test")
    assert written.queued_for == "driver-a" and event_log.last_seq(run_id) == 1
    assert pending_for(event_log.engine, run_id).queued == 2
    rows = event_log.append(run_id, [StageStarted(stage="x")], 1, drain_requests=True)
    assert [r.type for r in rows] == ["StageStarted", "ModelExported", "ModelExported"]
    assert [r.event.step for r in rows[1:]] == [1, 2]  # in the order queued
    assert pending_for(event_log.engine, run_id).queued == 0
    assert event_log.append(run_id, [], 4, drain_requests=True) == []  # nothing left to drain
    assert event_log.verify(run_id).ok


def test_a_finished_runs_record_is_appended_under_its_lease(
    event_log: EventLog, run_id: str
) -> None:
    event_log.append(run_id, [RunStarted(config={}, config_hash="h")], 0)
    written = append_or_queue(event_log, run_id, [_exported(3)], by="test")
    assert [r.seq for r in written.rows] == [2] and LeaseTable(event_log).get(run_id) is None


def test_a_label_stays_outside_the_chain_and_a_prefix_finds_the_run(
    event_log: EventLog, run_id: str
) -> None:
    event_log.append(run_id, [RunStarted(config={}, config_hash="h")], 0)
    labels = RunLabels(event_log)
    assert labels.set_hidden(run_id, True, by="t") and run_id in labels.hidden()
    assert not labels.set_hidden(run_id, True, by="t")  # already hidden
    assert labels.set_hidden(run_id, False, by="t") and run_id not in labels.hidden()
    assert event_log.last_seq(run_id) == 1
    assert starting_with(event_log, run_id[:-3]) == [run_id]
