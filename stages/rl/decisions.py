"""Acting on what the log says was decided: the rollbacks the driver appended with a batch
(`RolledBack`) and the retries of a failed step. The same code runs live and on a resume's
catch-up, in log order, so both end with the same trainer. A `HyperparametersChanged` needs no
acting on: the settings in force are the log's fold, which the next step reads."""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from stages.errors import StageError
from stages.rl.checkpoints import restore
from stages.rl.session import RLSession
from store.events import Event, RolloutsDiscarded
from store.log import StoredEvent

log_ = structlog.get_logger("rlvr.rl")
_RETRIES = ("retry_step", "retry_smaller_microbatch")


def apply(session: RLSession, stored: Sequence[StoredEvent]) -> None:
    """Apply the consequences in `stored`, in log order."""
    trainer = session.trainer
    assert trainer is not None
    for row in stored:
        if row.type == "RolledBack":
            restore(
                session, row.event.checkpoint, keep=trainer,
                fresh_optimizer=row.event.fresh_optimizer,
            )  # fmt: skip
            log_.warning("rolled back", to_step=row.event.to_step, reason=row.event.reason)
            if session.config.grpo.max_staleness:  # the batches sampled ahead: other weights
                session.services.rl.discarded += session.rollouts().rolled_back(trainer)


def discarded_events(session: RLSession) -> list[Event]:
    """The `RolloutsDiscarded` of the batches sampled ahead that rollbacks applied since the
    last call dropped (none on-policy)."""
    rl = session.services.rl
    dropped, rl.discarded = rl.discarded, []
    if not dropped:
        return []
    return [RolloutsDiscarded(
        steps=[k.step for k in dropped], policy_versions=[k.version for k in dropped],
        reason="rolled back: sampled by weights the run has left",
    )]  # fmt: skip


def voided(stored: Sequence[StoredEvent]) -> bool:
    """The step's update was undone by a decision on it (the weights were rolled back): a
    checkpoint or eval of it would describe weights the run has left."""
    return any(row.type == "RolledBack" for row in stored)


def retry(stored: Sequence[StoredEvent], attempt: int, error: Exception) -> int:
    """After `StepFailed`: the next attempt's number, or the error when no policy retried it.
    Out of memory, the faults policy's retry comes with a `HyperparametersChanged` of
    `micro_batches` (the same effective batch in more slices), in force from the retry on."""
    decided = [r.event for r in stored if r.type == "PolicyDecided"]
    if not any(d.action in _RETRIES for d in decided):
        raise StageError(f"step failed and no policy retried it: {error}") from error
    if any(d.action == "retry_smaller_microbatch" for d in decided):
        import mlx.core as mx

        mx.clear_cache()  # hand the failed attempt's buffers back before the retry
    return attempt + 1
