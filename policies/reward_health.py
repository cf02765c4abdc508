"""Reward health: rewards or responses that look broken, whatever the model's entropy says.

Watches `MetricsRecorded`. Each rule holds for `consecutive_steps` steps (counted since the last
rollback or reward-health decision) before it acts:

- `all_equal_rewards`: every scored reward of the step is equal (`reward_std` 0), together with a
  verifier-side signal. A scorer that silently returns zeros looks exactly like a collapsed policy
  to the entropy policy, whose remedy (a hotter sampler) would only burn steps; this policy owns
  such steps, and the entropy policy does not count them (`claimed_until`).
- `zero_variance`: more than `max_zero_variance_frac` of groups without reward variance, with a
  verifier-side signal (a scorer zeroing one category).
- `response_length`: the mean response length (`response_len`) above `max_length_ratio` or below
  `min_length_ratio` times its mean over the run's first `early_steps` steps.
- `repetition`: more than `max_repetition_share` of responses repetitive (`repetition_share`:
  repeated 4-grams or highly compressible text; logged since issue 31, so older logs cannot
  show it: `inactive_rules` says so).

A verifier-side signal: the verify rate moved by at least `max_verdict_shift` from its mean over
the `reference_steps` steps before the run; for equal rewards also, every group of the run
without variance being less likely than `max_chance` at the zero-variance share of those steps
(a weak model's rare passes all vanishing); or any verification raised (`verifier_error_rate`),
any judge call failed (`judge_error_rate`) or was an injection (`judge_injection_rate`). Those
rates are the faults policy's and the judge's to act on: above the faults policy's ceiling it
pauses first (it runs first, and a pause ends the evaluation); here they are only evidence.

A finding pauses (`action = "pause"`: the reason names where the excursion began and the checkpoint
before it) or rolls back there (`action = "rollback"`), the onset located by policies/onset.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from policies.config import PolicyConfig, RewardHealthPolicyConfig
from policies.onset import excursion_target, onset_seq, window_onset
from policies.signals import rollback_or_fail, since, trailing_run
from policies.types import Decision
from store.log import StoredEvent
from store.projections import MetricsRef, RunState

POLICY = "reward_health"
ERROR_RATES = ("verifier_error_rate", "judge_error_rate", "judge_injection_rate")
# Each rule and the metrics it reads: a log without them cannot show the rule acting.
RULE_INPUTS: dict[str, tuple[str, ...]] = {
    "all_equal_rewards": ("reward_std",),  # `scored_groups` sharpens it, where logged
    "zero_variance": ("zero_variance_frac",),
    "response_length": ("response_len",),
    "repetition": ("repetition_share",),
}


@dataclass(frozen=True)
class Finding:
    rule: str
    metric: str
    value: float
    threshold: float
    direction: Literal["up", "down"]
    run: tuple[MetricsRef, ...]
    what: str


def decide(state: RunState, event: StoredEvent, config: PolicyConfig) -> list[Decision]:
    cfg = config.reward_health
    if not cfg.enabled or event.type != "MetricsRecorded":
        return []
    last = max(
        (seq for key, seq in state.decision_seqs.items() if key.startswith(f"{POLICY}:")),
        default=0,
    )
    window = since(state, max(state.last_rollback_seq, last))
    if not window or window[-1].seq != event.seq:
        return []
    finding = _first_finding(state, window, cfg)
    if finding is None:
        return []
    return [_act(state, window, config, finding)]


def _first_finding(
    state: RunState, window: tuple[MetricsRef, ...], cfg: RewardHealthPolicyConfig
) -> Finding | None:
    k = cfg.consecutive_steps
    full = state.metrics_window
    equal = trailing_run(window, _all_equal)
    if len(equal) >= k and (signal := verifier_signal(full, equal, cfg)):
        return Finding("all_equal_rewards", "reward_std", 0.0, 0.0, "down", equal,
                       f"every reward equal ({_value(equal[-1], 'reward_mean')}) with {signal}")  # fmt: skip
    spread = trailing_run(
        window, lambda m: _above(m, "zero_variance_frac", cfg.max_zero_variance_frac)
    )
    if len(spread) >= k and (signal := verifier_signal(full, spread, cfg, falls_only=True)):
        value = spread[-1].metrics["zero_variance_frac"]
        return Finding("zero_variance", "zero_variance_frac", value, cfg.max_zero_variance_frac,
                       "up", spread, f"{value:.0%} of groups without reward variance "
                       f"(ceiling {cfg.max_zero_variance_frac:.0%}) with {signal}")  # fmt: skip
    early = state.early_metrics.get("response_len", ())[: cfg.early_steps]
    if len(early) == cfg.early_steps:
        base = sum(early) / len(early)
        for ratio, direction, word in ((cfg.max_length_ratio, "up", "blow-up"),
                                       (cfg.min_length_ratio, "down", "collapse")):  # fmt: skip
            limit = base * ratio
            run = trailing_run(window, lambda m, lim=limit, d=direction: _beyond(m, lim, d))
            if len(run) >= k:
                value = run[-1].metrics["response_len"]
                return Finding("response_length", "response_len", value, limit, direction, run,
                               f"response length {word}: mean {value:.4g} tokens vs "
                               f"{ratio:g} x its early mean {base:.4g}")  # fmt: skip
    reps = trailing_run(window, lambda m: _above(m, "repetition_share", cfg.max_repetition_share))
    if len(reps) >= k:
        value = reps[-1].metrics["repetition_share"]
        return Finding("repetition", "repetition_share", value, cfg.max_repetition_share, "up",
                       reps, f"{value:.0%} of responses repetitive "
                       f"(ceiling {cfg.max_repetition_share:.0%})")  # fmt: skip
    return None


def _act(
    state: RunState, window: tuple[MetricsRef, ...], config: PolicyConfig, finding: Finding
) -> Decision:
    cfg = config.reward_health
    run = finding.run
    onset = window_onset(window, finding.metric, run[0].step, finding.direction)
    reason = (
        f"reward health rule {finding.rule}: {finding.what} for {len(run)} steps (steps "
        f"{run[0].step}-{run[-1].step}; policies.reward_health.consecutive_steps = "
        f"{cfg.consecutive_steps}); the excursion {onset.describe()}"
    )
    evidence = [run[-1].seq, *(m.seq for m in reversed(run[:-1]))]
    evidence += [s for s in onset_seq(window, onset) if s not in evidence]
    target = excursion_target(state, config, onset, require_passed=False)
    common = {"trigger_metric": finding.metric, "value": finding.value,
              "threshold": finding.threshold}  # fmt: skip
    if cfg.action == "rollback":
        return rollback_or_fail(POLICY, state, target, step=run[-1].step, evidence=evidence,
                                reason=reason, onset=onset.parameters(), **common)  # fmt: skip
    where = (
        "no retained checkpoint before it" if target is None
        else f"the last retained checkpoint before it is step {target.step} (seq {target.seq})"
    )  # fmt: skip
    return Decision(
        policy=POLICY, action="pause", evidence_seqs=evidence,
        parameters={"rule": finding.rule, **onset.parameters(),
                    **({} if target is None else {"checkpoint_step": target.step,
                                                  "checkpoint_seq": target.seq})},
        reason=f"{reason}; pausing: {where}", **common,
    )  # fmt: skip


def verifier_signal(
    full: Sequence[MetricsRef],
    run: Sequence[MetricsRef],
    cfg: RewardHealthPolicyConfig,
    falls_only: bool = False,
) -> str | None:
    """What on the verifier's side says `run`'s rewards (a suffix of the fold's whole window
    `full`) are the scorer's doing, or None. The verify rate is compared with the steps before the
    equal rewards began, across rollbacks: a scorer bug outlives a rollback, and the steps
    after one must not become their own reference. `falls_only`: only a fall counts (most groups
    without variance while the verify rate holds or rises is a sampler gone greedy: the entropy
    policy's; every reward equal and the rate jumping to 1 is a scorer passing everything)."""
    for m in run:
        for rate in ERROR_RATES:
            value = m.metrics.get(rate)
            if value:
                return f"{rate} {value:.2g} at step {m.step}"
    start = len(full) - len(trailing_run(full, lambda m: _no_variance(m, cfg)))
    start = min(start, len(full) - len(run))
    before = _values(full[max(0, start - cfg.reference_steps) : start], "verify_rate")
    during = _values(run, "verify_rate")
    if not before or not during:
        return None
    shift = sum(during) / len(during) - sum(before) / len(before)
    if (-shift if falls_only else abs(shift)) >= cfg.max_verdict_shift:
        return (
            f"the verify rate moved {shift:+.2f} from its mean over the {len(before)} steps "
            f"before (policies.reward_health.max_verdict_shift = {cfg.max_verdict_shift:g})"
        )
    if falls_only:
        return None
    return _improbable(full[max(0, start - cfg.reference_steps) : start], run, cfg)


def _improbable(
    before: Sequence[MetricsRef], run: Sequence[MetricsRef], cfg: RewardHealthPolicyConfig
) -> str | None:
    """Whether every group of `run` landing without variance is too unlikely to be the model's
    doing: at most the zero-variance share of the steps `before` (an upper bound on how often a
    group all fails, or all passes) to the power of the run's groups (`scored_groups`, logged
    since issue 31)."""
    shares = _values(before, "zero_variance_frac")
    groups = _values(run, "scored_groups")
    if not shares or len(groups) != len(run):
        return None
    share = sum(shares) / len(shares)
    chance = share ** sum(groups)
    if chance >= cfg.max_chance:
        return None
    return (
        f"all {sum(groups):.0f} groups of the run without variance, a {chance:.1g} chance at "
        f"the {share:.0%} zero-variance share of the {len(shares)} steps before "
        f"(policies.reward_health.max_chance = {cfg.max_chance:g})"
    )


def claimed_until(
    state: RunState, window: Sequence[MetricsRef], config: PolicyConfig, run: Sequence[MetricsRef]
) -> int:
    """How many of `run`'s first steps (a suffix of `window`) other policies must leave alone:
    all of them when the window ends in equal rewards that come with a verifier-side signal."""
    cfg = config.reward_health
    if not cfg.enabled or not run:
        return 0
    equal = trailing_run(window, lambda m: _no_variance(m, cfg))
    falls_only = not all(_all_equal(m.metrics) for m in equal)
    if equal and verifier_signal(state.metrics_window, equal, cfg, falls_only):
        return len(run)
    return 0


def inactive_rules(metric_names: Iterable[str]) -> dict[str, str]:
    """Rules whose inputs a log never recorded, with why (e.g. logs from before issue 31)."""
    seen = set(metric_names)
    return {
        rule: f"the log has no {', '.join(m for m in inputs if m not in seen)}"
        for rule, inputs in RULE_INPUTS.items()
        if not set(inputs) <= seen
    }


def _all_equal(metrics: dict) -> bool:
    value = metrics.get("reward_std")
    return value is not None and value <= 1e-12


def _no_variance(metrics: dict, cfg: RewardHealthPolicyConfig) -> bool:
    return _all_equal(metrics) or _above(metrics, "zero_variance_frac", cfg.max_zero_variance_frac)


def _above(metrics: dict, name: str, ceiling: float) -> bool:
    value = metrics.get(name)
    return value is not None and value > ceiling


def _beyond(metrics: dict, limit: float, direction: str) -> bool:
    value = metrics.get("response_len")
    if value is None:
        return False
    return value > limit if direction == "up" else value < limit


def _values(steps: Iterable[MetricsRef], name: str) -> list[float]:
    return [v for v in (m.metrics.get(name) for m in steps) if v is not None]


def _value(m: MetricsRef, name: str) -> str:
    value = m.metrics.get(name)
    return f"{name} {value:.3g}" if value is not None else name
