"""Batch boundaries, on every backend: each append is recorded as one batch in the same
transaction, cut points inside a batch round down, and logs without the record are refused."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from store import batches
from store.batches import CutError
from store.errors import ConcurrencyError
from store.events import MetricsRecorded, PolicyDecided, RunStarted, StateChanged
from store.log import EventLog


def _step(step: int) -> list:
    return [
        MetricsRecorded(step=step, metrics={"kl": 0.2}),
        PolicyDecided(
            policy="kl", action="adjust_hyperparameters", reason="KL high", trigger_metric="kl",
            value=0.2, threshold=0.1, evidence_seqs=[], parameters={},
        ),
    ]  # fmt: skip


def _three_batches(log: EventLog, run_id: str) -> None:
    log.append(run_id, [RunStarted(config={}, config_hash="x")], expected_seq=0)  # 1
    log.append(run_id, _step(0), expected_seq=1)  # 2..3
    log.append(run_id, _step(1), expected_seq=3)  # 4..5


def test_each_append_is_one_batch_and_a_cut_inside_one_rounds_down(
    event_log: EventLog, run_id: str
) -> None:
    _three_batches(event_log, run_id)
    assert event_log.batch_ends(run_id) == [1, 3, 5]
    assert event_log.batch_ends(run_id, to_seq=4) == [1, 3]
    assert event_log.cut_at(run_id, 3).seq == 3 and not event_log.cut_at(run_id, 3).rounded
    inside = event_log.cut_at(run_id, 4)  # between a step's metrics and the decision on it
    assert (inside.seq, inside.rounded, inside.batch_first, inside.batch_last) == (3, True, 4, 5)
    assert "inside a batch appended as one (seqs 4..5); cutting at seq 3" in inside.note(run_id)


def test_a_failed_append_records_no_batch(event_log: EventLog, run_id: str) -> None:
    _three_batches(event_log, run_id)
    with pytest.raises(ConcurrencyError):
        event_log.append(run_id, _step(2), expected_seq=1)  # stale writer
    assert event_log.batch_ends(run_id) == [1, 3, 5]


def test_a_copy_with_batch_ends_keeps_them(event_log: EventLog, run_id: str) -> None:
    _three_batches(event_log, run_id)
    copy_id = f"{run_id}-copy"
    history = [r.event for r in event_log.read(run_id, to_seq=3)]
    event_log.append(copy_id, history, 0, batch_ends=event_log.batch_ends(run_id, to_seq=3))
    assert event_log.batch_ends(copy_id) == [1, 3]


def test_a_log_written_before_boundaries_were_recorded_refuses_cuts_in_that_span(
    event_log: EventLog, run_id: str
) -> None:
    _three_batches(event_log, run_id)
    with event_log.engine.begin() as conn:  # as a database written before the side table
        conn.execute(sa.delete(batches.TABLE).where(batches.TABLE.c.run_id == run_id))
    with pytest.raises(CutError, match="no batch boundaries are recorded"):
        event_log.cut_at(run_id, 3)
    event_log.append(run_id, [StateChanged(trigger="t", source="a", dest="b")], expected_seq=5)
    assert event_log.cut_at(run_id, 5).seq == 5  # the legacy span ends where the record begins
    assert event_log.cut_at(run_id, 6).seq == 6
    with pytest.raises(CutError, match=r"seqs 1\.\.5 were written before batch boundaries"):
        event_log.cut_at(run_id, 3)


def test_an_import_keeps_the_batch_ends_it_was_given(
    event_log: EventLog, run_id: str, tmp_path: Path
) -> None:
    _three_batches(event_log, run_id)
    rows = list(event_log.read(run_id))
    other = EventLog(tmp_path / "other.db")  # another store: the same run id
    other.import_rows(rows, batch_ends=event_log.batch_ends(run_id))
    assert other.batch_ends(run_id) == [1, 3, 5]
    assert other.cut_at(run_id, 4).seq == 3
    without = EventLog(tmp_path / "old-export.db")
    without.import_rows(rows)  # an export from before the record
    with pytest.raises(CutError, match="no batch boundaries are recorded"):
        without.cut_at(run_id, 3)
