"""KL control: keep the policy near its reference.

Watches `MetricsRecorded["kl"]` (token-mean KL to the reference model). Above `limit` the update
is moving the model too far per step: lower the learning rate and/or raise the KL penalty
coefficient (`fixed`: by constant factors; `adaptive`: the coefficient scaled by KL / target, capped
at `kl_coef_factor`), then leave `adjust_every_steps` steps for the change to take effect. If KL
stays above `limit` for `rollback_after_steps` consecutive steps despite that, the run has already
drifted: roll back to the last checkpoint saved before the excursion began (its onset, located by
policies/onset.py; with `onset.target = "last_good"`, its first crossing) whose own KL (measured
on the first step trained from it) was within `limit`, and adjust again, scaling the learning rate
from the lower of the current one and the one in force when that checkpoint was saved: going back
to those weights with a learning rate that has since been raised (a branch override, a fault)
would only repeat the excursion.
"""

from __future__ import annotations

from policies.config import KLPolicyConfig, PolicyConfig
from policies.onset import excursion_target, onset_seq, window_onset
from policies.signals import (
    describe_changes,
    hyperparameter,
    rollback_or_fail,
    scaled,
    since,
)
from policies.types import Decision
from store.log import StoredEvent
from store.projections import RunState

POLICY = "kl"


def decide(state: RunState, event: StoredEvent, config: PolicyConfig) -> list[Decision]:
    cfg = config.kl
    window = since(state, state.last_rollback_seq)
    if not cfg.enabled or event.type != "MetricsRecorded" or not window:
        return []
    if window[-1].seq != event.seq:  # the state must be folded through this very event
        return []
    # The latest smoothed value first (the same slice and sum as `_smoothed`'s last): most steps
    # stop here, and the whole window is smoothed only when the KL is over the limit.
    kl = _mean_kl(window[max(0, len(window) - cfg.window) :])
    if kl is None or kl <= cfg.limit:
        return []
    smoothed = _smoothed(window, cfg.window)
    run = window[_trailing_high(smoothed, cfg.limit) :]
    # Every step the quoted mean is over, and every step of the excursion: the trigger first.
    cited = {m.seq for m in window[max(0, len(window) - cfg.window) :]} | {m.seq for m in run}
    evidence = [event.seq, *sorted(cited - {event.seq}, reverse=True)]
    if len(run) >= cfg.rollback_after_steps:
        return _roll_back(state, config, window, run, kl, evidence)
    changes = _changes(state, kl, cfg)
    last_adjust = state.decision_seqs.get(f"{POLICY}:adjust_hyperparameters", 0)
    if last_adjust and len(since(state, last_adjust)) < cfg.adjust_every_steps:
        return []  # the last adjustment has not had its steps yet
    if not changes:
        return []  # every knob is at its bound: persistence will roll back
    reason = f"KL {kl:.4g} (mean of the last {min(cfg.window, len(window))} steps) > {cfg.limit:g} at step {window[-1].step}"
    return [_adjust(state, kl, cfg, changes, evidence, reason + _off_policy(window[-1]))]


def _roll_back(
    state: RunState, config: PolicyConfig, window: list, run: list, kl: float, evidence: list[int]
) -> list[Decision]:
    """KL over the limit for `rollback_after_steps` steps despite the adjustments: roll back to
    the last checkpoint before the excursion's onset, then adjust from the learning rate in force
    at that checkpoint when it was lower than today's."""
    cfg = config.kl
    changes = _changes(state, kl, cfg)
    onset = window_onset(window, "kl", run[0].step, "up")
    reason = (
        f"KL {kl:.4g} (mean of the last {min(cfg.window, len(window))} steps) > {cfg.limit:g} for {len(run)} consecutive steps "
        f"(since step {run[0].step}); the excursion {onset.describe()}"
    )
    target = excursion_target(
        state, config, onset, require_passed=False,
        healthy=lambda ref: ref.metrics_after.get("kl") is None
        or ref.metrics_after["kl"] <= cfg.limit,
    )  # fmt: skip
    evidence += [s for s in onset_seq(window, onset) if s not in evidence]
    decisions = [
        rollback_or_fail(POLICY, state, target, step=window[-1].step, trigger_metric="kl",
                         value=kl, threshold=cfg.limit, evidence=evidence, reason=reason,
                         onset=onset.parameters())
    ]  # fmt: skip
    why = "after the KL rollback"
    saved_lr = None if target is None else target.hyperparameters.get("learning_rate")
    if saved_lr is not None and "learning_rate" in cfg.adjust:
        saved_lr = float(saved_lr)
        current = hyperparameter(state, "learning_rate")
        if current is not None and saved_lr < current:
            changes = _changes(state, kl, cfg, lr_base=saved_lr)
            why += (
                f" (learning rate scaled from the {saved_lr:.4g} in force at the "
                f"checkpoint of step {target.step})"
            )
    if target is not None and changes:
        decisions.append(_adjust(state, kl, cfg, changes, evidence, why))
    return decisions


def _off_policy(step) -> str:
    """Asynchronous rollouts: how far the sampler's weights were from the trainer's on the step
    (`logprob_gap`), so a reader can tell drift of the policy from staleness of its samples."""
    gap = step.metrics.get("logprob_gap")
    return "" if gap is None else f"; sampler-trainer log-prob gap {gap:.3g} on that step"


def _smoothed(window: tuple, width: int) -> list[float | None]:
    """Each step's KL averaged with up to `width - 1` steps before it (since the last rollback)."""
    return [_mean_kl(window[max(0, i - width + 1) : i + 1]) for i in range(len(window))]


def _mean_kl(steps: tuple) -> float | None:
    values = [v for v in (m.metrics.get("kl") for m in steps) if v is not None]
    return sum(values) / len(values) if values else None


def _trailing_high(smoothed: list[float | None], limit: float) -> int:
    """Index where the trailing run of smoothed values above `limit` starts."""
    start = len(smoothed)
    while start > 0 and smoothed[start - 1] is not None and smoothed[start - 1] > limit:
        start -= 1
    return start


def _changes(
    state: RunState, kl: float, cfg: KLPolicyConfig, lr_base: float | None = None
) -> dict[str, float]:
    changes: dict[str, float] = {}
    if "learning_rate" in cfg.adjust:
        lr = scaled(
            state, "learning_rate", cfg.lr_factor, lower=cfg.min_learning_rate, base=lr_base
        )
        if lr is not None:
            changes["learning_rate"] = lr
    if "kl_penalty_coef" in cfg.adjust:
        factor = cfg.kl_coef_factor
        if cfg.mode == "adaptive":
            factor = min(max(kl / cfg.target, 1.0), cfg.kl_coef_factor)
        coef = scaled(state, "kl_penalty_coef", factor, upper=cfg.max_kl_penalty_coef)
        if coef is not None:
            changes["kl_penalty_coef"] = coef
    return changes


def _adjust(
    state: RunState,
    kl: float,
    cfg: KLPolicyConfig,
    changes: dict[str, float],
    evidence: list[int],
    why: str,
) -> Decision:
    return Decision(
        policy=POLICY,
        action="adjust_hyperparameters",
        trigger_metric="kl",
        value=kl,
        threshold=cfg.limit,
        evidence_seqs=evidence,
        parameters=changes,
        reason=f"{why}: {describe_changes(state, changes)} ({cfg.mode} control)",
    )
