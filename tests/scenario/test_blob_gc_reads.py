"""The blob GC after each checkpoint reads again only the runs whose log moved since its last
pass (the store's other runs, idle, cost one query for their last seqs), and still spares what
any run names: blobs are content-addressed, so runs with no lineage in common share them."""

from __future__ import annotations

from pathlib import Path

from orchestrator.config import RunConfig
from orchestrator.driver.runner import Driver
from store.blobs import BlobStore
from store.events import CheckpointSaved
from store.log import EventLog
from tests.scenario.test_blob_gc import folder, saved
from tests.scenario.test_checkpoints_on_disk import _at_rl


class SaveThen:
    """rlvr_optimization: saves steps 1..n, calling `between(step)` after each save."""

    name = "rlvr_optimization"

    def __init__(self, work: Path, steps: int, between=lambda step: None) -> None:
        self.work, self.steps, self.between = work, steps, between

    def run(self, ctx) -> None:
        for step in range(1, self.steps + 1):
            digest = ctx.blobs.put_tree(folder(self.work / ctx.run_id, step))
            ctx.emit([CheckpointSaved(step=step, checkpoint=digest)])
            self.between(step)


def _driver(log: EventLog, tmp_path: Path, stage: SaveThen) -> Driver:
    config = RunConfig(log_path=str(tmp_path), checkpoints={"keep_last": 1})
    run_id = _at_rl(log, config)
    return Driver(log, run_id, config, {stage.name: stage}, run_dir=tmp_path / run_id,
                  blobs=BlobStore(tmp_path / "blobs"))  # fmt: skip


def test_each_pruning_reads_only_the_runs_whose_log_moved(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    for _ in range(12):  # idle runs of the same store
        _at_rl(log, RunConfig(log_path=str(tmp_path)))
    reads: list[int] = []
    stage = SaveThen(tmp_path, 4)
    d = _driver(log, tmp_path, stage)
    stage.between = lambda step: reads.append(d.references.reads)
    d._run_stage("rlvr_optimization")
    # Step 1 prunes nothing, and its pass is the orphan sweep, which reads every run in full and
    # keeps no cache; the first pruning reads all 13 runs, each later one only the driver's own.
    assert reads == [0, 13, 14, 15]
    steps = saved(log, d.run_id)
    assert [d.blobs.exists(steps[s]) for s in (1, 2, 3, 4)] == [False, False, False, True]


def test_a_run_that_names_a_checkpoint_after_the_last_pass_keeps_it(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    other = _at_rl(log, RunConfig(log_path=str(tmp_path)))

    def other_run_names_it(step: int) -> None:
        if step == 2:  # after a pass cached `other`: its log moves, so the next reads it again
            digest = saved(log, d.run_id)[2]
            log.append(other, [CheckpointSaved(step=9, checkpoint=digest)], log.last_seq(other))

    stage = SaveThen(tmp_path, 4, other_run_names_it)
    d = _driver(log, tmp_path, stage)
    d._run_stage("rlvr_optimization")
    steps = saved(log, d.run_id)
    assert d.blobs.exists(steps[2])  # pruned by this run, live in the other: kept
    d.blobs.check_tree(steps[2])
    assert [d.blobs.exists(steps[s]) for s in (1, 3, 4)] == [False, False, True]
