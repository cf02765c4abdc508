"""A read of a run's rows is a stream; a reader may leave it mid-way (a row refused by its seq,
a reader that found what it wanted). The stream must hold no database connection while it waits:
on PostgreSQL a pooled connection rolled back by the garbage collector while an abandoned stream
still held its cursor waited for ever (a whole test worker hung that way)."""

from __future__ import annotations

import gc

from store.events import MetricsRecorded
from store.log import EventLog


def _run(log: EventLog, run_id: str, rows: int) -> None:
    events = [MetricsRecorded(step=i, metrics={"kl": 0.01}) for i in range(1, rows + 1)]
    log.append(run_id, events, 0)


def test_a_stream_left_mid_way_holds_no_connection(event_log: EventLog, run_id: str) -> None:
    _run(event_log, run_id, 25)
    rows = event_log.read(run_id, batch=10)
    first = next(rows)
    assert first.seq == 1
    assert event_log.engine.pool.checkedout() == 0
    seqs = [first.seq, *(r.seq for r in rows)]
    assert seqs == list(range(1, 26))  # chunks of 10 read on, in order, none twice


def test_an_abandoned_stream_in_a_reference_cycle_does_not_hang_a_collection(
    event_log: EventLog, run_id: str
) -> None:
    _run(event_log, run_id, 25)

    class Holder:
        pass

    holder = Holder()
    holder.self, holder.rows = holder, event_log.read(run_id, batch=10)
    next(holder.rows)
    del holder
    gc.collect()  # would block for ever on PostgreSQL with a cursor left open
    assert [r.seq for r in event_log.read(run_id, from_seq=24)] == [24, 25]
