"""Thresholds of the stage gates and the recovery policies (defaults from the RLVR workflow)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from store.projections import EARLY_METRICS, METRICS_WINDOW


class GateConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    min_verifiability: float = Field(
        0.80,
        ge=0,
        le=1,
        description="Stage 2: share of tasks whose reference passes and whose perturbation fails.",
    )
    max_false_positive_rate: float = Field(
        0.05,
        ge=0,
        le=1,
        description="Stage 3: the verifier may accept at most this share of known-wrong answers (strictly less).",
    )
    zero_tolerance_hacks: bool = Field(
        True,
        description="Stage 3: fail the gate if the verifier accepts even one probe of a known "
        "reward-hack kind (whatever the overall false-positive rate).",
    )
    min_tasks_per_category: int = Field(
        1,
        ge=0,
        le=1_000_000,
        description="Stage 4: each category must keep at least this many teachable tasks.",
    )
    max_category_share: float = Field(
        0.9,
        gt=0,
        le=1,
        description="Stage 4: no category may make up more than this share of the training set.",
    )
    max_kl: float = Field(
        0.1,
        gt=0,
        le=1000.0,
        description="Stage 5: KL to the reference policy must stay at or below this.",
    )
    kl_window: int = Field(
        5, ge=1, le=32, description="Stage 5: the KL gate judges the mean of this many last steps."
    )
    min_verify_rate_gain: float = Field(
        0.0,
        ge=-1,
        le=1.0,
        description="Stages 5-6: the held-out verify rate must beat the baseline (or last round) by more than this.",
    )
    min_capability_retention: float = Field(
        0.95,
        ge=0,
        le=1,
        description="Stage 7: every capability benchmark must keep at least this share of its baseline.",
    )


class RollbackPolicyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(True, description="Roll back when a capability benchmark regresses.")
    max_capability_drop: float = Field(
        0.05,
        ge=0,
        lt=1,
        description="Roll back when any benchmark falls more than this share below its baseline.",
    )
    lr_factor: float = Field(
        0.5, gt=0, le=1, description="Multiply the learning rate by this after a rollback."
    )
    kl_coef_factor: float = Field(
        1.0,
        ge=1,
        le=100.0,
        description="Multiply the KL penalty coefficient by this after a rollback (1: unchanged).",
    )
    max_rollbacks: int = Field(
        3, ge=0, le=10_000, description="Capability rollbacks allowed; one more fails the run."
    )


class KLPolicyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(True, description="Act when KL to the reference policy runs high.")
    # Not `max_kl`: a bare `max_kl=...` override must keep meaning the stage gate's threshold.
    limit: float = Field(
        0.1,
        gt=0,
        le=1000.0,
        description="KL (mean over the last `window` steps) above this triggers the policy.",
    )
    window: int = Field(
        5,
        ge=1,
        le=32,
        description="Steps averaged: one batch's KL estimate is noisy, and a single spike should "
        "not halve the learning rate.",
    )
    mode: Literal["fixed", "adaptive"] = Field(
        "fixed",
        description="fixed: scale by the factors below; adaptive: scale the KL coefficient by "
        "KL / target, capped at kl_coef_factor.",
    )
    adjust: list[Literal["learning_rate", "kl_penalty_coef"]] = Field(
        default_factory=lambda: ["learning_rate", "kl_penalty_coef"],
        description="Which hyper-parameters an adjustment changes.",
    )
    lr_factor: float = Field(
        0.5, gt=0, lt=1, description="Multiply the learning rate by this on high KL."
    )
    kl_coef_factor: float = Field(
        2.0,
        gt=1,
        le=100.0,
        description="Multiply the KL coefficient by this on high KL (adaptive: the cap).",
    )
    target: float = Field(
        0.05, gt=0, le=1000.0, description="Adaptive mode: the KL the coefficient steers towards."
    )
    min_learning_rate: float = Field(
        1e-7, ge=0, le=1.0, description="Never lower the learning rate below this."
    )
    max_kl_penalty_coef: float = Field(
        10.0, gt=0, le=1000.0, description="Never raise the KL coefficient above this."
    )
    adjust_every_steps: int = Field(
        2,
        ge=1,
        le=METRICS_WINDOW,
        description="Leave at least this many steps between adjustments, for one to take effect.",
    )
    rollback_after_steps: int = Field(
        3,
        ge=1,
        le=METRICS_WINDOW,
        description="KL above the limit for this many consecutive steps rolls back to a checkpoint "
        "before the excursion.",
    )
    max_adjustments: int = Field(
        6,
        ge=0,
        le=10_000,
        description="KL adjustments allowed (those after a rollback count); then fail.",
    )
    max_rollbacks: int = Field(
        2, ge=0, le=10_000, description="KL rollbacks allowed; one more fails the run."
    )


EntropyRecovery = Literal["raise_temperature", "entropy_bonus", "shrink_group_size"]


class EntropyPolicyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(True, description="Recover when the policy's entropy collapses.")
    early_steps: int = Field(
        5,
        ge=1,
        le=EARLY_METRICS,
        description="The floor is relative to the mean entropy of the run's first this many steps.",
    )
    floor_ratio: float = Field(
        0.3,
        gt=0,
        lt=1,
        description="A step collapses when its entropy is below this share of the early mean.",
    )
    max_zero_variance_frac: float = Field(
        0.8,
        gt=0,
        le=1,
        description="A step also collapses when more than this share of its groups have equal "
        "rewards (no learning signal).",
    )
    consecutive_steps: int = Field(
        3,
        ge=1,
        le=METRICS_WINDOW,
        description="Recover after this many consecutive collapsed steps.",
    )
    recoveries: list[EntropyRecovery] = Field(
        default_factory=lambda: ["raise_temperature", "entropy_bonus"],
        description="What a recovery changes, in order.",
    )
    temperature_factor: float = Field(
        1.25,
        gt=1,
        le=100.0,
        description="raise_temperature: multiply the sampling temperature by this.",
    )
    max_temperature: float = Field(
        1.5, gt=0, le=100.0, description="raise_temperature: never sample hotter than this."
    )
    entropy_bonus: float = Field(
        0.01, gt=0, le=1000.0, description="entropy_bonus: add this to the entropy coefficient."
    )
    max_entropy_coef: float = Field(
        0.05,
        gt=0,
        le=1000.0,
        description="entropy_bonus: never raise the entropy coefficient above this.",
    )
    group_size_factor: float = Field(
        0.5, gt=0, lt=1, description="shrink_group_size: multiply the group size by this."
    )
    min_group_size: int = Field(
        2, ge=2, le=1024, description="shrink_group_size: never go below this."
    )
    rollback: bool = Field(
        True, description="Also roll back to the last checkpoint before the collapse began."
    )
    max_recoveries: int = Field(
        3, ge=0, le=10_000, description="Entropy recoveries allowed; one more fails the run."
    )


class FaultPolicyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(True, description="Handle non-finite numbers, OOM and step failures.")
    nonfinite_metrics: list[str] = Field(
        default_factory=lambda: ["loss", "grad_norm"],
        description="A NaN/inf in any of these skips the step's update and rolls back.",
    )
    max_nonfinite_rollbacks: int = Field(
        3,
        ge=0,
        le=10_000,
        description="Rollbacks after non-finite numbers allowed; one more fails the run.",
    )
    max_oom_retries: int = Field(
        3,
        ge=0,
        le=10_000,
        description="Retries of one step after out-of-memory, each with twice the micro-batches.",
    )
    max_micro_batches: int = Field(
        64,
        ge=1,
        le=65_536,
        description="Never split a step's batch into more micro-batches than this.",
    )
    max_step_retries: int = Field(
        3,
        ge=0,
        le=10_000,
        description="Retries of one step after an exception; then the run fails.",
    )
    backoff_s: float = Field(
        2.0,
        ge=0,
        le=86_400.0,
        description="Wait before the first retry; doubles with each further one.",
    )
    max_backoff_s: float = Field(
        60.0, ge=0, le=86_400.0, description="Never wait longer than this."
    )
    max_total_retries: int = Field(
        20, ge=0, le=10_000, description="Step retries (of any kind) allowed over the whole run."
    )
    max_judge_error_rate: float = Field(
        0.2,
        ge=0,
        le=1,
        description="Pause when more than this share of a step's judge calls failed (never train "
        "on missing rewards), or of its verifications raised (a verifier bug may be zeroing "
        "right answers).",
    )
    max_pauses: int = Field(
        3, ge=0, le=10_000, description="Pauses for judge errors allowed; one more fails the run."
    )


class RewardHealthPolicyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(
        True,
        description="Act when the rewards or the responses look broken (a scorer bug, a degenerate policy).",
    )
    action: Literal["pause", "rollback"] = Field(
        "pause",
        description="What a finding does: pause (a person fixes the scorer; the reason names the "
        "onset and the checkpoint before it) or roll back to that checkpoint.",
    )
    consecutive_steps: int = Field(
        3,
        ge=1,
        le=METRICS_WINDOW,
        description="A rule acts when its condition holds for this many consecutive steps.",
    )
    reference_steps: int = Field(
        5,
        ge=1,
        le=METRICS_WINDOW,
        description="The verify rate of up to this many steps before a run of equal rewards is "
        "what a verdict shift is measured against.",
    )
    max_verdict_shift: float = Field(
        0.25,
        gt=0,
        le=1,
        description="Equal rewards are a scorer's fault (not a collapse) when the verify rate moved "
        "by at least this much from the steps before, or any verification raised, failed or was "
        "an injection.",
    )
    max_chance: float = Field(
        1e-6,
        gt=0,
        lt=1,
        description="Equal rewards are also a scorer's fault when every group of the run landing "
        "without variance, at the zero-variance share of the steps before, had less than this "
        "chance (what a weak model's rare passes all vanishing looks like).",
    )
    max_zero_variance_frac: float = Field(
        0.95,
        gt=0,
        le=1,
        description="With a verifier-side signal, more than this share of groups without reward "
        "variance is a finding.",
    )
    max_length_ratio: float = Field(
        4.0,
        gt=1,
        le=1000.0,
        description="Mean response length above this multiple of its early mean is a blow-up.",
    )
    min_length_ratio: float = Field(
        0.25,
        gt=0,
        lt=1,
        description="Mean response length below this share of its early mean is a collapse.",
    )
    early_steps: int = Field(
        5,
        ge=1,
        le=EARLY_METRICS,
        description="The early mean length is over the run's first this many steps.",
    )
    max_repetition_share: float = Field(
        0.5,
        gt=0,
        le=1,
        description="More than this share of repetitive responses (repeated 4-grams or "
        "highly compressible text: `repetition_share`) is a finding.",
    )
    max_rollbacks: int = Field(
        2, ge=0, le=10_000, description="Reward-health rollbacks allowed; one more fails the run."
    )
    max_pauses: int = Field(
        3, ge=0, le=10_000, description="Reward-health pauses allowed; one more fails the run."
    )


class OnsetConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    target: Literal["onset", "last_good"] = Field(
        "onset",
        description="Where a rollback on an excursion (capability drop, KL, entropy collapse, "
        "reward health) lands: onset: the last retained checkpoint saved before the excursion's "
        "change point in the window (policies/onset.py), or before its first crossing if that "
        "is earlier; last_good: before the first crossing (the rule before issue 31).",
    )


class PolicyConfig(BaseModel):
    """Recovery policies the runner evaluates on every training step (see policies.engine)."""

    model_config = ConfigDict(extra="forbid")

    rollback: RollbackPolicyConfig = Field(
        default_factory=RollbackPolicyConfig, description="Capability-regression rollback."
    )
    kl: KLPolicyConfig = Field(
        default_factory=KLPolicyConfig, description="Learning rate / KL penalty control."
    )
    entropy: EntropyPolicyConfig = Field(
        default_factory=EntropyPolicyConfig, description="Entropy-collapse recovery."
    )
    faults: FaultPolicyConfig = Field(
        default_factory=FaultPolicyConfig,
        description="Non-finite numbers, out of memory, judge errors, step retries.",
    )
    reward_health: RewardHealthPolicyConfig = Field(
        default_factory=RewardHealthPolicyConfig,
        description="Equal rewards with a verifier-side signal, zero-variance groups, response "
        "length, repetition.",
    )
    onset: OnsetConfig = Field(
        default_factory=OnsetConfig, description="Where rollbacks on an excursion land."
    )
