"""Checkpoints whose optimizer state retention dropped (`checkpoints.keep_optimizer_last`), on the
real RL loop with a tiny model: a rollback to one restores its weights with a fresh AdamW state,
the same way live and on a resume's catch-up; a resume passes over one (only the state the logged
steps were taken with reproduces them) and replays the log exactly from an older checkpoint or
the base model."""

from __future__ import annotations

import mlx.core as mx
import pytest

from orchestrator.driver.commands import load_state
from orchestrator.driver.lifecycle import branch, config_of
from stages.rl.checkpoints import OPTIMIZER_PRUNED
from store.blobs import BlobStore
from store.events import CheckpointsPruned, RolledBack
from tests.unit.stages.test_stage_checkpoint_decisions import STEPS, _driver, _train
from tests.unit.stages.test_stage_checkpoint_decisions import trained as trained  # a fixture


def _checkpoints(log, run_id) -> list:
    return [r.event for r in log.read(run_id, types=["CheckpointSaved"])]


def _adamw_updates(blobs: BlobStore, digest: str) -> int:
    """How many updates the checkpoint's AdamW state has taken (its bias-correction count)."""
    path = blobs.path(blobs.manifest(digest)["optimizer.safetensors"])
    arrays = mx.load(str(path), format="safetensors")
    return int(arrays["step"].item())


def _rolled_back_run(trained, fresh: bool) -> int:
    """Roll the trained run back to step 2's checkpoint (as the KL policy would), resume it in a
    new driver and train 2 more steps: the AdamW update count in the next checkpoint."""
    tmp_path, log, run_id, config = trained
    step_2 = _checkpoints(log, run_id)[0]
    log.append(
        run_id,
        [RolledBack(from_step=STEPS, to_step=2, checkpoint=step_2.checkpoint,
                    reason="test", fresh_optimizer=fresh)],
        expected_seq=log.last_seq(run_id),
    )  # fmt: skip
    _train(_driver(tmp_path, log, run_id, config), STEPS + 2)
    assert not list(log.read(run_id, types=["CatchUpDiverged"]))
    latest = _checkpoints(log, run_id)[-1]
    assert latest.step == STEPS + 2
    return _adamw_updates(BlobStore(tmp_path / "blobs"), latest.checkpoint)


def test_a_rollback_to_a_checkpoint_without_optimizer_state_starts_a_fresh_adamw(trained) -> None:
    assert _rolled_back_run(trained, fresh=True) == 2  # the two steps after the rollback


def test_a_rollback_to_a_checkpoint_with_optimizer_state_restores_it(trained) -> None:
    assert _rolled_back_run(trained, fresh=False) == 2 + 2  # step 2's updates, then two more


def test_a_resume_passes_over_a_checkpoint_without_optimizer_state(trained) -> None:
    tmp_path, log, run_id, config = trained
    step_2, step_4 = _checkpoints(log, run_id)
    # The log says step 4's optimizer state was dropped (as in a branch's or a `resume --from`'s
    # prefix; its blob may linger until the GC runs): a resume cannot replay from it.
    log.append(
        run_id,
        [CheckpointsPruned(step=STEPS, pruned=[], optimizer_dropped=[
            {"step": 4, "checkpoint": step_4.checkpoint, "seq": 0}])],
        expected_seq=log.last_seq(run_id),
    )  # fmt: skip
    _train(_driver(tmp_path, log, run_id, config), STEPS)
    (fell,) = [r.event for r in log.read(run_id, types=["CheckpointFellBack"])]
    assert [(s["step"], s["error"]) for s in fell.skipped] == [(4, OPTIMIZER_PRUNED)]
    assert fell.step == 2 and "without their optimizer state" in fell.reason
    # Steps 3 and 4 were replayed from step 2's checkpoint exactly as logged.
    assert not list(log.read(run_id, types=["CatchUpDiverged"]))


def test_a_branch_replays_its_parents_steps_from_the_base_model_at_the_parents_lr(
    trained,
) -> None:
    """A branch changing the LR whose resume replays the shared steps from the base model (cut
    before any checkpoint here; in a real run also when the parent's retention dropped the
    optimizer state of the checkpoints before the cut, `CheckpointFellBack`): the replay runs at
    the rates the parent's steps were taken with, and the branch's LR applies from its first own
    step on. Taking the branch's config for the replay made it diverge and the branch pause."""
    tmp_path, log, run_id, _ = trained
    first_checkpoint = next(iter(log.read(run_id, types=["CheckpointSaved"])))
    child, at = branch(log, run_id, first_checkpoint.seq - 1, ["grpo.learning_rate=0.05"])
    assert load_state(log, child).latest_checkpoint is None  # nothing to restore: the base model
    replayed = [r.event for r in log.read(child, types=["MetricsRecorded"])]
    assert replayed
    _train(_driver(tmp_path, log, child, config_of(load_state(log, child))), STEPS)
    assert not list(log.read(child, types=["CatchUpDiverged"]))
    own = [r.event for r in log.read(child, types=["MetricsRecorded"]) if r.seq > at]
    assert [m.step for m in own] == list(range(len(replayed), STEPS))
    parents = [r.event for r in log.read(run_id, types=["MetricsRecorded"])]
    # The branch's rate on its first own step (GRPO's schedule is constant), where the parent's
    # KL policy had lowered its own step by step.
    assert own[0].metrics["learning_rate_scheduled"] == 0.05
    assert parents[len(replayed)].metrics["learning_rate_scheduled"] < 0.05


@pytest.mark.parametrize(
    ("override", "metric", "value"),
    [("grpo.entropy_coef=0.3", "entropy_coef", 0.3), ("grpo.group_size=2", "group_size", 2.0)],
)
def test_a_branch_changing_a_grpo_setting_replays_its_parents_steps_with_the_parents_value(
    trained, override: str, metric: str, value: float
) -> None:
    """The same for a setting the GRPO config holds, replayed from a restored checkpoint (which
    carries only the trainer's settings and the policies' changes)."""
    tmp_path, log, run_id, _ = trained
    last = next(r for r in log.read(run_id, types=["MetricsRecorded"]) if r.event.step == STEPS - 1)
    child, at = branch(log, run_id, last.seq - 1, [override])
    assert load_state(log, child).latest_checkpoint is not None  # step 2's, then step 2 replayed
    _train(_driver(tmp_path, log, child, config_of(load_state(log, child))), STEPS)
    assert not list(log.read(child, types=["CatchUpDiverged"]))
    own = [r.event for r in log.read(child, types=["MetricsRecorded"]) if r.seq > at]
    assert [m.step for m in own] == [STEPS - 1]
    assert own[0].metrics[metric] == value != last.event.metrics[metric]
