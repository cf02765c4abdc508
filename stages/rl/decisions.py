"""Acting on what the log says was decided: the consequences the driver appended with a batch
(`HyperparametersChanged`, `RolledBack`) and the retries of a failed step. The same code runs live
and on a resume's catch-up, in log order, so both end with the same trainer."""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from stages.rl.checkpoints import restore
from stages.rl.session import RLSession
from stages.rl.tunables import BY_NAME
from stages.types import StageError
from store.events import PolicyDecided
from store.log import StoredEvent

log_ = structlog.get_logger("rlvr.rl")
_RETRIES = ("retry_step", "retry_smaller_microbatch")


def apply(session: RLSession, stored: Sequence[StoredEvent]) -> None:
    """Apply the consequences in `stored`, in log order."""
    trainer = session.trainer
    assert trainer is not None
    for row in stored:
        if row.type == "HyperparametersChanged":
            for key, value in row.event.changes.items():
                tunable = BY_NAME.get(key)
                if tunable is not None and tunable.lives_on == "trainer":
                    setattr(trainer, key, float(value))
                else:
                    session.overrides[key] = value
        elif row.type == "RolledBack":
            restore(
                session, row.event.checkpoint, keep=trainer,
                fresh_optimizer=row.event.fresh_optimizer,
            )  # fmt: skip
            log_.warning("rolled back", to_step=row.event.to_step, reason=row.event.reason)


def voided(stored: Sequence[StoredEvent]) -> bool:
    """The step's update was undone by a decision on it (the weights were rolled back): a
    checkpoint or eval of it would describe weights the run has left."""
    return any(row.type == "RolledBack" for row in stored)


def retry(session: RLSession, stored: Sequence[StoredEvent], attempt: int, error: Exception) -> int:
    """After `StepFailed`: the next attempt's number, or the error when no policy retried it."""
    decided = [r.event for r in stored if r.type == "PolicyDecided"]
    if not any(d.action in _RETRIES for d in decided):
        raise StageError(f"step failed and no policy retried it: {error}") from error
    for d in decided:
        split_finer(session, d)
    return attempt + 1


def split_finer(session: RLSession, decision: PolicyDecided) -> None:
    """Out of memory: this and later steps run in `micro_batches` micro-batches (the same
    effective batch; see GRPOConfig.micro_batches)."""
    if decision.action == "retry_smaller_microbatch":
        import mlx.core as mx

        session.overrides["micro_batches"] = int(decision.parameters["micro_batches"])
        mx.clear_cache()  # hand the failed attempt's buffers back before the retry
