"""Capability-regression rollback.

Watches `EvalRecorded` during training: each capability benchmark's score against its baseline
(`BaselineRecorded`). RL on one skill can quietly erase another that never appears in its batches
(KL is measured on the RL prompts only, so it cannot see this). When any benchmark falls more than
`max_capability_drop` (relative) below baseline, restore the latest checkpoint of the live
trajectory whose own evals stayed within that drop (else the baseline checkpoint), and continue with
a lower learning rate (and, if configured, a higher KL coefficient) so the same slide is less likely.

A slow slide passes several evals before one falls too far: with `onset.target = "onset"` the
target is also saved before the slide's onset (policies/onset.py), located on the benchmark's
scores (the baseline, then each eval since the last rollback within the fold's window).
"""

from __future__ import annotations

from policies.config import PolicyConfig
from policies.onset import Onset, excursion_target, locate
from policies.signals import (
    capability_drops,
    describe_changes,
    rollback_or_fail,
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
    onset = _onset(state, worst, ev.step, cfg.max_capability_drop)
    reason += f"; the slide {onset.describe()}"
    target = excursion_target(state, config, onset, require_passed=True)
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
            onset=onset.parameters(),
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


def _onset(state: RunState, benchmark: str, step: int, max_drop: float) -> Onset:
    """Where `benchmark`'s slide began: its scores from the baseline on, over the evals since the
    last rollback that the metrics window still covers; the first crossing is the first eval of
    the trailing run of evals that fell too far."""
    window = state.metrics_window
    oldest = max(state.last_rollback_seq, window[0].seq if window else 0)
    evals = [e for e in state.evals if e.seq > oldest and benchmark in e.capability]
    base = state.baseline_capability[benchmark]
    crossing = step
    for e in reversed(evals):
        if not too_far((base - e.capability[benchmark]) / base, max_drop):
            break
        crossing = e.step
    steps = [0, *(e.step for e in evals)]
    return locate(steps, [base, *(e.capability[benchmark] for e in evals)], crossing, "down")
