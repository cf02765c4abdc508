"""How fast this rank samples and trains: the one measurement behind the data-parallel split
(`calibrate`, at a distributed run's first step) and `rlvr calibrate` (over batch sizes).

Sampling: the step's split-invariant sampler on `group_size` completions of each prompt.
Training: one forward + backward of the GRPO loss over those sequences, no update: the model, the
optimizer and the global RNG are left as they were. Tokens: generated tokens for sampling, prompt
+ completion tokens for training (as the step's `train_tokens_per_s` counts them).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stages.rl.sampling import sample_groups_keyed
from stages.training.config import GRPOConfig


@dataclass(frozen=True)
class Throughput:
    sequences: int
    sample_s: float
    sample_tokens: float
    train_s: float
    train_tokens: float


def measure_throughput(
    model: Any, tokenizer: Any, prompts: Sequence[Any], config: GRPOConfig, seed: int = 0
) -> Throughput:
    import mlx.core as mx
    import mlx.nn as nn

    from stages.training.grpo_loss import grpo_loss
    from stages.training.logprobs import pad_batch

    start = time.perf_counter()
    groups, stats = sample_groups_keyed(
        model, tokenizer, prompts, 0, config.sampling, config.group_size, seed
    )
    sample_s = time.perf_counter() - start
    rollouts = [r for g in groups for r in g.rollouts_N]
    tokens_BT, mask_BT = pad_batch(
        [r.prompt_tokens for r in rollouts], [r.tokens for r in rollouts]
    )
    start = time.perf_counter()
    _, grads = nn.value_and_grad(model, grpo_loss)(
        model, tokens_BT, mask_BT, mx.zeros((len(rollouts),)), mx.zeros(mask_BT.shape), None, 0.0,
        config,
    )  # fmt: skip
    mx.eval(grads)
    train_s = time.perf_counter() - start
    return Throughput(
        sequences=len(rollouts),
        sample_s=sample_s,
        sample_tokens=float(stats["sample_tokens"]),
        train_s=train_s,
        train_tokens=float(sum(len(r.prompt_tokens) + len(r.tokens) for r in rollouts)),
    )
