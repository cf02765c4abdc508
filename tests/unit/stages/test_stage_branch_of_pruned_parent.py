"""A branch cut before its parent's retention ran (issue 29, item 3), on the real RL loop with a
tiny model. The parent dropped the optimizer state of the checkpoints before the cut after it, and
the GC deleted those blobs before the branch existed: the branch's fold cannot see the parent's
later `CheckpointsPruned`. It used to log them as "corrupt or missing blobs", pause when a KL
rollback targeted one of them, and pause again on every `rlvr resume`.

Now the branch records what the parent pruned after the cut (its first batch), so its resume
falls back to a checkpoint with its state (or the base model) saying why, a rollback to such a
checkpoint restores its weights with a fresh AdamW state, and the run goes on; the restore also
stands on its own where nothing was recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

import stages.rl.loop as rl_loop
from orchestrator.config import load_config
from orchestrator.driver.commands import load_state, start_run, transition
from orchestrator.driver.lifecycle import branch, config_of
from policies.consequences import consequences
from policies.types import Decision
from stages.training.checkpoint import OPTIMIZER_FILE
from stages.training.model import prepare_model
from store.blobs import BlobStore
from store.events import BaselineRecorded, CheckpointsPruned, TrainingSetBuilt
from store.log import EventLog
from tests.unit.stages.test_stage_checkpoint_decisions import ROOT, STEPS, _driver, _train


@pytest.fixture
def parent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A run with a recorded base model, trained `STEPS` steps with checkpoints every 2."""
    config = load_config(
        ROOT / "configs" / "quickstart.toml",
        [f"log_path={tmp_path}", "grpo.groups_per_batch=4", "grpo.group_size=4",
         "save_every=2", "eval_every=2", "policies.kl.rollback_after_steps=64",
         "policies.rollback.enabled=false", "policies.entropy.enabled=false",
         "grpo.entropy_coef=0.5", "grpo.drop_zero_variance_groups=false",
         "grpo.learning_rate=1e-2"],
    )  # fmt: skip
    log = EventLog(tmp_path / "events.db")
    blobs = BlobStore(tmp_path / "blobs")
    run_id, _ = start_run(log, config)
    prepare_model(config.model, tmp_path / "base")
    base = blobs.put_tree(tmp_path / "base")
    transition(log, run_id, "start")
    log.append(
        run_id,
        [
            BaselineRecorded(
                verify_rate=0.5, capability={"reverse": 1.0}, n_heldout=10, checkpoint=base
            )
        ],  # fmt: skip
        log.last_seq(run_id),
    )
    while load_state(log, run_id).state != "rlvr_optimization":
        transition(log, run_id, "advance", gate_passed=True)
    monkeypatch.setattr(
        rl_loop, "evaluate", lambda ctx, model, tokenizer: (0.5, {"reverse": 1.0}, 10)
    )
    driver = _driver(tmp_path, log, run_id, config)
    ctx = driver.context()
    ids = [t.task_id for t in ctx.services.tasks.train[:16]]
    ctx.emit([TrainingSetBuilt(n_candidates=16, n_kept=16, coverage={},
                               pass_rates=dict.fromkeys(ids, 0.5))])  # fmt: skip
    _train(driver, STEPS)
    return tmp_path, log, run_id


def _saved(log: EventLog, run_id: str) -> list:
    return list(log.read(run_id, types=["CheckpointSaved"]))


def _drop_optimizer_state(tmp_path: Path, log: EventLog, run_id: str, rows: list) -> None:
    """What the parent's retention (`keep_optimizer_last`) and its GC do after the cut, before
    any branch exists: the pruning in its log, the optimizer blobs deleted."""
    blobs = BlobStore(tmp_path / "blobs")
    log.append(
        run_id,
        [CheckpointsPruned(step=STEPS, pruned=[], optimizer_dropped=[
            {"step": r.event.step, "checkpoint": r.event.checkpoint, "seq": r.seq} for r in rows],
            optimizer_reason="checkpoints.keep_optimizer_last = 0")],
        log.last_seq(run_id),
    )  # fmt: skip
    blobs.remove([blobs.manifest(r.event.checkpoint)[OPTIMIZER_FILE] for r in rows])


def _roll_back(log: EventLog, run_id: str, to) -> list:
    """The KL policy's rollback decision and its consequence, appended as the driver does."""
    state = load_state(log, run_id)
    decision = Decision(
        policy="kl", action="rollback", trigger_metric="kl", value=0.5, threshold=0.1,
        evidence_seqs=[state.metrics_window[-1].seq], reason="KL stayed high",
        parameters={"checkpoint": to.event.checkpoint, "to_step": to.event.step,
                    "from_step": state.step},
    )  # fmt: skip
    return log.append(run_id, [decision.to_event(), *consequences(state, decision)], state.last_seq)


def test_a_branch_of_a_parent_that_pruned_after_the_cut_rolls_back_and_completes(parent) -> None:
    tmp_path, log, run_id = parent
    step_2, step_4 = _saved(log, run_id)
    cut = max(end for end in log.batch_ends(run_id) if end >= step_4.seq)
    _drop_optimizer_state(tmp_path, log, run_id, [step_2, step_4])
    notes: list[str] = []
    child, at = branch(log, run_id, cut, ["grpo.learning_rate=5e-3"], say=notes.append)
    assert at == cut

    # The branch's own first batch says what the parent pruned after the cut.
    (recorded,) = [r.event for r in log.read(child, types=["CheckpointsPruned"]) if r.seq > at]
    assert {e["step"] for e in recorded.optimizer_dropped} == {2, 4}
    assert (
        f"run {run_id} dropped the optimizer state of the checkpoint(s) of step 2, 4 after seq {at}"
        in recorded.optimizer_reason
    )
    assert notes and "fresh AdamW state" in notes[-1]
    config = config_of(load_state(log, child))

    # Its resume falls back to the base model and says why: not "corrupt or missing blobs".
    _train(_driver(tmp_path, log, child, config), STEPS)
    (fell,) = [r.event for r in log.read(child, types=["CheckpointFellBack"])]
    assert fell.step == 0 and "corrupt" not in fell.reason
    assert not list(log.read(child, types=["CatchUpDiverged"]))

    # A KL rollback to step 2's checkpoint: its weights, with a fresh AdamW state; no pause.
    (rolled,) = [r.event for r in _roll_back(log, child, step_2) if r.type == "RolledBack"]
    assert rolled.fresh_optimizer is True  # the branch's fold knows the state is gone
    _train(_driver(tmp_path, log, child, config), STEPS + 2)
    final = load_state(log, child)
    assert final.latest_checkpoint.step == STEPS + 2 and final.state == "rlvr_optimization"
    assert not list(log.read(child, types=["RunPaused"]))

    # `rlvr resume` of it later (a new driver: the rollback replayed from the log) goes on too.
    _train(_driver(tmp_path, log, child, config), STEPS + 3)
    assert load_state(log, child).latest_checkpoint.step == STEPS + 3
    assert not list(log.read(child, types=["CatchUpDiverged"]))


def test_a_rollback_whose_optimizer_blob_is_gone_restores_the_weights_instead_of_pausing(
    parent,
) -> None:
    """Nothing in the log says the state is gone (the record above is missing, or it went since):
    the restore finds the weights whole and the optimizer blob absent, and restores the weights
    with a fresh AdamW state, live and on the resume after it, instead of pausing on every
    resume."""
    tmp_path, log, run_id = parent
    step_2, _ = _saved(log, run_id)
    blobs = BlobStore(tmp_path / "blobs")
    blobs.remove([blobs.manifest(step_2.event.checkpoint)[OPTIMIZER_FILE]])
    config = config_of(load_state(log, run_id))
    stored = _roll_back(log, run_id, step_2)
    assert [r.event.fresh_optimizer for r in stored if r.type == "RolledBack"] == [False]
    _train(_driver(tmp_path, log, run_id, config), STEPS + 2)
    assert load_state(log, run_id).latest_checkpoint.step == STEPS + 2
    assert not list(log.read(run_id, types=["RunPaused"]))
    _train(_driver(tmp_path, log, run_id, config), STEPS + 3)  # resumed again: still no pause
    assert load_state(log, run_id).latest_checkpoint.step == STEPS + 3
    assert not list(log.read(run_id, types=["CatchUpDiverged"]))
