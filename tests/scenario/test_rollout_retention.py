"""Old rollout blobs follow checkpoint retention (issue 31 item 1), with the real driver, store and
blob store: when a checkpoint is pruned, the rollout blobs of the steps trained from it (up to the
next checkpoint) are named in the `CheckpointsPruned` row and deleted by the GC, unless a branch
still needs that checkpoint; the rows keep every reward, and rescoring says the text is gone."""

from __future__ import annotations

from pathlib import Path

from orchestrator.config import RunConfig
from store.blobs import BlobStore
from store.events import CheckpointSaved, RolloutsSampled
from store.log import EventLog
from store.rollouts import encode
from tests.scenario.test_blob_gc import drive, folder
from tests.scenario.test_checkpoints_on_disk import Checkpointing, _at_rl


class Stepping(Checkpointing):
    """rlvr_optimization logs steps 1..n, each its rollouts then a checkpoint of its weights."""

    def __init__(self, steps: int, work: Path) -> None:
        super().__init__("rlvr_optimization", steps, work)

    def run(self, ctx) -> None:
        for step in range(1, self.steps + 1):
            body = encode([{"task_id": "t", "completions": [f"answer {step}"], "rewards": [1.0]}],
                          [{"task_id": "t", "passed": True, "status": "ok", "reason": "ok"}])  # fmt: skip
            blob = ctx.blobs.put_bytes(body)
            ctx.emit([RolloutsSampled(step=step, n_groups=1, group_size=1, rewards=[[1.0]],
                                      blob=blob)])  # fmt: skip
            digest = ctx.blobs.put_tree(folder(self.work / ctx.run_id, step))
            ctx.emit([CheckpointSaved(step=step, checkpoint=digest)])


def _rollouts(log: EventLog, run_id: str) -> dict[int, str]:
    return {r.event.step: r.event.blob for r in log.read(run_id, types=["RolloutsSampled"])}


def test_a_pruned_checkpoints_rollouts_go_with_it(tmp_path: Path) -> None:
    log, blobs = EventLog(tmp_path / "events.db"), BlobStore(tmp_path / "blobs")
    config = RunConfig(log_path=str(tmp_path), checkpoints={"keep_last": 2})
    run_id = _at_rl(log, config)
    drive(log, run_id, config, blobs, Stepping(8, tmp_path))
    rollouts = _rollouts(log, run_id)
    pruned = [p for r in log.read(run_id, types=["CheckpointsPruned"]) for p in r.event.pruned]
    assert pruned, "retention pruned nothing: the test proves nothing"
    # Checkpoint k holds the weights after step k: step k + 1 was trained from it.
    assert all(p["rollouts"] == [rollouts[p["step"] + 1]] for p in pruned)
    gone = {p["step"] + 1 for p in pruned}
    assert [s for s in gone if blobs.exists(rollouts[s])] == []
    assert all(blobs.exists(rollouts[s]) for s in set(rollouts) - gone)
    assert 1 not in gone  # trained from the base model, which is always kept
    assert [r.event.rewards for r in log.read(run_id, types=["RolloutsSampled"])] == [[[1.0]]] * 8


def _pruned_steps(log: EventLog, run_id: str) -> list[int]:
    return [
        p["step"] for r in log.read(run_id, types=["CheckpointsPruned"]) for p in r.event.pruned
    ]


def test_a_branch_that_needs_the_checkpoint_keeps_its_rollouts(tmp_path: Path) -> None:
    config = RunConfig(log_path=str(tmp_path), checkpoints={"keep_last": 1})
    # Which checkpoint retention prunes first, on a store of its own.
    alone = EventLog(tmp_path / "alone.db")
    first_run = _at_rl(alone, config)
    drive(alone, first_run, config, BlobStore(tmp_path / "alone"), Stepping(8, tmp_path / "a"))
    k = _pruned_steps(alone, first_run)[0]

    log, blobs = EventLog(tmp_path / "events.db"), BlobStore(tmp_path / "blobs")
    # Another run of the store (a branch cut there, say) names step k's checkpoint.
    tree = blobs.put_tree(folder(tmp_path / "pre", k))
    _at_rl(log, RunConfig(log_path=str(tmp_path)), [CheckpointSaved(step=k, checkpoint=tree)])
    run_id = _at_rl(log, config)
    drive(log, run_id, config, blobs, Stepping(8, tmp_path))
    rollouts = _rollouts(log, run_id)
    assert k in _pruned_steps(log, run_id)
    assert blobs.exists(rollouts[k + 1])  # trained from step k's checkpoint: the branch needs it
    others = [s for s in _pruned_steps(log, run_id) if s != k]
    assert others and not any(blobs.exists(rollouts[s + 1]) for s in others)
