"""Entropy-collapse recovery.

Watches `MetricsRecorded["entropy"]` (mean token entropy of the sampled rollouts) and
`["zero_variance_frac"]` (share of groups whose rewards are all equal). GRPO learns only from
within-group reward differences: once the policy samples the same answer for every member of a
group, it stops exploring and the advantage is zero. A step has collapsed when its entropy falls
below `floor_ratio` times the mean entropy of the run's first `early_steps` steps, or when more than
`max_zero_variance_frac` of its groups carry no signal. After `consecutive_steps` collapsed steps
(counted since the last rollback or entropy recovery), recover as configured: raise the sampling
temperature, add an entropy bonus, shrink the group size, and roll back to the last checkpoint
saved before the collapse began (its onset, policies/onset.py).

All-equal rewards that come with a verifier-side signal are the reward-health policy's
(policies/reward_health.py): a scorer bug, not a collapse, so raising the temperature is the wrong
remedy. Such steps never count towards a collapse here.
"""

from __future__ import annotations

from policies import reward_health
from policies.config import EntropyPolicyConfig, PolicyConfig
from policies.onset import excursion_target, onset_seq, window_onset
from policies.signals import (
    describe_changes,
    hyperparameter,
    rollback_or_fail,
    scaled,
    since,
    trailing_run,
)
from policies.types import Decision
from store.log import StoredEvent
from store.projections import RunState

POLICY = "entropy"


def decide(state: RunState, event: StoredEvent, config: PolicyConfig) -> list[Decision]:
    cfg = config.entropy
    if not cfg.enabled or event.type != "MetricsRecorded":
        return []
    found = _collapse(state, event, config)
    if found is None:
        return []
    window, run, (metric, value, threshold, what) = found
    onset = window_onset(window, metric, run[0].step, "down" if metric == "entropy" else "up")
    reason = (
        f"entropy collapse for {len(run)} steps since step {run[0].step}: {what}; "
        f"the collapse {onset.describe()}"
    )
    evidence = [event.seq, *(m.seq for m in reversed(run[:-1]))]
    evidence += [s for s in onset_seq(window, onset) if s not in evidence]
    trigger = {"trigger_metric": metric, "value": value, "threshold": threshold}
    decisions: list[Decision] = []
    if cfg.rollback:
        target = excursion_target(state, config, onset, require_passed=False)
        decisions.append(
            rollback_or_fail(POLICY, state, target, step=window[-1].step, evidence=evidence,
                             reason=reason, onset=onset.parameters(), **trigger)
        )  # fmt: skip
        if target is None:
            return decisions
    changes = _changes(state, cfg)
    if changes:
        decisions.append(
            Decision(policy=POLICY, action="adjust_hyperparameters", evidence_seqs=evidence,
                     parameters=changes, **trigger,
                     reason=f"{reason}; recovering: {describe_changes(state, changes)}")
        )  # fmt: skip
    if not decisions:
        decisions.append(
            Decision(policy=POLICY, action="fail", evidence_seqs=evidence, **trigger,
                     reason=f"{reason}; every configured recovery ({', '.join(cfg.recoveries)}) "
                     "is at its limit and rollback is off")
        )  # fmt: skip
    return decisions


def _collapse(state: RunState, event: StoredEvent, config: PolicyConfig):
    """The window since the last rollback or recovery, the trailing run of collapsed steps (at
    least `consecutive_steps` once the reward-health policy's claimed steps are dropped) and the
    trigger read at the newest step; None when there is no collapse at this event."""
    cfg = config.entropy
    last_recovery = max(
        (seq for key, seq in state.decision_seqs.items() if key.startswith(f"{POLICY}:")),
        default=0,
    )
    window = since(state, max(state.last_rollback_seq, last_recovery))
    if not window or window[-1].seq != event.seq:
        return None
    early = state.early_metrics.get("entropy", ())[: cfg.early_steps]
    floor = cfg.floor_ratio * sum(early) / len(early) if len(early) == cfg.early_steps else None

    def low_entropy(metrics: dict) -> bool:
        value = metrics.get("entropy")
        return floor is not None and value is not None and value < floor

    def no_signal(metrics: dict) -> bool:
        value = metrics.get("zero_variance_frac")
        return value is not None and value > cfg.max_zero_variance_frac

    run = trailing_run(window, lambda m: low_entropy(m) or no_signal(m))
    if len(run) < cfg.consecutive_steps:
        return None
    run = run[reward_health.claimed_until(state, window, config, run) :]
    if len(run) < cfg.consecutive_steps:
        return None
    now = window[-1].metrics
    if low_entropy(now):
        value = now["entropy"]
        what = f"entropy {value:.4g} < floor {floor:.4g} ({cfg.floor_ratio:g} x early mean)"
        return window, run, ("entropy", value, floor, what)
    value, ceiling = now["zero_variance_frac"], cfg.max_zero_variance_frac
    what = f"{value:.0%} of groups without reward variance (ceiling {ceiling:.0%})"
    return window, run, ("zero_variance_frac", value, ceiling, what)


def _changes(state: RunState, cfg: EntropyPolicyConfig) -> dict[str, float | int]:
    changes: dict[str, float | int] = {}
    for recovery in cfg.recoveries:
        if recovery == "raise_temperature":
            temperature = scaled(
                state, "temperature", cfg.temperature_factor, upper=cfg.max_temperature
            )
            if temperature is not None:
                changes["temperature"] = temperature
        elif recovery == "entropy_bonus":
            current = hyperparameter(state, "entropy_coef") or 0.0
            bonus = min(current + cfg.entropy_bonus, cfg.max_entropy_coef)
            if bonus > current:
                changes["entropy_coef"] = bonus
        elif recovery == "shrink_group_size":
            current = hyperparameter(state, "group_size")
            if current is not None:
                size = max(int(current * cfg.group_size_factor), cfg.min_group_size)
                if size < current:
                    changes["group_size"] = size
    return changes
