"""The trainer's life outside memory: a fresh one from the SFT'd base model, one restored from a
checkpoint blob, and a checkpoint of the live one (written by rank 0, its digest on every rank)."""

from __future__ import annotations

from typing import Any

from stages.common import base_model_path
from stages.rl.session import RLSession
from stages.rl.tunables import TUNABLES
from stages.training.types import TrainerState


def hyperparameters(session: RLSession) -> dict[str, Any]:
    """The settings in force, as `CheckpointSaved` records them."""
    trainer = session.trainer
    assert trainer is not None
    on_trainer = {t.name: getattr(trainer, t.name) for t in TUNABLES if t.lives_on == "trainer"}
    return {**on_trainer, **session.overrides}


def fresh(session: RLSession) -> TrainerState:
    from stages.training.grpo import new_trainer_state
    from stages.training.model import load_model, make_trainable

    model, tokenizer = load_model(base_model_path(session.ctx))
    make_trainable(model, session.config.model, seed=session.config.seed)
    return new_trainer_state(model, tokenizer, session.grpo_config())


def restore(session: RLSession, digest: str, keep: TrainerState | None) -> TrainerState:
    """Weights and optimizer from a checkpoint. `keep` (a rollback) keeps its step and settings;
    without it the session's settings become the checkpoint's."""
    from stages.training.checkpoint import read_checkpoint_state, restore_checkpoint

    ctx = session.ctx
    if digest == ctx.state().baseline_checkpoint:
        # Step 0: the SFT'd base model itself (a model folder, not a trainer checkpoint).
        restored = fresh(session)
    else:
        restored, _, _ = restore_checkpoint(ctx.blobs, digest, base_model_path(ctx))
    if keep is None:
        meta = read_checkpoint_state(ctx.blobs, digest)["meta"]
        session.overrides = dict(meta.get("overrides", {}))
        return restored
    keep.model, keep.optimizer, keep.reference = (
        restored.model,
        restored.optimizer,
        restored.reference,
    )
    return keep


def save(session: RLSession) -> str:
    from stages.training.checkpoint import save_checkpoint

    ctx, trainer = session.ctx, session.trainer
    return session.on_leader(lambda: save_checkpoint(
        trainer, ctx.blobs, session.grpo_config(), session.config.model, base_model_path(ctx),
        meta={"overrides": session.overrides},
    ), "checkpoint")  # fmt: skip
