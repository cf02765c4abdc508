"""What a decision does to the log, beside the `PolicyDecided` itself: a pure mapping, appended in
the same transaction right after the decision, so the folded state already reflects it."""

from __future__ import annotations

from policies.types import Decision
from store.events import Event, HyperparametersChanged, RolledBack
from store.projections import RunState


def consequences(state: RunState, decision: Decision) -> list[Event]:
    if decision.action == "adjust_hyperparameters":
        return [HyperparametersChanged(changes=dict(decision.parameters), reason=decision.reason)]
    if decision.action == "rollback":
        p = decision.parameters
        return [
            RolledBack(
                from_step=int(p.get("from_step", state.step)),
                to_step=int(p["to_step"]),
                checkpoint=str(p["checkpoint"]),
                reason=decision.reason,
            )
        ]
    return []
