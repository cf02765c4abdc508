"""Contracts shared by the training modules and the orchestrator: rollouts, groups, metrics, state.

Shapes in names: `_N` samples of one group, `_G` groups of a batch, `_T` tokens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


@dataclass(frozen=True)
class Rollout:
    """One sampled completion of one prompt."""

    prompt_tokens: list[int]
    # Completion token ids, the EOS token included when the sequence stopped on it.
    tokens: list[int]
    # Per-token log-probabilities of `tokens` under the sampling policy (temperature 1 logits).
    logprobs: list[float]
    text: str
    # True when the completion hit `max_tokens` before an EOS.
    truncated: bool


@dataclass(frozen=True)
class RolloutGroup:
    """`group_size` completions of the same prompt; `prompt` is the caller's record for it."""

    prompt: Any
    prompt_text: str
    rollouts_N: list[Rollout]


class StepMetrics(BaseModel):
    """What one GRPO step reports (JSON-native, so the orchestrator can put it in an event)."""

    model_config = ConfigDict(frozen=True)

    step: int = Field(description="Index of the step these metrics describe (0-based).")
    attempt: int = Field(description="Retry counter of this step; feeds the step's random key.")
    reward_mean: float = Field(description="Mean reward over all rollouts of the batch.")
    reward_std: float = Field(description="Standard deviation of reward over all rollouts.")
    verify_rate: float = Field(
        description="Fraction of rollouts whose reward >= verified_threshold."
    )
    zero_variance_frac: float = Field(description="Fraction of groups whose rewards are all equal.")
    kl: float = Field(description="Mean per-token k3 KL(policy || reference) before the update.")
    entropy: float = Field(description="Mean per-token entropy of the policy before the update.")
    clip_frac: float = Field(description="Fraction of tokens whose ratio was clipped.")
    grad_norm: float = Field(description="Gradient norm before clipping (mean over substeps).")
    learning_rate_scheduled: float = Field(
        description="Learning rate applied at this step: the base `learning_rate` times the "
        "schedule's multiplier."
    )
    kl_penalty_coef: float = Field(description="KL penalty coefficient applied at this step.")
    loss: float = Field(description="Mean loss over substeps.")
    response_len: float = Field(description="Mean completion length in tokens (EOS included).")
    truncation_rate: float = Field(description="Fraction of rollouts cut at max_tokens.")
    trained_groups: int = Field(description="Groups used for the update after dropping.")
    sample_tokens_per_s: float = Field(description="Generated tokens per second of sampling.")
    train_tokens_per_s: float = Field(
        description="Prompt+completion tokens per second of training."
    )
    sample_s: float = Field(description="Seconds spent sampling.")
    train_s: float = Field(description="Seconds spent in the update.")
    step_s: float = Field(description="Seconds for the whole step.")


@dataclass
class TrainerState:
    """Everything a GRPO step mutates; `learning_rate` and `kl_penalty_coef` are the base values
    policies may change between steps (the LR schedule multiplies `learning_rate`); see
    stages/rl/tunables.py."""

    model: Any
    tokenizer: Any
    reference: Any
    optimizer: Any
    step: int = 0
    learning_rate: float = 1e-4
    kl_penalty_coef: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


RewardFn = Callable[[list[Any], list[str]], list[float]]
"""rewards = reward_fn(prompt_records, completion_texts); one float per completion, same order."""

ProgressFn = Callable[[dict[str, Any]], None]
StepFn = Callable[[StepMetrics], None]
