"""A checkpoint is saved after its step's decisions; the settings in force are the log's, never the
checkpoint's, so a resume from it (or from a cut just before it) ends on the uninterrupted run's
weights; a catch-up that cannot reproduce the log pauses the run with an event instead of
training on other weights.

The real RL loop on a tiny model, with the KL policy adjusting LR and KL coefficient on every
step (checkpoint steps included); evals are faked (they need stages 1-4's held-out sets)."""

from __future__ import annotations

from pathlib import Path

import pytest

import stages.rl.loop as rl_loop
import stages.rl.step as one_step
from orchestrator.config import load_config
from orchestrator.driver.commands import load_state, start_run, transition
from orchestrator.driver.runner import Driver
from stages.curriculum import curriculum_of
from stages.rl.loop import RLLoop
from stages.training.checkpoint import read_checkpoint_state
from stages.training.model import prepare_model
from stages.types import StageInterrupted
from store.blobs import BlobStore
from store.events import RunRewound, TrainingSetBuilt
from store.log import EventLog
from store.projections import project

ROOT = Path(__file__).resolve().parents[3]
STEPS = 4


@pytest.fixture
def trained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A run trained `STEPS` steps, checkpoints every 2, the KL policy acting on every step."""
    config = load_config(
        ROOT / "configs" / "quickstart.toml",
        [f"log_path={tmp_path}", "grpo.groups_per_batch=4", "grpo.group_size=4",
         "save_every=2", "eval_every=2", "policies.kl.limit=1e-12", "policies.kl.window=1",
         "policies.kl.adjust_every_steps=1", "policies.kl.rollback_after_steps=64",
         "policies.rollback.enabled=false", "policies.entropy.rollback=false",
         # Every group of an untrained model has equal (zero) rewards: the entropy policy raises
         # the temperature (a setting in force, like the LR and the KL coefficient).
         "policies.entropy.early_steps=1", "policies.entropy.consecutive_steps=1",
         "policies.entropy.max_temperature=50.0", "policies.entropy.max_recoveries=10",
         # An untrained model earns no reward: the entropy bonus alone moves it off the reference.
         "grpo.entropy_coef=0.5", "grpo.drop_zero_variance_groups=false", "grpo.learning_rate=1e-2"],
    )  # fmt: skip
    log = EventLog(tmp_path / "events.db")
    run_id, _ = start_run(log, config)
    transition(log, run_id, "start")
    while load_state(log, run_id).state != "rlvr_optimization":
        transition(log, run_id, "advance", gate_passed=True)
    monkeypatch.setattr(
        rl_loop, "evaluate", lambda ctx, model, tokenizer: (0.5, {"reverse": 1.0}, 10)
    )
    prepare_model(config.model, tmp_path / "base")
    driver = _driver(tmp_path, log, run_id, config)
    ctx = driver.context()
    ids = [t.task_id for t in ctx.services.tasks.train[:16]]
    ctx.emit([TrainingSetBuilt(n_candidates=16, n_kept=16, coverage={},
                               pass_rates=dict.fromkeys(ids, 0.5))])  # fmt: skip
    _train(driver, STEPS)
    return tmp_path, log, run_id, config


def _driver(tmp_path: Path, log: EventLog, run_id: str, config) -> Driver:
    """A driver process's view of the run (a fresh one: nothing in memory but the base model)."""
    driver = Driver(
        log, run_id, config, {}, run_dir=tmp_path / run_id, blobs=BlobStore(tmp_path / "blobs")
    )
    driver.services.base_model = tmp_path / "base"
    return driver


def _train(driver: Driver, until_step: int) -> None:
    ctx = driver.context()
    tasks = curriculum_of(
        ctx.services, driver.state.stage_results["TrainingSetBuilt"]["pass_rates"]
    )
    RLLoop(ctx).run(tasks, until_step=until_step)


def _end_of_batch_before(log: EventLog, run_id: str, seq: int) -> int:
    return max(end for end in log.batch_ends(run_id) if end < seq)


def test_each_checkpoint_follows_its_steps_decisions_and_holds_no_settings(trained) -> None:
    tmp_path, log, run_id, config = trained
    rows = list(log.read(run_id))
    saved = [r for r in rows if r.type == "CheckpointSaved"]
    changed_on = {r.seq for r in rows if r.type == "HyperparametersChanged"}
    assert len(saved) == STEPS // 2
    for row in saved:
        # The batch before the checkpoint's (its step) changed LR and KL coefficient.
        step_batch = _end_of_batch_before(log, run_id, row.seq)
        assert step_batch in changed_on
        in_force = project(log.read(run_id, to_seq=row.seq)).hyperparameters
        assert row.event.hyperparameters == in_force  # what the log says, for readers
        blob = read_checkpoint_state(BlobStore(tmp_path / "blobs"), row.event.checkpoint)
        # The settings in force are the log's alone: a checkpoint keeps no copy to restore.
        assert not {"learning_rate", "kl_penalty_coef", "current_learning_rate", "meta"} & set(blob)
    # the entropy policy's, in force at that checkpoint
    assert in_force["temperature"] > config.grpo.sampling.temperature


def test_a_resume_cut_between_a_changing_step_and_its_checkpoint_ends_on_the_same_weights(
    trained,
) -> None:
    tmp_path, log, run_id, config = trained
    rows = list(log.read(run_id))
    first, final = [r for r in rows if r.type == "CheckpointSaved"]
    cut = _end_of_batch_before(log, run_id, first.seq)  # the step batch: decisions applied
    log.append(run_id, [RunRewound(to_seq=cut, reason="test")], expected_seq=log.last_seq(run_id))
    _train(_driver(tmp_path, log, run_id, config), STEPS)
    again = [r for r in log.read(run_id, from_seq=len(rows) + 1) if r.type == "CheckpointSaved"]
    assert [r.event.checkpoint for r in again] == [first.event.checkpoint, final.event.checkpoint]


def _cut_after_step_2(log: EventLog, run_id: str) -> list:
    """Rewind to the end of step 2's batch: a resume restores the checkpoint of step 2 and
    recomputes step 2. Returns the rows as they were before the cut."""
    rows = list(log.read(run_id))
    step_3 = next(r.seq for r in rows if r.type == "RolloutsSampled" and r.event.step == 3)
    log.append(run_id, [RunRewound(to_seq=_end_of_batch_before(log, run_id, step_3),
                                   reason="test")], expected_seq=log.last_seq(run_id))  # fmt: skip
    return rows


def test_a_catch_up_that_differs_from_the_log_pauses_with_an_event(
    trained, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp_path, log, run_id, config = trained
    rows = _cut_after_step_2(log, run_id)
    # Another sampler than the one that wrote the log (as after an mlx upgrade).
    monkeypatch.setattr(one_step, "step_seed", lambda config, step, attempt: 987654 + step)
    with pytest.raises(StageInterrupted, match="could not reproduce step 2"):
        _train(_driver(tmp_path, log, run_id, config), STEPS)
    (diverged,) = log.read(run_id, types=["CatchUpDiverged"])
    assert diverged.event.step == 2 and diverged.event.checkpoint == next(
        r.event.checkpoint for r in rows if r.type == "CheckpointSaved"
    )
    assert "kl" in diverged.event.metrics
    assert not [r for r in log.read(run_id, from_seq=diverged.seq) if r.type == "CheckpointSaved"]


def test_a_catch_up_whose_step_is_not_the_logs_pauses_with_an_event(
    trained, monkeypatch: pytest.MonkeyPatch
) -> None:
    import stages.rl.resume as resume

    tmp_path, log, run_id, config = trained
    _cut_after_step_2(log, run_id)
    restore = resume.restore_newest_intact

    def one_step_ahead(session):  # a checkpoint whose trainer is not at the step the log says
        trainer, checkpoint = restore(session)
        trainer.step += 1
        return trainer, checkpoint

    monkeypatch.setattr(resume, "restore_newest_intact", one_step_ahead)
    with pytest.raises(StageInterrupted, match="could not reproduce step 2"):
        _train(_driver(tmp_path, log, run_id, config), STEPS)
    (diverged,) = log.read(run_id, types=["CatchUpDiverged"])
    assert diverged.event.metrics == {"step": {"logged": 2, "recomputed": 3}}


def test_a_distributed_catch_up_allows_float_summation_noise_and_nothing_more() -> None:
    from stages.rl.resume import _differs

    assert _differs(0.1, 0.1 + 1e-12, distributed=False)  # a world of one: exactly the log
    assert not _differs(0.1, 0.1 + 1e-9, distributed=True)  # another reduction order
    assert _differs(0.1, 0.11, distributed=True)
    assert _differs(0.1, None, distributed=True)
