"""Faults: non-finite numbers, out of memory, failing steps, a failing judge.

Watches `MetricsRecorded` and `StepFailed`:

- NaN/inf in a watched metric (stored as None with `nonfinite_<name>` = 1.0): the update is
  poisoned. Skip it and roll back to the last checkpoint saved before this step.
- `judge_error_rate` above the ceiling: the judge is unreachable or refusing, rewards are missing,
  and training on the rest would teach the model whatever the fallback says. `verifier_error_rate`
  above it: each such rollout scored 0 (the response made the verifier raise), but that many point
  at a verifier bug that may be zeroing right answers. Either way pause with the reason; a person
  fixes the judge or the verifier.
- `StepFailed(kind="oom")`: retry the step with its batch split into twice as many micro-batches
  (same effective batch), at most `max_oom_retries` times per step.
- `StepFailed(kind="exception")`: retry with exponential backoff, at most `max_step_retries` times
  per step; then fail the run with the last error.

Backoff is a number in the decision, not a sleep here: the runner waits; this stays pure.
"""

from __future__ import annotations

from policies.config import FaultPolicyConfig, PolicyConfig
from policies.signals import rollback_or_fail, rollback_target
from policies.types import Decision
from store.events import StepFailed
from store.log import StoredEvent
from store.projections import RunState

POLICY = "faults"


def decide(state: RunState, event: StoredEvent, config: PolicyConfig) -> list[Decision]:
    cfg = config.faults
    if not cfg.enabled:
        return []
    if event.type == "StepFailed":
        failed = event.event
        assert isinstance(failed, StepFailed)
        return _step_failed(state, event.seq, failed, cfg)
    if event.type != "MetricsRecorded" or not state.metrics_window:
        return []
    latest = state.metrics_window[-1]
    if latest.seq != event.seq:
        return []
    return _nonfinite(state, event.seq, latest.step, latest.metrics, config) or _judge(
        event.seq, latest.step, latest.metrics, cfg
    )


def _nonfinite(
    state: RunState, seq: int, step: int, metrics: dict, config: PolicyConfig
) -> list[Decision]:
    bad = [
        name
        for name in config.faults.nonfinite_metrics
        if (metrics.get(f"nonfinite_{name}") or 0.0) >= 1.0
        or (name in metrics and metrics[name] is None)
    ]
    if not bad:
        return []
    reason = f"non-finite {', '.join(bad)} at step {step}"
    target = rollback_target(state, step, config.rollback.max_capability_drop, require_passed=False)
    skip = Decision(
        policy=POLICY,
        action="skip_update",
        trigger_metric=bad[0],
        value=None,
        threshold=None,
        evidence_seqs=[seq],
        parameters={"step": step},
        reason=f"{reason}: discarding the step's update",
    )
    rollback = rollback_or_fail(
        POLICY,
        state,
        target,
        step=step,
        trigger_metric=bad[0],
        value=None,
        threshold=None,
        evidence=[seq],
        reason=reason,
    )
    return [skip, rollback]


def _judge(seq: int, step: int, metrics: dict, cfg: FaultPolicyConfig) -> list[Decision]:
    for metric, what, why in (
        ("judge_error_rate", "judge calls failed", "rather than training on missing rewards"),
        ("verifier_error_rate", "verifications raised (each scored 0)",
         "a verifier raising this often may be zeroing right answers"),
    ):  # fmt: skip
        rate = metrics.get(metric)
        if rate is not None and rate > cfg.max_judge_error_rate:
            return [
                Decision(
                    policy=POLICY,
                    action="pause",
                    trigger_metric=metric,
                    value=rate,
                    threshold=cfg.max_judge_error_rate,
                    evidence_seqs=[seq],
                    reason=f"{rate:.0%} of {what} at step {step} (ceiling "
                    f"{cfg.max_judge_error_rate:.0%}): pausing: {why}",
                )
            ]
    return []


def _step_failed(
    state: RunState, seq: int, failed: StepFailed, cfg: FaultPolicyConfig
) -> list[Decision]:
    failures = state.step_failures.get(f"{failed.step}:{failed.kind}", 1)
    common = {
        "policy": POLICY,
        "trigger_metric": f"step_failures.{failed.kind}",
        "value": float(failures),
        "evidence_seqs": [seq],
    }
    what = f"step {failed.step} attempt {failed.attempt} failed ({failed.kind}: {failed.message})"
    if failed.kind == "oom":
        micro_batches = min(failed.micro_batches * 2, cfg.max_micro_batches)
        if failures > cfg.max_oom_retries or micro_batches == failed.micro_batches:
            return [
                Decision(
                    **common,
                    action="fail",
                    threshold=float(cfg.max_oom_retries),
                    reason=f"{what}; out of memory {failures} times, even at "
                    f"{failed.micro_batches} micro-batches",
                )
            ]
        return [
            Decision(
                **common,
                action="retry_smaller_microbatch",
                threshold=float(cfg.max_oom_retries),
                parameters={
                    "step": failed.step,
                    "attempt": failed.attempt + 1,
                    "micro_batches": micro_batches,
                },
                reason=f"{what}; retrying with {micro_batches} micro-batches, same effective batch",
            )
        ]
    if failures > cfg.max_step_retries:
        return [
            Decision(
                **common,
                action="fail",
                threshold=float(cfg.max_step_retries),
                reason=f"{what}; failed {failures} times (retries allowed: {cfg.max_step_retries})",
            )
        ]
    backoff = min(cfg.backoff_s * 2 ** (failures - 1), cfg.max_backoff_s)
    return [
        Decision(
            **common,
            action="retry_step",
            threshold=float(cfg.max_step_retries),
            parameters={"step": failed.step, "attempt": failed.attempt + 1, "backoff_s": backoff},
            reason=f"{what}; retry {failures} of {cfg.max_step_retries} in {backoff:g} s",
        )
    ]
