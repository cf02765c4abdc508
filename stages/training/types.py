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


class UpdateMetrics(BaseModel):
    """What one GRPO update reports of itself (JSON-native); the step's figures over its whole
    batch (rewards, lengths, timings, the settings it ran with) are the RL step's
    (stages/rl/step.py), which merges these in once."""

    model_config = ConfigDict(frozen=True)

    step: int = Field(description="Index of the step these metrics describe (0-based).")
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
    trained_groups: int = Field(description="Groups used for the update after dropping.")
    train_tokens: int = Field(description="Prompt+completion tokens of the trained rows.")
    train_s: float = Field(description="Seconds spent in the update.")
    logprob_gap: float | None = Field(
        None,
        description="Mean per-token |log pi_trainer - log pi_sampler| over the first "
        "minibatch's completion tokens before the update: how far the weights that sampled the "
        "batch are from those it trains (staleness, or numerics); None when the loss does not "
        "read the sampler's log-probs.",
    )


@dataclass
class PolicyVersions:
    """The weights an asynchronous run (`grpo.max_staleness` k) samples with: version v is the
    trainable weights the trainer held at the start of step v, one safetensors file each.
    `reset`: the first step after the last rollback (the schedule never names a version before
    it). A checkpoint of step c keeps the versions c-k..c-1 it still needs."""

    reset: int = 0
    files: dict[int, str] = field(default_factory=dict)

    def for_step(self, step: int, staleness: int) -> int:
        """The version that samples step `step`'s batch: the weights after step step-1-k."""
        return max(step - staleness, self.reset, 0)


@dataclass
class TrainerState:
    """Everything a GRPO step mutates. The settings a run changes while it trains (learning
    rate, KL coefficient, ...) are not here: each step takes those in force (store/settings.py)."""

    model: Any
    tokenizer: Any
    reference: Any
    optimizer: Any
    step: int = 0
    extra: dict[str, Any] = field(default_factory=dict)  # compiled graphs, keyed by their config
    versions: PolicyVersions | None = None  # asynchronous rollouts only


Reduce = Callable[[Any, float], Any]
"""reduce(tree, weight): the sum over the world's ranks of `weight * tree` (stages/distributed.py;
for one process, `weight * tree` itself)."""

ProgressFn = Callable[[dict[str, Any]], None]
