"""Rows and side tables that do not fit what the code writes (issue 28, red-team round 8): a
chain-consistent row whose payload breaks its event's schema, a snapshot whose state is not a
state, a `verified_prefix` seq that is text, a foreign `events` table. Each is a store error that
names the run and seq (or the table), or is skipped as the cache it is; never a Python error."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa

from orchestrator.audit.why import WHY_TYPES, explain
from store.errors import PayloadMismatchError, StoreError
from store.events import EvalRecorded
from store.log import EventLog
from store.projections import project
from store.snapshots import FOLD_KEY, fold_run
from tests.tampering import chain_holds, forge_chain, forge_snapshot, synthetic_run

RUN = "malformed"


@pytest.fixture
def log(tmp_path: Path) -> EventLog:
    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, RUN, steps=6)  # step n at seq n + 2
    return log


@pytest.mark.parametrize(
    ("change", "raw"),
    [
        ({"step": "x"}, None), ({"step": None}, None), ({}, "not json{"), ({}, "[1, 2]"),
        # red team round 15 (log 033): a metric stored as text passed `why`'s lax decoding, and
        # its window arithmetic crashed in the last-resort handler
        ({"metrics": {"kl": "0.01"}}, None),
    ],
)  # fmt: skip
def test_a_row_that_breaks_its_schema_is_refused_by_its_seq(
    log: EventLog, change: dict, raw: str | None
) -> None:
    forge_chain(log, RUN, 5, change, raw=raw)
    assert chain_holds(log, RUN)  # the chain itself holds: only the payload is wrong
    for read in (
        lambda: fold_run(log, RUN),
        lambda: project(log.read(RUN)),
        lambda: explain(log.read(RUN, types=WHY_TYPES)),
    ):
        with pytest.raises(PayloadMismatchError, match=rf"run {RUN}: seq 5: .*MetricsRecorded"):
            read()


def test_a_well_formed_run_still_folds_and_explains(log: EventLog) -> None:
    assert fold_run(log, RUN).step == 6
    explain(log.read(RUN, types=WHY_TYPES))


@pytest.mark.parametrize("state", ["{}", "not json", "[]", "null", '{"last_seq": 3}'])
def test_an_unreadable_snapshot_is_skipped_with_a_warning_naming_its_seq(
    log: EventLog, state: str, caplog: pytest.LogCaptureFixture
) -> None:
    forge_snapshot(log, RUN, 6, {}, mac=None)
    with log.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE state_snapshots SET state = :s WHERE run_id = :r AND fold_key = :k"),
            {"s": state, "r": RUN, "k": FOLD_KEY},
        )
    with caplog.at_level(logging.WARNING, logger="rlvr.store"):
        state_now = fold_run(log, RUN)
    assert state_now.step == 6 and state_now.last_seq == 8
    assert "snapshot at seq 6 skipped" in caplog.text


@pytest.mark.parametrize("value", ["abc", "", 2.5, -1])
def test_a_verified_prefix_seq_of_the_wrong_type_is_ignored(
    log: EventLog, value: object, caplog: pytest.LogCaptureFixture
) -> None:
    with log.engine.begin() as conn:
        conn.execute(sa.text("UPDATE verified_prefix SET seq = :v"), {"v": value})
    with caplog.at_level(logging.INFO, logger="rlvr.store"):
        assert chain_holds(log, RUN)
        log.check_chain(RUN)
        assert [e.seq for e in log.read(RUN)][-1] == 8
    assert "verified_prefix row ignored" in caplog.text


@pytest.mark.parametrize(
    "ddl", ["create table events (a int)", "create table events (run_id text, seq int)"]
)
def test_a_foreign_events_table_is_not_an_event_store(tmp_path: Path, ddl: str) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute(ddl)
    with pytest.raises(StoreError, match=r"is not an rlvr event store \(table events has columns"):
        EventLog(path)


@pytest.mark.parametrize("version", [99, 0, -1, 1.5])
def test_a_row_at_a_schema_version_out_of_range_is_refused_naming_run_and_seq(version) -> None:
    """Red team round 10 (s22): 'MetricsRecorded v99 is newer than this code knows (v2)' named
    neither the run nor the seq, so the operator searched the whole log for the row."""
    from store.rows import StoredEvent

    row = StoredEvent("syn", 4, "MetricsRecorded", version, "t", "0" * 64, "1" * 64,
                      '{"step": 1, "metrics": {"kl": 0.1}}')  # fmt: skip
    for read in (lambda: row.event, row.fields):
        with pytest.raises(StoreError, match=r"^run syn: seq 4: .*MetricsRecorded v"):
            read()


# Red team round 15 (log 031/035): an eval's verify rate stored as text was coerced by the lax
# schema check, kept as text in the state, and `status` crashed formatting it.
def test_a_number_stored_as_text_in_a_checked_row_is_refused(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, RUN, steps=2)
    eval_row = EvalRecorded(step=2, verify_rate=0.5, capability={"gsm8k": 0.25})
    log.append(RUN, [eval_row], expected_seq=log.last_seq(RUN))
    forge_chain(log, RUN, 5, {"verify_rate": "0.99"})
    assert chain_holds(log, RUN)
    with pytest.raises(PayloadMismatchError, match=rf"run {RUN}: seq 5: .*EvalRecorded"):
        fold_run(log, RUN)


# Red team round 16 (log 015): `branch --at-step` read each step row's `step` with int(), so a
# `step` of `[7]` (chain recomputed) crashed with a TypeError naming nothing.
def test_a_cut_by_step_refuses_a_step_row_of_the_wrong_type_by_its_seq(log: EventLog) -> None:
    from orchestrator.driver.cuts import seq_after_step

    forge_chain(log, RUN, 5, {"step": [3]})
    with pytest.raises(PayloadMismatchError, match=rf"run {RUN}: seq 5: .*MetricsRecorded"):
        seq_after_step(log, RUN, 4)


# Red team round 16 (log 005): a rollout row's `step` of 10**29 (chain recomputed) was read by the
# fold's fast path from the payload's last digits, and `status` showed step 100000000000000000000000000000.
@pytest.mark.parametrize("event", ["RolloutsSampled", "MetricsRecorded"])
def test_a_step_out_of_range_is_refused_by_its_seq(tmp_path: Path, event: str) -> None:
    from store.events import RolloutsSampled

    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, RUN, steps=2)
    rollouts = RolloutsSampled(step=3, n_groups=1, group_size=2, rewards=[[1.0, 0.0]])
    log.append(RUN, [rollouts], expected_seq=log.last_seq(RUN))
    seq = 5 if event == "RolloutsSampled" else 4
    import re

    payload = next(log.read(RUN, from_seq=seq, to_seq=seq)).payload
    forge_chain(log, RUN, seq, {}, raw=re.sub(r'"step":\d+', '"step":' + "1" + "0" * 29, payload))
    with pytest.raises(PayloadMismatchError, match=rf"run {RUN}: seq {seq}: .*{event}"):
        fold_run(log, RUN)


# Red team round 16 (log 047): a TrainingSetBuilt naming a task id the task file does not hold
# (chain recomputed) made a branch's catch-up raise KeyError into the last-resort handler.
def test_a_training_set_naming_an_unknown_task_is_a_stage_error_naming_its_seq() -> None:
    from types import SimpleNamespace

    from stages.curriculum import curriculum_of
    from stages.errors import StageError

    services = SimpleNamespace(tasks=SimpleNamespace(by_id=lambda: {"t1": "task one"}))
    assert curriculum_of(services, {"t1": 0.5}) == ["task one"]
    with pytest.raises(StageError, match=r"seq 123 names task\(s\) .*'no-such-task'"):
        curriculum_of(services, {"t1": 0.5, "no-such-task": 0.5}, 123)
