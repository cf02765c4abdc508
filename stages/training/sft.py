"""Supervised fine-tuning: cross-entropy on completion tokens only (prompt tokens are masked out),
mean over the completion tokens of the batch, AdamW with warmup + decay and gradient clipping.

The loop takes a `batch_fn(step) -> [(prompt, completion), ...]` so the caller decides what each
step sees (e.g. a noisy teacher drawn afresh per step); `epoch_batches` makes one from a list.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import mlx.core as mx
import mlx.nn as nn
import mlx.optimizers as optim
from mlx.utils import tree_flatten

from stages.training.config import SFTConfig
from stages.training.logprobs import pad_batch, token_logprobs
from stages.training.model import encode_completion, encode_prompt
from stages.training.schedule import derive_seed, lr_multiplier
from stages.training.types import ProgressFn

Example = tuple[str, str]


def epoch_batches(
    examples: Sequence[Example], batch_size: int, seed: int = 0
) -> Callable[[int], list[Example]]:
    """A `batch_fn` that walks shuffled epochs of `examples` (each epoch reshuffled from seed)."""
    if not examples:
        raise ValueError("epoch_batches needs at least one example, got none")
    if batch_size <= 0:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    n = len(examples)

    @lru_cache(maxsize=4)
    def order(epoch: int) -> list[int]:
        idx = list(range(n))
        random.Random(f"{seed}:{epoch}").shuffle(idx)
        return idx

    def batch(step: int) -> list[Example]:
        out = []
        for k in range(step * batch_size, (step + 1) * batch_size):
            out.append(examples[order(k // n)[k % n]])
        return out

    return batch


def _masked_ce(model: nn.Module, tokens_BT: mx.array, mask_BT: mx.array) -> mx.array:
    logp_BT, _ = token_logprobs(model, tokens_BT)
    return -(logp_BT * mask_BT).sum() / mx.maximum(mask_BT.sum(), 1.0)


def sft(
    model: nn.Module,
    tokenizer: Any,
    batch_fn: Callable[[int], Sequence[Example]],
    config: SFTConfig,
    on_progress: ProgressFn | None = None,
    optimizer: optim.Optimizer | None = None,
) -> list[float]:
    """Train `model` in place for `config.steps` steps; return the loss of every step.

    `on_progress` receives {"step", "loss", "learning_rate", "tokens_per_s", "elapsed_s"} every
    `report_every` steps and after the last one.
    """
    optimizer = optimizer or optim.AdamW(
        learning_rate=config.learning_rate, weight_decay=config.weight_decay
    )
    encode_p = lru_cache(maxsize=None)(
        lambda text: tuple(encode_prompt(tokenizer, text, config.use_chat_template))
    )
    encode_c = lru_cache(maxsize=None)(lambda text: tuple(encode_completion(tokenizer, text)))
    loss_and_grad = nn.value_and_grad(model, _masked_ce)

    def step_fn(tokens_BT: mx.array, mask_BT: mx.array) -> tuple[mx.array, mx.array]:
        loss, grads = loss_and_grad(model, tokens_BT, mask_BT)
        if config.max_grad_norm > 0:
            grads, _ = optim.clip_grad_norm(grads, config.max_grad_norm)
        optimizer.update(model, grads)
        return loss, mask_BT.sum()

    losses: list[float] = []
    start, tokens_seen = time.perf_counter(), 0
    model.train()
    for step in range(config.steps):
        mx.random.seed(derive_seed(config.seed, "sft", step))
        pairs = batch_fn(step)
        if not pairs:
            raise ValueError(f"batch_fn returned an empty batch at step {step}")
        prompts_B = [encode_p(p) for p, _ in pairs]
        completions_B = [encode_c(c) for _, c in pairs]
        tokens_BT, mask_BT = pad_batch(prompts_B, completions_B)
        lr = config.learning_rate * lr_multiplier(
            step, config.lr_schedule, config.warmup_steps, config.steps, config.min_lr_ratio
        )
        optimizer.learning_rate = lr
        loss, _ = step_fn(tokens_BT, mask_BT)
        mx.eval(loss, model.parameters(), optimizer.state)
        losses.append(loss.item())
        tokens_seen += tokens_BT.size
        if on_progress and ((step + 1) % config.report_every == 0 or step + 1 == config.steps):
            elapsed = time.perf_counter() - start
            on_progress(
                {
                    "step": step,
                    "loss": losses[-1],
                    "learning_rate": lr,
                    "tokens_per_s": tokens_seen / max(elapsed, 1e-9),
                    "elapsed_s": elapsed,
                }
            )
    model.eval()
    return losses


def trainable_parameter_count(model: nn.Module) -> int:
    """Number of trainable scalars (for reports)."""
    return sum(v.size for _, v in tree_flatten(model.trainable_parameters()))
