"""The blob GC's reference cache reads, of a run that moved, only the rows after the seq it knew
(a read walks every row it spans, so a whole re-read at each pruning would grow with the run);
a rewind among the new rows makes it read the run whole. Either way it ends where a fresh read
of the whole run ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.driver.references import ReferenceCache, read_run
from store.events import CheckpointSaved, CheckpointsPruned, MetricsRecorded, RunRewound
from store.log import EventLog
from tests.tampering import synthetic_run


def _checkpoint(log: EventLog, run: str, step: int, prune: int | None = None) -> None:
    rows = [
        MetricsRecorded(step=step, metrics={}),
        CheckpointSaved(step=step, checkpoint=f"c{step}"),
    ]
    if prune is not None:
        rows.append(
            CheckpointsPruned(step=step, pruned=[{"step": prune, "checkpoint": f"c{prune}"}])
        )
    log.append(run, rows, log.last_seq(run))


def _walked(log: EventLog, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    seqs: list[int] = []
    stream = log._stream

    def counting(run, from_seq, types, to_seq, batch):
        for row in stream(run, from_seq, types, to_seq, batch):
            seqs.append(row.seq)
            yield row

    monkeypatch.setattr(log, "_stream", counting)
    return seqs


def test_a_run_that_moved_is_read_from_where_the_cache_left_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = EventLog(tmp_path / "e.db")
    synthetic_run(log, "r", 2)
    for step in (3, 4, 5):
        _checkpoint(log, "r", step, prune=step - 2 if step > 3 else None)
    cache = ReferenceCache()
    cache.refresh(log)
    known = log.last_seq("r")
    walked = _walked(log, monkeypatch)
    _checkpoint(log, "r", 6, prune=4)
    runs = cache.refresh(log)
    assert min(walked) >= known  # the row it knew, for the link, and the new ones
    assert runs["r"] == read_run(log, "r", log.last_seq("r"), rollouts=False)
    assert runs["r"].status == {
        "c2": "pruned",
        "c3": "pruned",
        "c4": "pruned",
        "c5": "live",
        "c6": "live",
    }


def test_a_rewind_among_the_new_rows_makes_it_read_the_run_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = EventLog(tmp_path / "e.db")
    synthetic_run(log, "r", 2)
    for step in (3, 4, 5):
        _checkpoint(log, "r", step)
    cache = ReferenceCache()
    cache.refresh(log)
    cut = next(r.seq for r in log.read("r", types=["CheckpointSaved"]))  # step 3's
    log.append("r", [RunRewound(to_seq=cut, reason="resume --from")], log.last_seq("r"))
    walked = _walked(log, monkeypatch)
    runs = cache.refresh(log)
    assert min(walked) == 1
    assert runs["r"] == read_run(log, "r", log.last_seq("r"), rollouts=False)
    assert runs["r"].status == {"c3": "live"}  # those the rewind abandoned are no longer live
