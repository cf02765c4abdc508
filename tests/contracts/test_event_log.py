"""One contract for the event log, run against every backend (SQLite file, PostgreSQL)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa

from store.errors import ConcurrencyError, StoreError, UnknownRunError
from store.events import (
    GateEvaluated,
    MetricsRecorded,
    RolloutsSampled,
    RunPaused,
    RunStarted,
    StateChanged,
)
from store.log import EventLog, StoredEvent
from store.projections import project

FIXTURES = Path(__file__).parent / "fixtures"


def _opening() -> list:
    return [
        RunStarted(config={"seed": 1}, config_hash="abc"),
        StateChanged(trigger="start", source="created", dest="sft_preparation"),
    ]


def test_appended_events_read_back_equal_in_order(event_log: EventLog, run_id: str) -> None:
    stored = event_log.append(run_id, _opening(), expected_seq=0)
    more = [MetricsRecorded(step=1, metrics={"kl": 0.01, "reward_mean": 0.5})]
    event_log.append(run_id, more, expected_seq=2)

    read = list(event_log.read(run_id))
    assert [e.seq for e in read] == [1, 2, 3]
    assert [e.event for e in read] == [*_opening(), *more]
    assert read[:2] == stored
    assert [e.seq for e in event_log.read(run_id, from_seq=2)] == [2, 3]
    assert [e.type for e in event_log.read(run_id, types=["MetricsRecorded"])] == [
        "MetricsRecorded"
    ]
    assert event_log.last_seq(run_id) == 3
    assert run_id in {r.run_id for r in event_log.runs()}


def test_a_stale_writer_gets_concurrency_error_and_writes_nothing(
    event_log: EventLog, run_id: str
) -> None:
    event_log.append(run_id, _opening(), expected_seq=0)
    with pytest.raises(ConcurrencyError, match="expected last seq 1"):
        event_log.append(run_id, [RunPaused(reason="late")], expected_seq=1)
    assert event_log.last_seq(run_id) == 2


def test_a_failure_mid_batch_leaves_nothing(event_log: EventLog, run_id: str) -> None:
    event_log.append(run_id, _opening(), expected_seq=0)
    batch = [MetricsRecorded(step=s, metrics={"kl": 0.1}) for s in range(1, 6)]

    def fail_after_insert(conn, cursor, statement, parameters, context, executemany):
        if statement.startswith("INSERT INTO events"):
            raise RuntimeError("disk vanished after the rows were written")

    sa.event.listen(event_log.engine, "after_cursor_execute", fail_after_insert)
    try:
        with pytest.raises(RuntimeError, match="disk vanished"):
            event_log.append(run_id, batch, expected_seq=2)
    finally:
        sa.event.remove(event_log.engine, "after_cursor_execute", fail_after_insert)
    assert event_log.last_seq(run_id) == 2
    event_log.append(run_id, batch, expected_seq=2)  # the log is still usable
    assert event_log.last_seq(run_id) == 7


def test_two_concurrent_writers_exactly_one_wins_without_interleaving(
    store_url: str, run_id: str
) -> None:
    logs = [EventLog(store_url), EventLog(store_url)]
    logs[0].append(run_id, _opening(), expected_seq=0)
    for round_ in range(10):
        expected = logs[0].last_seq(run_id)
        barrier = threading.Barrier(2)
        outcomes: list[str] = [""] * 2
        batches = [
            [
                MetricsRecorded(step=round_, metrics={"writer": float(w), "i": float(i)})
                for i in range(20)
            ]
            for w in range(2)
        ]

        def write(
            index: int, barrier=barrier, outcomes=outcomes, batches=batches, expected=expected
        ) -> None:
            barrier.wait()
            try:
                logs[index].append(run_id, batches[index], expected_seq=expected)
                outcomes[index] = "won"
            except ConcurrencyError:
                outcomes[index] = "lost"

        threads = [threading.Thread(target=write, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) == ["lost", "won"], outcomes
        winner = float(outcomes.index("won"))
        batch = list(logs[0].read(run_id, from_seq=expected + 1))
        assert len(batch) == 20
        assert {e.event.metrics["writer"] for e in batch} == {winner}
    assert logs[0].verify(run_id).ok
    for log in logs:
        log.close()


def test_verify_names_an_edited_payload(event_log: EventLog, run_id: str) -> None:
    event_log.append(run_id, _opening(), expected_seq=0)
    event_log.append(run_id, [MetricsRecorded(step=1, metrics={"kl": 0.05})], expected_seq=2)
    event_log.append(run_id, [MetricsRecorded(step=2, metrics={"kl": 0.07})], expected_seq=3)
    assert event_log.verify(run_id).ok
    with event_log.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE events SET payload = :p WHERE run_id = :r AND seq = 3"),
            {"p": json.dumps({"step": 1, "metrics": {"kl": 0.01}}), "r": run_id},
        )
    report = event_log.verify(run_id)
    assert not report.ok and report.first_bad_seq == 3
    assert "hash" in report.reason


def test_verify_names_a_deleted_row(event_log: EventLog, run_id: str) -> None:
    event_log.append(run_id, _opening(), expected_seq=0)
    for step in range(1, 4):
        event_log.append(run_id, [MetricsRecorded(step=step, metrics={})], expected_seq=step + 1)
    with event_log.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM events WHERE run_id = :r AND seq = 4"), {"r": run_id})
    report = event_log.verify(run_id)
    assert report.first_bad_seq == 4 and "missing" in report.reason


def test_a_stored_old_version_is_upcast_on_read(event_log: EventLog) -> None:
    rows = [
        StoredEvent(**{**row, "payload": json.dumps(row["payload"])})
        for row in map(json.loads, (FIXTURES / "gate_evaluated_v1.jsonl").read_text().splitlines())
    ]
    run = rows[0].run_id
    with event_log.engine.begin() as conn:  # a fresh run id per backend keeps reruns independent
        conn.execute(sa.text("DELETE FROM events WHERE run_id = :r"), {"r": run})
    event_log.import_rows(rows)
    gate_row = next(event_log.read(run, types=["GateEvaluated"]))
    assert gate_row.schema_version == 1
    gate = gate_row.event
    assert isinstance(gate, GateEvaluated)
    assert gate.evidence_seqs == [2] and gate.detail == ""
    assert project(event_log.read(run)).gates["verifiability"].passed is True


def test_a_v2_retention_verdict_still_marks_its_checkpoint_good(event_log: EventLog) -> None:
    # v2 rows have no `judges_checkpoint`: the upcaster says which gate judged checkpoints then.
    rows = [
        StoredEvent(**{**row, "payload": json.dumps(row["payload"])})
        for row in map(json.loads, (FIXTURES / "gate_evaluated_v2.jsonl").read_text().splitlines())
    ]
    with event_log.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM events WHERE run_id = :r"), {"r": rows[0].run_id})
    event_log.import_rows(rows)
    gate = next(event_log.read(rows[0].run_id, types=["GateEvaluated"])).event
    assert isinstance(gate, GateEvaluated) and gate.judges_checkpoint is True
    assert project(event_log.read(rows[0].run_id)).last_good_checkpoint.digest == "a" * 64


def test_export_then_import_into_another_store_round_trips(
    event_log: EventLog, run_id: str, tmp_path: Path
) -> None:
    event_log.append(run_id, _opening(), expected_seq=0)
    samples = [{"prompt": "1+2=", "completion": "3", "reward": 1.0}]
    event_log.append(
        run_id, [RolloutsSampled(step=1, n_groups=1, group_size=1, samples=samples)], expected_seq=2
    )
    exported = [json.dumps(e.to_json()) for e in event_log.read(run_id)]

    rows = [
        StoredEvent(**{**d, "payload": json.dumps(d["payload"])}) for d in map(json.loads, exported)
    ]
    other = EventLog(tmp_path / "other.db")
    assert other.import_rows(rows) == 3
    assert list(other.read(run_id)) == list(event_log.read(run_id))
    assert other.verify(run_id).ok


def test_import_refuses_a_tampered_export(event_log: EventLog, run_id: str, tmp_path: Path) -> None:
    event_log.append(run_id, _opening(), expected_seq=0)
    rows = [e.to_json() for e in event_log.read(run_id)]
    rows[0]["payload"]["config_hash"] = "forged"
    tampered = [StoredEvent(**{**d, "payload": json.dumps(d["payload"])}) for d in rows]
    other = EventLog(tmp_path / "other.db")
    with pytest.raises(StoreError, match="seq 1"):
        other.import_rows(tampered)
    assert other.runs() == []


def test_unknown_run_is_named(event_log: EventLog) -> None:
    with pytest.raises(UnknownRunError, match="no run 'nope'"):
        event_log.require("nope")


def test_a_v1_verdicts_row_reads_with_its_verifier_kind_as_its_provenance(
    event_log: EventLog,
) -> None:
    # v1 rows named their verifier only: the upcaster keeps that as the kind, nothing invented.
    rows = [
        StoredEvent(**{**row, "payload": json.dumps(row["payload"])})
        for row in map(
            json.loads, (FIXTURES / "verdicts_recorded_v1.jsonl").read_text().splitlines()
        )
    ]
    with event_log.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM events WHERE run_id = :r"), {"r": rows[0].run_id})
    event_log.import_rows(rows)
    row = next(event_log.read(rows[0].run_id, types=["VerdictsRecorded"]))
    assert row.schema_version == 1 and row.event.verifier == {"kind": "math"}
    assert event_log.verify(rows[0].run_id).ok
