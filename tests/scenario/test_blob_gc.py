"""The blob GC beyond whole pruned checkpoints, with the real driver, store and blob store:
- a checkpoint kept for its weights only (`checkpoints.keep_optimizer_last`) loses its optimizer
  blob, unless another run still references the whole checkpoint;
- checkpoints a rewind (`resume --from`) abandoned are pruned and deleted, unless another run (a
  branch cut inside that span) references them;
- orphans (blobs no row of any run names: rollout text of a step that never reached the log) are
  swept after a grace period; a blob a step has just written, even one whose bytes lay there
  unreferenced before, is not; nor is anything when another event store writes there too."""

from __future__ import annotations

import os
import time
from pathlib import Path

from orchestrator.config import RunConfig
from orchestrator.driver.checkpoints import (
    claim,
    collect_garbage,
    references,
    store_identity,
    sweep_orphans,
)
from orchestrator.driver.commands import load_state
from orchestrator.driver.runner import Driver
from store.blobs import BlobStore
from store.events import CheckpointSaved, RolloutsSampled, RunRewound
from store.log import EventLog
from tests.scenario.test_checkpoints_on_disk import Checkpointing, _at_rl


def folder(root: Path, step: int, salt: str = "") -> Path:
    """A checkpoint tree: unique weights and optimizer state, a shared reference file."""
    path = root / f"ckpt-{step}{salt}"
    path.mkdir(parents=True)
    (path / "state.json").write_text(f'{{"step": {step}, "salt": "{salt}"}}')
    (path / "model.safetensors").write_bytes(f"weights {step}{salt}".encode() * 512)
    (path / "optimizer.safetensors").write_bytes(f"adamw {step}{salt}".encode() * 1024)
    (path / "reference.safetensors").write_bytes(b"reference" * 256)
    return path


class Saving(Checkpointing):
    """rlvr_optimization saves checkpoints of `steps` (their trees salted with `salt`)."""

    def __init__(self, steps: list[int], work: Path, salt: str = "") -> None:
        super().__init__("rlvr_optimization", 0, work)
        self.step_list, self.salt = steps, salt

    def run(self, ctx) -> None:
        for step in self.step_list:
            digest = ctx.blobs.put_tree(folder(self.work / ctx.run_id / self.salt, step, self.salt))
            ctx.emit([CheckpointSaved(step=step, checkpoint=digest)])


def drive(log: EventLog, run_id: str, config: RunConfig, blobs: BlobStore, stage) -> Driver:
    d = Driver(
        log, run_id, config, {"rlvr_optimization": stage}, run_dir=Path(config.log_path) / run_id,
        blobs=blobs,
    )  # fmt: skip
    stage.run(d.context())  # the stage only: its gates are not this test's
    return d


def saved(log: EventLog, run_id: str) -> dict[int, str]:
    return {r.event.step: r.event.checkpoint for r in log.read(run_id, types=["CheckpointSaved"])}


def test_older_checkpoints_lose_their_optimizer_blob_and_keep_their_weights(tmp_path: Path) -> None:
    log, blobs = EventLog(tmp_path / "events.db"), BlobStore(tmp_path / "blobs")
    config = RunConfig(log_path=str(tmp_path), checkpoints={"keep_optimizer_last": 1})
    # Another run (a branch, say) references step 1's whole checkpoint.
    step1 = blobs.put_tree(folder(tmp_path / "pre", 1))
    _at_rl(log, RunConfig(log_path=str(tmp_path)), [CheckpointSaved(step=1, checkpoint=step1)])
    run_id = _at_rl(log, config)
    drive(log, run_id, config, blobs, Saving([1, 2, 3], tmp_path))

    pruned = [r.event for r in log.read(run_id, types=["CheckpointsPruned"])]
    assert [[d["step"] for d in e.optimizer_dropped] for e in pruned] == [[1], [2]]
    assert all(e.pruned == [] and "keep_optimizer_last = 1" in e.optimizer_reason for e in pruned)
    state = load_state(log, run_id)
    assert [(c.step, c.optimizer) for c in state.checkpoints] == [(1, False), (2, False), (3, True)]
    trees = saved(log, run_id)
    assert trees[1] == step1
    blobs.check_tree(step1)  # the other run still needs its optimizer state
    step2 = blobs.manifest(trees[2])
    assert not blobs.exists(step2["optimizer.safetensors"])
    for name in ("model.safetensors", "reference.safetensors", "state.json"):
        blobs.path(step2[name])  # the weights stay, intact
    blobs.path(trees[2])  # and so does the manifest
    blobs.check_tree(trees[3])


def test_checkpoints_a_rewind_abandoned_are_pruned_unless_another_run_references_them(
    tmp_path: Path,
) -> None:
    log, blobs = EventLog(tmp_path / "events.db"), BlobStore(tmp_path / "blobs")
    config = RunConfig(
        log_path=str(tmp_path), checkpoints={"keep_last": 10, "keep_optimizer_last": None}
    )
    run_id = _at_rl(log, config)
    drive(log, run_id, config, blobs, Saving([1, 2], tmp_path))
    cut = log.last_seq(run_id)
    drive(log, run_id, config, blobs, Saving([3, 4], tmp_path))
    first = saved(log, run_id)
    # A branch cut after step 3 copied the row that names step 3's checkpoint.
    _at_rl(log, RunConfig(log_path=str(tmp_path)), [CheckpointSaved(step=3, checkpoint=first[3])])
    log.append(run_id, [RunRewound(to_seq=cut, reason="resume --from")], log.last_seq(run_id))
    # The resumed run trains on (other weights: another sampler, say) and saves step 3 anew.
    drive(log, run_id, config, blobs, Saving([3], tmp_path, salt="b"))

    (pruned,) = [r.event for r in log.read(run_id, types=["CheckpointsPruned"])]
    assert [(p["step"], p["checkpoint"]) for p in pruned.pruned] == [(3, first[3]), (4, first[4])]
    assert all("abandoned by a rewind" in p["why"] for p in pruned.pruned)
    assert load_state(log, run_id).abandoned_checkpoints == ()
    assert not blobs.exists(first[4])
    blobs.check_tree(first[3])  # the branch's
    for step in (1, 2):
        blobs.check_tree(first[step])
    blobs.check_tree(saved(log, run_id)[3])  # the new step 3


def test_a_branch_that_points_at_its_parents_prefix_keeps_the_checkpoints_it_names(
    tmp_path: Path,
) -> None:
    from store.events import RunBranched

    log, blobs = EventLog(tmp_path / "events.db"), BlobStore(tmp_path / "blobs")
    config = RunConfig(log_path=str(tmp_path), checkpoints={"keep_last": 1})
    parent = _at_rl(log, config)
    drive(log, parent, config, blobs, Saving([1], tmp_path))
    cut = log.last_seq(parent)
    # A branch by reference: its own rows say where it was cut, none names step 1's checkpoint;
    # and its own branch, cut inside the parent's prefix too.
    child = _at_rl(log, RunConfig(log_path=str(tmp_path)),
                   [RunBranched(parent_run_id=parent, parent_seq=cut)])  # fmt: skip
    _at_rl(log, RunConfig(log_path=str(tmp_path)),
           [RunBranched(parent_run_id=child, parent_seq=cut + 100)])  # fmt: skip
    log.append(parent, [RunRewound(to_seq=cut - 1, reason="resume --from")], log.last_seq(parent))
    drive(log, parent, config, blobs, Saving([2, 3], tmp_path, salt="b"))
    pruned = {
        p["step"] for r in log.read(parent, types=["CheckpointsPruned"]) for p in r.event.pruned
    }
    assert pruned == {1, 2}  # step 1 abandoned by the rewind, step 2 past keep_last
    kept = saved(log, parent)
    assert not blobs.exists(kept[2])
    for row in log.read(parent, types=["CheckpointSaved"], to_seq=cut):
        blobs.check_tree(row.event.checkpoint)  # the branch's


def _backdate(blobs: BlobStore, digest: str, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(blobs._path(digest), (then, then))


def _claimed_long_ago(blobs: BlobStore, log: EventLog) -> None:
    (blobs.root / "event-stores.txt").write_text(f"since 0\n{store_identity(log)}\n")


def _rollouts(step: int, blob: str) -> RolloutsSampled:
    return RolloutsSampled(step=step, n_groups=1, group_size=2, blob=blob, rewards=[[1.0, 0.0]])


def test_orphans_are_swept_and_every_blob_a_row_names_stays(tmp_path: Path) -> None:
    log, blobs = EventLog(tmp_path / "events.db"), BlobStore(tmp_path / "blobs")
    config = RunConfig(log_path=str(tmp_path))
    _claimed_long_ago(blobs, log)
    run_id = _at_rl(log, config)
    named = blobs.put_bytes(b'{"samples": ["named by its row"]}')
    abandoned = blobs.put_bytes(b'{"samples": ["named by an abandoned row"]}')
    orphan = blobs.put_bytes(b'{"samples": ["the step crashed before its row"]}')
    tree = blobs.put_tree(folder(tmp_path, 1))
    cut = log.last_seq(run_id)
    log.append(run_id, [_rollouts(1, abandoned)], cut)
    log.append(run_id, [RunRewound(to_seq=cut, reason="resume --from")], cut + 1)
    log.append(run_id, [_rollouts(1, named), CheckpointSaved(step=1, checkpoint=tree)], cut + 2)
    for digest in [named, abandoned, orphan, *blobs.tree_blobs(tree)]:
        _backdate(blobs, digest, 7200)

    count, freed = collect_garbage(log, blobs, orphans_older_than_s=3600)
    assert (count, freed) == (
        1,
        blobs_size := len(b'{"samples": ["the step crashed before its row"]}'),
    )
    assert blobs_size > 0 and not blobs.exists(orphan)
    assert blobs.exists(named) and blobs.exists(abandoned)  # `events` and `why` still show it
    blobs.check_tree(tree)


def test_a_blob_an_in_flight_step_wrote_after_the_gc_read_the_log_stays(tmp_path: Path) -> None:
    log, blobs = EventLog(tmp_path / "events.db"), BlobStore(tmp_path / "blobs")
    _claimed_long_ago(blobs, log)
    run_id = _at_rl(log, RunConfig(log_path=str(tmp_path)))
    text = b'{"samples": ["written twice"]}'
    # The same bytes lay there unreferenced for hours (a step that crashed before its row) ...
    digest = blobs.put_bytes(text)
    _backdate(blobs, digest, 7200)
    refs = references(log, rollouts=True)  # ... the GC reads the log: nothing names it ...
    assert blobs.put_bytes(text) == digest  # ... the retried step writes it again ...
    log.append(run_id, [_rollouts(1, digest)], log.last_seq(run_id))  # ... and names it
    assert sweep_orphans(blobs, refs, 3600, store_identity(log)) == (0, 0)
    assert blobs.exists(digest)
    # Once unwritten for longer than the grace period, an orphan goes.
    other = blobs.put_bytes(b'{"samples": ["never named"]}')
    _backdate(blobs, other, 7200)
    assert sweep_orphans(blobs, refs, 3600, store_identity(log))[0] == 1
    assert not blobs.exists(other) and blobs.exists(digest)


def test_no_orphan_is_swept_where_another_event_store_writes_too(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "blobs")
    ours, theirs = EventLog(tmp_path / "ours.db"), EventLog(tmp_path / "theirs.db")
    early = blobs.put_bytes(b"written before any store claimed this blob store")
    _backdate(blobs, early, 7200)
    claim(blobs, ours)
    time.sleep(0.01)
    late = blobs.put_bytes(b"written after the claim, named by no row")
    assert sweep_orphans(blobs, references(ours, rollouts=True), 0, store_identity(ours))[0] == 1
    assert blobs.exists(early) and not blobs.exists(late)  # older than the claim: unknown writer
    claim(blobs, theirs)
    claim(blobs, ours)  # claimed once: no second line
    assert (blobs.root / "event-stores.txt").read_text().count(store_identity(ours)) == 1
    late = blobs.put_bytes(b"written after the claim, named by no row")
    assert sweep_orphans(blobs, references(ours, rollouts=True), 0, store_identity(ours)) == (0, 0)
    assert blobs.exists(late)
