"""Checkpoints on disk, driven by the real driver with stand-in stages that write real blob trees:
a full disk pauses the run with the reason (also when the store itself is on that disk: one
error, no second one from the lease), retention prunes with `CheckpointsPruned` and the GC deletes
only blobs no run references (a branch keeps its parent's), the budget refuses a checkpoint that
would exceed `checkpoints.max_bytes`, and resume accepts only operational overrides."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.checkpoints import over_budget
from orchestrator.driver.commands import load_state, start_run
from orchestrator.driver.lifecycle import drive, operational_overrides
from orchestrator.driver.machine import STAGES
from orchestrator.driver.runner import Driver, RunNotPaused
from orchestrator.errors import ConfigError
from orchestrator.logging import configure
from stages.types import StageContext
from store.blobs import BlobStore
from store.errors import ConcurrencyError
from store.events import BaselineRecorded, CheckpointSaved, MetricsRecorded
from store.log import EventLog
from tests.unit.test_blobs import fill_up
from tests.unit.test_blobs import small_disk as small_disk  # a fixture

SHARED = b"reference weights: the same in every checkpoint" * 100


def checkpoint_folder(root: Path, step: int) -> Path:
    folder = root / f"ckpt-{step}"
    folder.mkdir(parents=True)
    (folder / "state.json").write_text(f'{{"step": {step}}}')
    (folder / "model.safetensors").write_bytes(step.to_bytes(4, "big") * 2048)  # 8 KiB, unique
    (folder / "reference.safetensors").write_bytes(SHARED)
    return folder


class Checkpointing:
    """sft_preparation records a baseline; rlvr_optimization saves checkpoints of steps 1..n."""

    def __init__(self, name: str, steps: int, work: Path, before=None) -> None:
        self.name, self.steps, self.work, self.before = name, steps, work, before

    def run(self, ctx: StageContext) -> None:
        if self.before is not None:
            self.before(ctx)
        if self.name == "sft_preparation":
            ctx.emit([BaselineRecorded(verify_rate=0.5, capability={}, n_heldout=1)])
        elif self.name == "rlvr_optimization":
            for step in range(1, self.steps + 1):
                digest = ctx.blobs.put_tree(checkpoint_folder(self.work / ctx.run_id, step))
                ctx.emit([CheckpointSaved(step=step, checkpoint=digest)])
        else:
            raise AssertionError("the test stops the run before this stage")


def stages(work: Path, steps: int = 5, before=None) -> dict:
    return {name: Checkpointing(name, steps, work, before) for name in STAGES}


def driver(log: EventLog, config: RunConfig, registry: dict, blobs: BlobStore) -> Driver:
    run_id, _ = start_run(log, config)
    return Driver(
        log, run_id, config, registry, run_dir=Path(config.log_path) / run_id, blobs=blobs
    )


def _rl_only(work: Path, steps: int) -> dict:
    """Only the RL stage does anything: the run starts at it (see `_at_rl`)."""
    return {"rlvr_optimization": Checkpointing("rlvr_optimization", steps, work)}


def _at_rl(log: EventLog, config: RunConfig, extra=()) -> str:
    """A run whose log already stands at stage 5 (the earlier stages' work is not this test's),
    recorded with its blob store as the driver of those stages would have recorded it."""
    from orchestrator.driver.commands import transition
    from store import blob_users

    run_id, _ = start_run(log, config)
    blob_users.record(
        log.engine, log.retry, run_id, BlobStore(Path(config.log_path) / "blobs").identity
    )
    log.append(run_id, list(extra), expected_seq=1)
    state = load_state(log, run_id)
    transition(log, run_id, "start", state=state)
    for _ in range(4):
        transition(log, run_id, "advance", state=load_state(log, run_id), gate_passed=True)
    assert load_state(log, run_id).state == "rlvr_optimization"
    return run_id


def test_retention_prunes_to_the_last_k_and_the_gc_spares_a_branchs_checkpoints(
    tmp_path: Path,
) -> None:
    log = EventLog(tmp_path / "events.db")
    blobs = BlobStore(tmp_path / "blobs")
    config = RunConfig(log_path=str(tmp_path), checkpoints={"keep_last": 2})
    # Another run of the store (a branch of this one, say) still references step 1's checkpoint.
    step1 = blobs.put_tree(checkpoint_folder(tmp_path / "pre", 1))
    other = _at_rl(
        log, RunConfig(log_path=str(tmp_path)), [CheckpointSaved(step=1, checkpoint=step1)]
    )
    run_id = _at_rl(log, config)
    d = Driver(log, run_id, config, _rl_only(tmp_path, 5), run_dir=tmp_path / run_id, blobs=blobs)
    d._run_stage("rlvr_optimization")

    pruned = [r.event for r in log.read(run_id, types=["CheckpointsPruned"])]
    assert [[p["step"] for p in e.pruned] for e in pruned] == [[1], [2], [3]]
    assert all("keep_last = 2" in e.reason for e in pruned)
    assert [k["step"] for k in pruned[-1].kept] == [4, 5]
    state = load_state(log, run_id)
    assert [c.step for c in state.checkpoints] == [4, 5]
    assert [c.step for c in state.lineage] == [4, 5]  # nothing rolls back to a pruned one
    saved = {r.event.step: r.event.checkpoint for r in log.read(run_id, types=["CheckpointSaved"])}
    for step in (2, 3):  # pruned, referenced by no run: gone, the shared file excepted
        assert not blobs.exists(saved[step])
        assert not blobs.exists(blobs_of_step(blobs, tmp_path, step))
    assert saved[1] == step1 and blobs.exists(step1)  # the other run still references it
    blobs.check_tree(step1)
    for step in (4, 5):
        blobs.check_tree(saved[step])
    assert load_state(log, other).checkpoints[0].digest == step1


def blobs_of_step(blobs: BlobStore, tmp_path: Path, step: int) -> str:
    from store.blobs import sha256_file

    return sha256_file(
        checkpoint_folder(tmp_path / "probe" / str(step), step) / "model.safetensors"
    )


def test_a_checkpoint_over_the_budget_is_refused_with_the_reason(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    blobs = BlobStore(tmp_path / "blobs")
    config = RunConfig(log_path=str(tmp_path), checkpoints={"keep_last": 2, "max_bytes": 40_000})
    run_id = _at_rl(log, config)
    d = Driver(log, run_id, config, _rl_only(tmp_path, 0), run_dir=tmp_path / run_id, blobs=blobs)
    ctx = d.context()
    for step in (1, 2):  # 2 x 8 KiB unique + 4.7 KiB shared: within 40,000
        folder = checkpoint_folder(tmp_path / "c", step)
        assert ctx.checkpoint_refusal(folder) is None
        ctx.emit([CheckpointSaved(step=step, checkpoint=blobs.put_tree(folder))])
    # Step 3 replaces step 1 among the last 2: still within.
    assert ctx.checkpoint_refusal(checkpoint_folder(tmp_path / "c", 3)) is None
    tight = config.model_copy(
        update={"checkpoints": config.checkpoints.model_copy(update={"max_bytes": 20_000})}
    )
    reason = over_budget(d.state, tight, blobs, checkpoint_folder(tmp_path / "d", 3))
    assert reason is not None
    assert "the step 3 checkpoint" in reason and "over checkpoints.max_bytes = 20,000" in reason
    assert f"rlvr resume {run_id} checkpoints.max_bytes=N" in reason


def test_a_full_disk_pauses_the_run_with_the_reason(tmp_path: Path, small_disk: Path) -> None:
    log = EventLog(tmp_path / "events.db")  # the store has room; the blobs' disk does not

    def fill(ctx: StageContext) -> None:
        fill_up(small_disk, leave=16 << 10)
        ctx.blobs.put_bytes(os.urandom(100 << 10))

    config = RunConfig(log_path=str(tmp_path))
    d = driver(log, config, stages(tmp_path, before=fill), BlobStore(small_disk / "blobs"))
    state = d.run()
    assert state.state == "paused" and state.paused_from == "sft_preparation"
    paused = [r.event.reason for r in log.read(d.run_id, types=["RunPaused"])]
    assert len(paused) == 1 and "disk full" in paused[0] and "the disk is full" in paused[0]
    assert list((small_disk / "blobs").glob(".tmp-*")) == []


def test_a_driver_whose_run_another_took_is_told_so_not_to_free_space(
    tmp_path: Path, small_disk: Path
) -> None:
    """Red team round 25 (log 005): a driver stalled past its lease while another resumed the
    run; its pause then could not land, and the error advised freeing space."""
    log = EventLog(tmp_path / "events.db")
    config = RunConfig(log_path=str(tmp_path), lease_ttl_s=5)

    def taken_then_full(ctx: StageContext) -> None:
        other = MetricsRecorded(step=99, metrics={})  # another driver's append
        log.append(ctx.run_id, [other], expected_seq=log.last_seq(ctx.run_id))
        fill_up(small_disk, leave=16 << 10)
        ctx.blobs.put_bytes(os.urandom(100 << 10))

    d = driver(log, config, stages(tmp_path, before=taken_then_full), BlobStore(small_disk / "b"))
    with pytest.raises(ConcurrencyError, match="another process appended to it first") as caught:
        d.run()
    assert "free space" not in str(caught.value)


def test_with_the_store_on_the_full_disk_the_run_stops_with_one_error(
    tmp_path: Path, small_disk: Path, capfd
) -> None:
    log = EventLog(small_disk / "events.db")
    config = RunConfig(log_path=str(small_disk), lease_ttl_s=5)
    run_id, _ = start_run(log, config)

    def fill(ctx: StageContext) -> None:
        fill_up(small_disk)
        ctx.blobs.put_bytes(os.urandom(64 << 10))

    with pytest.raises(RunNotPaused) as caught:
        drive(log, run_id, config, stages(tmp_path, before=fill))
    message = str(caught.value)
    assert "the disk is full" in message and "pause could not be recorded" in message
    assert f"rlvr resume {run_id}" in message
    # The run's own log file is on that disk too: one notice, not logging's traceback per line,
    # and the next driver of this process can still set up its log.
    for _ in range(3):
        logging.getLogger("rlvr.runner").warning("a later line " + "x" * 8192)
    configure(json_file=tmp_path / "next" / "driver.jsonl")
    printed = capfd.readouterr().err
    assert "Traceback" not in printed and "Logging error" not in printed
    assert printed.count("lines dropped") <= 1
    assert list((small_disk / "blobs").glob(".tmp-*")) == []


def test_resume_accepts_operational_overrides_only(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    run_id, _ = start_run(log, RunConfig(log_path=str(tmp_path)))
    state = load_state(log, run_id)
    assert operational_overrides(state, ["checkpoints.max_bytes=1000000", "keep_last=3"]) == [
        "checkpoints.max_bytes=1000000", "keep_last=3",
    ]  # fmt: skip
    assert operational_overrides(state, ["checkpoints.keep_optimizer_last=5"]) == [
        "checkpoints.keep_optimizer_last=5"
    ]
    with pytest.raises(ConfigError, match="resume cannot change 'grpo.learning_rate'.*rlvr branch"):
        operational_overrides(state, ["grpo.learning_rate=0.1"])
    with pytest.raises(ConfigError, match="checkpoints.max_bytes"):
        operational_overrides(state, ["checkpoints.max_bytes=-5"])
