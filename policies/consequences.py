"""What a decision does to the log, beside the `PolicyDecided` itself: a pure mapping, appended in
the same transaction right after the decision, so the folded state already reflects it."""

from __future__ import annotations

from policies.types import Decision
from store.events import Event, HyperparametersChanged, RolledBack
from store.projections import RunState


def consequences(state: RunState, decision: Decision) -> list[Event]:
    """The events that carry out `decision`. Every change of a setting in force (store/settings.py)
    is a `HyperparametersChanged`, whichever decision made it: the log's fold is their one home."""
    if decision.action == "adjust_hyperparameters":
        return [HyperparametersChanged(changes=dict(decision.parameters), reason=decision.reason)]
    if decision.action == "retry_smaller_microbatch":
        micro_batches = int(decision.parameters["micro_batches"])
        return [HyperparametersChanged(changes={"micro_batches": micro_batches},
                                       reason=decision.reason)]  # fmt: skip
    if decision.action == "rollback":
        p = decision.parameters
        target = str(p["checkpoint"])
        # Retention dropped its optimizer state (checkpoints.keep_optimizer_last): the weights
        # come back with a fresh AdamW state, said here so `why` and `replay` show it.
        fresh = any(c.digest == target and not c.optimizer for c in state.checkpoints)
        reason = decision.reason
        if fresh:
            reason += (
                "; its optimizer state was pruned (checkpoints.keep_optimizer_last): "
                "the weights are restored with a fresh AdamW state"
            )
        return [
            RolledBack(
                from_step=int(p.get("from_step", state.step)),
                to_step=int(p["to_step"]),
                checkpoint=target,
                reason=reason,
                fresh_optimizer=fresh,
            )
        ]
    return []
