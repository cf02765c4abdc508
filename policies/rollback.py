"""Capability-regression rollback.

Watches `EvalRecorded` during training: each capability benchmark's score against its baseline
(`BaselineRecorded`). RL on one skill can quietly erase another that never appears in its batches
(KL is measured on the RL prompts only, so it cannot see this). When any benchmark falls more than
`max_capability_drop` (relative) below baseline, restore the latest checkpoint of the live
trajectory whose own evals stayed within that drop (else the baseline checkpoint), and continue with
a lower learning rate (and, if configured, a higher KL coefficient) so the same slide is less likely.
"""

from __future__ import annotations

from policies.config import PolicyConfig
from policies.signals import (
    capability_drops,
    describe_changes,
    rollback_or_fail,
    rollback_target,
    scaled,
    too_far,
)
from policies.types import Decision
from store.events import EvalRecorded
from store.log import StoredEvent
from store.projections import RunState

POLICY = "rollback"


def decide(state: RunState, event: StoredEvent, config: PolicyConfig) -> list[Decision]:
    cfg = config.rollback
    if not cfg.enabled or event.type != "EvalRecorded" or not state.baseline_capability:
        return []
    ev = event.event
    assert isinstance(ev, EvalRecorded)
    drops = capability_drops(ev.capability, state.baseline_capability)
    if not drops:
        return []
    worst = max(sorted(drops), key=drops.__getitem__)
    drop = drops[worst]
    if not too_far(drop, cfg.max_capability_drop):
        return []
    metric = f"capability_drop.{worst}"
    evidence = [event.seq, *([state.baseline_seq] if state.baseline_seq else [])]
    reason = (
        f"{worst} scored {ev.capability[worst]:.3f} at step {ev.step}, {drop:.1%} below its "
        f"baseline {state.baseline_capability[worst]:.3f} (allowed: {cfg.max_capability_drop:.1%})"
    )
    target = rollback_target(state, ev.step, cfg.max_capability_drop, require_passed=True)
    decisions = [
        rollback_or_fail(
            POLICY,
            state,
            target,
            step=max(state.step, ev.step),
            trigger_metric=metric,
            value=drop,
            threshold=cfg.max_capability_drop,
            evidence=evidence,
            reason=reason,
        )
    ]
    changes = {
        name: value
        for name, value in (
            ("learning_rate", scaled(state, "learning_rate", cfg.lr_factor)),
            ("kl_penalty_coef", scaled(state, "kl_penalty_coef", cfg.kl_coef_factor)),
        )
        if value is not None
    }
    if target is not None and changes:
        decisions.append(
            Decision(
                policy=POLICY,
                action="adjust_hyperparameters",
                trigger_metric=metric,
                value=drop,
                threshold=cfg.max_capability_drop,
                evidence_seqs=evidence,
                parameters=changes,
                reason=f"after the capability rollback: {describe_changes(state, changes)}",
            )
        )
    return decisions
