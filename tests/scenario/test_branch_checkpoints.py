"""A branch shares its parent's checkpoints through the pointer to the parent's prefix: when the
parent prunes one, the blob GC keeps it for as long as a branch may restore it."""

from __future__ import annotations

from pathlib import Path

from orchestrator.config import RunConfig
from orchestrator.driver.commands import load_state
from orchestrator.driver.lifecycle import branch
from orchestrator.driver.runner import Driver
from stages.types import StageContext
from store.blobs import BlobStore
from store.events import CheckpointSaved
from store.log import EventLog
from tests.scenario.test_checkpoints_on_disk import _at_rl, checkpoint_folder


class _Saves:
    """The RL stage saving checkpoints of the given steps."""

    def __init__(self, steps: list[int], work: Path) -> None:
        self.steps, self.work = steps, work

    def run(self, ctx: StageContext) -> None:
        for step in self.steps:
            digest = ctx.blobs.put_tree(checkpoint_folder(self.work / f"step-{step}", step))
            ctx.emit([CheckpointSaved(step=step, checkpoint=digest)])


def test_the_gc_keeps_a_pruned_checkpoint_that_a_branch_restores(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    blobs = BlobStore(tmp_path / "blobs")
    run_id = _at_rl(log, RunConfig(log_path=str(tmp_path)))
    first = blobs.put_tree(checkpoint_folder(tmp_path / "first", 1))
    log.append(run_id, [CheckpointSaved(step=1, checkpoint=first)], log.last_seq(run_id))
    child, at = branch(log, run_id, log.last_seq(run_id), [])
    assert load_state(log, child).latest_checkpoint.digest == first  # what the branch restores

    # The parent goes on with retention: step 1's checkpoint is pruned from its log.
    config = RunConfig(log_path=str(tmp_path), checkpoints={"keep_last": 1})
    stage = {"rlvr_optimization": _Saves([2, 3, 4, 5], tmp_path)}
    Driver(log, run_id, config, stage, run_dir=tmp_path / run_id, blobs=blobs)._run_stage(
        "rlvr_optimization"
    )
    pruned = [
        p["step"] for r in log.read(run_id, types=["CheckpointsPruned"]) for p in r.event.pruned
    ]
    assert 1 in pruned and 2 in pruned
    saved = {r.event.step: r.event.checkpoint for r in log.read(run_id, types=["CheckpointSaved"])}

    assert blobs.exists(first)  # only the branch, through its pointer, still needs it
    blobs.check_tree(first)
    assert not blobs.exists(saved[2])  # pruned and referenced by no run: deleted
    assert log.parent(child) is not None and log.parent(child).seq == at
