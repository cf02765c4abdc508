"""The trainer's life outside memory: a fresh one from the SFT'd base model, one restored from a
checkpoint blob, and a checkpoint of the live one (written by rank 0, its digest on every rank).
A checkpoint holds weights, optimizer state and the step, never the settings in force: those are
the log's (store/settings.py), the same whichever checkpoint a run restores."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import structlog

from stages.errors import StageInterrupted
from stages.rl.session import RLSession
from stages.training.types import TrainerState
from store.errors import StoreError
from store.events import CheckpointFellBack
from store.projections import CheckpointRef

log_ = structlog.get_logger("rlvr.rl")


def fresh(session: RLSession) -> TrainerState:
    from stages.training.grpo import new_trainer_state
    from stages.training.model import load_model, make_trainable

    model, tokenizer = load_model(session.base_model_path())
    make_trainable(model, session.config.model, seed=session.config.seed)
    return new_trainer_state(model, tokenizer, session.grpo_config())


def restore(
    session: RLSession, digest: str, keep: TrainerState | None, *, fresh_optimizer: bool = False
) -> TrainerState:
    """Weights and optimizer from a checkpoint. `keep` (a rollback) keeps its step.
    `fresh_optimizer` (a rollback to a checkpoint whose optimizer state retention dropped): a
    fresh AdamW state instead."""
    from stages.training.checkpoint import restore_checkpoint

    ctx, base = session.ctx, session.base_model_path()
    if digest == ctx.state().baseline_checkpoint:
        # Step 0: the SFT'd base model itself (a model folder, not a trainer checkpoint).
        restored = fresh(session)
    elif keep is None:  # resume: the caller falls back to an older checkpoint
        restored, _, _ = restore_checkpoint(ctx.blobs, digest, base)
    else:
        from stages.training.errors import TrainingError

        if not fresh_optimizer and optimizer_missing(ctx.blobs, digest):
            # Its weights are whole but its optimizer state is gone (pruned by the run this one
            # was branched from, after the cut): the weights with a fresh AdamW state, as for a
            # checkpoint retention thinned; the same on a resume's catch-up, the blob being gone.
            log_.warning(OPTIMIZER_GONE, checkpoint=digest)
            fresh_optimizer = True
        try:
            restored, _, _ = restore_checkpoint(
                ctx.blobs, digest, base, optimizer=not fresh_optimizer
            )
        except (TrainingError, StoreError) as e:
            # A rollback is in the log: going elsewhere would contradict it. Pause with the
            # reason; the run continues once the blob is restored (e.g. from a backup).
            raise StageInterrupted(f"rollback target {digest} is unreadable: {e}") from e
    if keep is None:
        return restored
    keep.model, keep.optimizer, keep.reference = (
        restored.model,
        restored.optimizer,
        restored.reference,
    )
    return keep


class _Refused(Exception):
    """The checkpoint budget refused a checkpoint (the message says why)."""


def restore_newest_intact(session: RLSession) -> tuple[TrainerState, CheckpointRef | None]:
    """Resume's trainer: the latest checkpoint's, or, when its blobs are corrupt or missing, the
    newest intact one before it (else the base model), said in a `CheckpointFellBack` event.
    Returns the trainer and the restored checkpoint (None: the base model, so every logged step
    is replayed). A checkpoint whose optimizer state retention dropped is passed over likewise:
    the logged steps after it were taken with that state, and only it reproduces them. No intact
    base model either: the run pauses with the reason."""
    from stages.training.errors import TrainingError

    ctx = session.ctx
    state = ctx.state()
    latest = state.latest_checkpoint
    assert latest is not None
    older = [c for c in reversed(state.checkpoints) if c.seq < latest.seq]
    skipped: list[dict[str, Any]] = []
    kept = {c.digest for c in state.checkpoints}
    for ref in [latest, *older]:
        if ref.digest not in kept:  # pruned whole (for a branch: by its parent, after the cut)
            skipped.append({"step": ref.step, "checkpoint": ref.digest, "error": PRUNED})
            continue
        if not ref.optimizer:
            skipped.append({"step": ref.step, "checkpoint": ref.digest, "error": OPTIMIZER_PRUNED})
            continue
        if optimizer_missing(ctx.blobs, ref.digest):
            skipped.append({"step": ref.step, "checkpoint": ref.digest, "error": OPTIMIZER_GONE})
            continue
        try:
            trainer = restore(session, ref.digest, keep=None)
        except (TrainingError, StoreError) as e:
            log_.error("checkpoint unreadable", step=ref.step, checkpoint=ref.digest, error=str(e))
            skipped.append({"step": ref.step, "checkpoint": ref.digest, "error": str(e)[:500]})
            continue
        if skipped:
            _fell_back(session, ref.step, ref.digest, skipped)
        return trainer, ref
    base = state.baseline_checkpoint
    try:
        if base is None:
            raise StoreError("no base model was recorded")
        ctx.blobs.check_tree(base)
        trainer = fresh(session)
    except (TrainingError, StoreError, OSError) as e:
        raise StageInterrupted(
            "no intact checkpoint to resume from: "
            + "; ".join(f"step {s['step']}: {s['error']}" for s in skipped)
            + f"; base model: {e}"
        ) from e
    _fell_back(session, 0, base, skipped)
    return trainer, None


OPTIMIZER_PRUNED = (
    "its optimizer state was pruned (checkpoints.keep_optimizer_last): the logged steps after it "
    "cannot be replayed from it exactly"
)
OPTIMIZER_GONE = (
    "its weights are intact but its optimizer state is gone from the blob store (pruned by the "
    "run this one was branched from, after the cut)"
)
PRUNED = "it was pruned (for a branch: by the run it was cut from, after the cut)"
_PRUNING = (OPTIMIZER_PRUNED, OPTIMIZER_GONE, PRUNED)  # skipped by design, not by damage


def optimizer_missing(blobs: Any, digest: str) -> bool:
    """The checkpoint's files are all there but its optimizer state (existence only: no blob is
    read, whatever its size)."""
    from stages.training.checkpoint import OPTIMIZER_FILE

    try:
        manifest = blobs.manifest(digest)
    except StoreError:
        return False
    optimizer = manifest.get(OPTIMIZER_FILE)
    others = [d for rel, d in manifest.items() if rel != OPTIMIZER_FILE]
    return optimizer is not None and not blobs.exists(optimizer) and all(map(blobs.exists, others))


def _fell_back(session: RLSession, step: int, digest: str, skipped: list[dict[str, Any]]) -> None:
    steps = ", ".join(str(s["step"]) for s in skipped)
    what = f"the checkpoint of step {step}" if step else "the base model"
    unreadable = [s for s in skipped if s["error"] not in _PRUNING]
    if unreadable and len(unreadable) < len(skipped):
        why = "unreadable (corrupt or missing blobs) or without their optimizer state"
    elif unreadable:
        why = "unreadable (corrupt or missing blobs)"
    else:
        why = "pruned, or without their optimizer state: " + "; ".join(
            dict.fromkeys(s["error"] for s in skipped)
        )
    reason = f"checkpoint(s) of step {steps} {why}: resumed from {what}"
    log_.warning("resume fell back", reason=reason)
    session.ctx.emit(
        [CheckpointFellBack(step=step, checkpoint=digest, skipped=skipped, reason=reason)]
    )


def save(session: RLSession) -> str:
    """Write the live trainer's checkpoint; its digest on every rank. A checkpoint over the disk
    budget (`checkpoints.max_bytes`) or one that cannot be written (a full disk, whatever the
    exception) is not: every rank raises `StageInterrupted` with the reason, and the driver
    pauses the run."""
    from stages.training.checkpoint import save_checkpoint
    from stages.training.errors import CheckpointWriteError

    ctx, trainer = session.ctx, session.trainer

    def admit(folder: Path) -> None:
        if reason := ctx.checkpoint_refusal(folder):
            raise _Refused(reason)

    def write() -> dict[str, str]:
        try:
            return {"digest": save_checkpoint(
                trainer, ctx.blobs, session.grpo_config(), session.config.model,
                session.base_model_path(), admit=admit,
            )}  # fmt: skip
        except _Refused as e:
            return {"refused": str(e)}
        except CheckpointWriteError as e:  # a full disk, whatever type the library raised
            return {"refused": f"checkpoint of step {trainer.step} not saved: {e}"}

    result = session.on_leader(write, "checkpoint")
    if "refused" in result:
        raise StageInterrupted(result["refused"])
    return result["digest"]
