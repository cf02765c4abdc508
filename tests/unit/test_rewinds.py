"""The rewind rule, written once: a RunRewound at seq S to T abandons T+1 .. S-1."""

from __future__ import annotations

from pathlib import Path

from store.events import MetricsRecorded, RunRewound, RunStarted
from store.log import EventLog
from store.rewinds import Rewinds


def _log(tmp_path: Path) -> EventLog:
    log = EventLog(tmp_path / "events.db")
    log.append("r", [RunStarted(config={}, config_hash="h")], 0)
    for step in range(1, 5):  # seqs 2..5
        log.append("r", [MetricsRecorded(step=step, metrics={"kl": step / 10})], step)
    return log


def test_a_rewind_abandons_the_rows_between_its_target_and_itself(tmp_path: Path) -> None:
    log = _log(tmp_path)
    log.append("r", [RunRewound(to_seq=3)], 5)  # seq 6 abandons 4 and 5
    log.append("r", [MetricsRecorded(step=3, metrics={"kl": 0.0})], 6)
    rewinds = Rewinds.of(log.read("r"))
    assert rewinds.as_tuples() == [(4, 5, 6)]
    assert [rewinds.abandoned_by(seq) for seq in range(1, 8)] == [None] * 3 + [6, 6] + [None] * 2
    assert [r.seq for r in rewinds.kept(log.read("r"))] == [1, 2, 3, 6, 7]


def test_a_rewind_to_the_seq_before_it_abandons_nothing_and_spans_add_up(tmp_path: Path) -> None:
    log = _log(tmp_path)
    log.append("r", [RunRewound(to_seq=5)], 5)  # seq 6: nothing between 5 and 6
    log.append("r", [RunRewound(to_seq=2)], 6)  # seq 7 abandons 3..6
    rewinds = Rewinds.of(log.read("r", types=["RunRewound"]))
    assert rewinds.as_tuples() == [(3, 6, 7)]
    assert [r.seq for r in rewinds.kept(log.read("r"))] == [1, 2, 7]


def test_rows_with_decoded_payloads_follow_the_same_rule() -> None:
    class Row:
        def __init__(self, seq: int, type_: str, payload: dict) -> None:
            self.seq, self.type, self.payload = seq, type_, payload

    rewinds = Rewinds.of([Row(1, "RunStarted", {}), Row(9, "RunRewound", {"to_seq": 4})])
    assert rewinds.as_tuples() == [(5, 8, 9)]
