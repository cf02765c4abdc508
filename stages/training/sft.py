"""Supervised fine-tuning: cross-entropy on completion tokens only (prompt tokens are masked out),
mean over the completion tokens of the batch, AdamW with warmup + decay and gradient clipping.
Rows are grouped by length and the logits computed only where completions are
(`stages.training.sft_packing`).

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

from stages.training.config import SFTConfig
from stages.training.errors import TrainingInterrupted
from stages.training.model import encode_completion, encode_prompt
from stages.training.schedule import derive_seed, lr_multiplier
from stages.training.sft_packing import Group, pack_rows, packed_ce
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


def _packed_loss(
    model: nn.Module, tokens: list[mx.array], masks: list[mx.array], starts: tuple[int, ...]
) -> mx.array:
    return packed_ce(model, [Group(t, m, s) for t, m, s in zip(tokens, masks, starts, strict=True)])


def make_step(
    model: nn.Module, optimizer: optim.Optimizer, max_grad_norm: float, compiled: bool = True
) -> tuple[Callable[[list[Group]], mx.array], list[Any]]:
    """One SFT update `step(groups) -> loss` (groups from `pack_rows`) and the state it reads
    and writes.

    Compiled (as mlx-lm's trainer does, over model, optimizer and RNG state), mlx fuses the
    step's elementwise ops and skips rebuilding its graph; one trace per batch structure (the
    groups' shapes and starts) is cached, so batches of a few widths cost a few traces. `optimizer.learning_rate` may be set between
    steps: it is optimizer state, an input of the compiled step, not a constant baked into it.
    """
    # The compiled step must see the state it updates (init keeps any state already there).
    optimizer.init(model.trainable_parameters())
    loss_and_grad = nn.value_and_grad(model, _packed_loss)
    state = [model.state, optimizer.state, mx.random.state]

    def update(tokens: list[mx.array], masks: list[mx.array], starts: tuple[int, ...]) -> mx.array:
        loss, grads = loss_and_grad(model, tokens, masks, starts)
        if max_grad_norm > 0:
            grads, _ = optim.clip_grad_norm(grads, max_grad_norm)
        optimizer.update(model, grads)
        return loss

    if compiled:
        # the starts are Python ints: part of the trace's key, constants inside it
        update = mx.compile(update, inputs=state, outputs=state)

    def step(groups: list[Group]) -> mx.array:
        return update(
            [g.tokens_BT for g in groups], [g.mask_BT for g in groups],
            tuple(g.start for g in groups),
        )  # fmt: skip

    return step, state


def sft(
    model: nn.Module,
    tokenizer: Any,
    batch_fn: Callable[[int], Sequence[Example]],
    config: SFTConfig,
    on_progress: ProgressFn | None = None,
    optimizer: optim.Optimizer | None = None,
    compiled: bool = True,
    should_stop: Callable[[], bool] | None = None,
) -> list[float]:
    """Train `model` in place for `config.steps` steps; return the loss of every step.
    `should_stop` is asked before each step: when it says stop, `TrainingInterrupted` is raised
    (a pause must not wait for thousands of steps).

    `on_progress` receives {"step", "loss", "learning_rate", "tokens_per_s", "elapsed_s"} every
    `report_every` steps and after the last one. Losses stay on the device until then: reading
    one back each step would make Python wait for every step to finish before it builds the
    next batch, where `mx.async_eval` lets the two overlap (Python waits for step i-1 once
    step i is queued). `compiled=False` runs the same step uncompiled (the benchmark's baseline).
    """
    optimizer = optimizer or optim.AdamW(
        learning_rate=config.learning_rate, weight_decay=config.weight_decay
    )
    encode_p = lru_cache(maxsize=None)(
        lambda text: tuple(encode_prompt(tokenizer, text, config.use_chat_template))
    )
    encode_c = lru_cache(maxsize=None)(lambda text: tuple(encode_completion(tokenizer, text)))
    model.train()
    step_fn, state = make_step(model, optimizer, config.max_grad_norm, compiled)

    losses: list[float] = []
    pending: list[mx.array] = []
    start, tokens_seen = time.perf_counter(), 0
    for step in range(config.steps):
        if should_stop is not None and should_stop():
            raise TrainingInterrupted(f"stop requested at SFT step {step} of {config.steps}")
        mx.random.seed(derive_seed(config.seed, "sft", step))
        groups = _packed(batch_fn(step), step, encode_p, encode_c)
        lr = config.learning_rate * lr_multiplier(
            step, config.lr_schedule, config.warmup_steps, config.steps, config.min_lr_ratio
        )
        optimizer.learning_rate = lr
        pending.append(step_fn(groups))
        mx.async_eval(pending[-1], state)
        if len(pending) > 1:
            mx.eval(pending[-2])  # run at most one step ahead of the device: bounded memory
        tokens_seen += sum(g.tokens_BT.size for g in groups)
        if (step + 1) % config.report_every == 0 or step + 1 == config.steps:
            losses += mx.stack(pending).tolist()  # the one read-back per report
            pending = []
            if on_progress:
                elapsed = time.perf_counter() - start
                on_progress({"step": step, "loss": losses[-1], "learning_rate": lr,
                             "tokens_per_s": tokens_seen / max(elapsed, 1e-9),
                             "elapsed_s": elapsed})  # fmt: skip
    mx.eval(state)
    model.eval()
    return losses


def _packed(
    pairs: Sequence[Example], step: int, encode_p: Callable, encode_c: Callable
) -> list[Any]:
    """One step's (prompt, completion) pairs encoded and packed into rows."""
    if not pairs:
        raise ValueError(f"batch_fn returned an empty batch at step {step}")
    return pack_rows([encode_p(p) for p, _ in pairs], [encode_c(c) for _, c in pairs])
