"""Which config keys each gate and policy reads: what `rlvr why` names beside a threshold, and what
`rlvr config explain KEY` says reads a key. Data, kept beside the rules it describes; a test checks
every key named here exists in the config schema."""

from __future__ import annotations

# gate -> (the key of its threshold, other keys it reads); None: a fixed threshold.
GATE_SETTINGS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "baseline_recorded": (None, ()),
    "verifiability": ("gates.min_verifiability", ()),
    "false_positive_rate": ("gates.max_false_positive_rate", ("gates.zero_tolerance_hacks",)),
    "coverage": ("gates.min_tasks_per_category", ("gates.max_category_share",)),
    "kl": ("gates.max_kl", ("gates.kl_window",)),
    "verify_rate_improving": ("gates.min_verify_rate_gain", ()),
    "capability_retention": ("gates.min_capability_retention", ()),
}

# (policy, trigger metric or its prefix) -> the key of the threshold it compared with.
_DECISION_THRESHOLDS: dict[tuple[str, str], str] = {
    ("kl", "kl"): "policies.kl.limit",
    ("rollback", "capability_drop"): "policies.rollback.max_capability_drop",
    ("entropy", "entropy"): "policies.entropy.floor_ratio",
    ("entropy", "zero_variance_frac"): "policies.entropy.max_zero_variance_frac",
    ("faults", "judge_error_rate"): "policies.faults.max_judge_error_rate",
    ("faults", "verifier_error_rate"): "policies.faults.max_judge_error_rate",
    ("faults", "step_failures.oom"): "policies.faults.max_oom_retries",
    ("faults", "step_failures.exception"): "policies.faults.max_step_retries",
    ("reward_health", "reward_std"): "policies.reward_health.max_verdict_shift",
    ("reward_health", "zero_variance_frac"): "policies.reward_health.max_zero_variance_frac",
    ("reward_health", "response_len"): "policies.reward_health.max_length_ratio",
    ("reward_health", "repetition_share"): "policies.reward_health.max_repetition_share",
}
# Keys the policy reads besides its threshold (windows, how long a condition must last).
_POLICY_WINDOWS: dict[str, tuple[str, ...]] = {
    "kl": ("policies.kl.window", "policies.kl.rollback_after_steps", "policies.onset.target"),
    "entropy": (
        "policies.entropy.early_steps",
        "policies.entropy.consecutive_steps",
        "policies.onset.target",
    ),
    "rollback": ("policies.onset.target",),
    "faults": (),
    "reward_health": (
        "policies.reward_health.consecutive_steps",
        "policies.reward_health.reference_steps",
        "policies.reward_health.action",
        "policies.onset.target",
    ),
}


def decision_keys(policy: str, trigger_metric: str, budget: str | None = None) -> list[str]:
    """The keys behind a policy decision: its threshold's, its windows', and the budget a `fail`
    decision ran out of (`parameters["budget"]`, e.g. "kl.max_rollbacks")."""
    keys = []
    for (name, metric), key in _DECISION_THRESHOLDS.items():
        if name == policy and (trigger_metric == metric or trigger_metric.startswith(f"{metric}.")):
            keys.append(key)
            break
    keys += _POLICY_WINDOWS.get(policy, ())
    if budget:
        keys.append(f"policies.{budget}")
    return keys


def readers_of(key: str) -> list[str]:
    """What reads `key`: the gates and policies that compare with it, in words."""
    readers = []
    for gate, (threshold, others) in GATE_SETTINGS.items():
        if key == threshold:
            readers.append(f"the {gate} gate (its threshold)")
        elif key in others:
            readers.append(f"the {gate} gate")
    policy = key.split(".")[1] if key.startswith("policies.") and key.count(".") >= 2 else None
    if policy == "onset":  # not a policy: where every policy's rollback on an excursion lands
        readers += [f"the {name} policy" for name in ("rollback", "kl", "entropy", "reward_health")]
    elif policy is not None:
        readers.append(f"the {policy} policy")
    return readers


def all_keys() -> set[str]:
    """Every key named here (the schema test checks they exist)."""
    named = {t for t, _ in GATE_SETTINGS.values() if t} | {
        k for _, others in GATE_SETTINGS.values() for k in others
    }
    named |= set(_DECISION_THRESHOLDS.values())
    named |= {k for keys in _POLICY_WINDOWS.values() for k in keys}
    return named
