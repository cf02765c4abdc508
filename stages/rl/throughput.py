"""How fast this rank samples and trains: the one measurement behind the data-parallel split
(`calibrate`, at a distributed run's first step) and `rlvr calibrate` (`over_batch_sizes`).

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

from stages.config import RunConfig
from stages.rl.sampling import keyed
from stages.training.config import GRPOConfig
from stages.training.sampling import sample_groups


@dataclass(frozen=True)
class Throughput:
    sequences: int
    sample_s: float
    sample_tokens: float
    train_s: float
    train_tokens: float


def measure_throughput(
    model: Any, tokenizer: Any, prompts: Sequence[Any], config: GRPOConfig, seed: int = 0,
    *, train: bool = True,
) -> Throughput:  # fmt: skip
    """`train=False`: sampling alone (a warm-up)."""
    import mlx.core as mx
    import mlx.nn as nn

    from stages.training.grpo_loss import grpo_loss
    from stages.training.logprobs import pad_batch

    start = time.perf_counter()
    n = config.group_size
    groups, stats = sample_groups(
        model, tokenizer, prompts, config.sampling, n, keyed(seed, config.sampling, 0, n)
    )
    sample_s = time.perf_counter() - start
    rollouts = [r for g in groups for r in g.rollouts_N]
    if not train:
        return Throughput(len(rollouts), sample_s, float(stats["sample_tokens"]), 0.0, 0.0)
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


def model_shape(config: RunConfig) -> str:
    """What `rlvr calibrate` keys its records by: the embedded model's shape, or its name."""
    m = config.model
    if m.model_name == "embedded":
        return f"embedded:{m.num_hidden_layers}x{m.hidden_size}x{m.intermediate_size}"
    return m.model_name


def over_batch_sizes(
    config: RunConfig, tasks: Sequence[Any], sizes: list[int], repeats: int = 2
) -> dict[str, Any]:
    """`rlvr calibrate`: sequences/s sampling and tokens/s training at each batch size, on the
    config's model (the embedded one freshly initialised: throughput does not depend on what it
    has learned) and its training `tasks`; the batch size at each peak."""
    import socket
    import statistics
    from pathlib import Path

    from stages.training.model import build_embedded_model, load_model

    if config.model.model_name == "embedded":
        folder = Path(config.log_path) / "calibration-model"
        build_embedded_model(config.model, folder)
        model, tokenizer = load_model(folder)
    else:
        model, tokenizer = load_model(config.model.model_name)
    grpo = config.grpo
    sampling, training = {}, {}
    for size in sizes:
        prompts = [tasks[i % len(tasks)] for i in range(max(size // grpo.group_size, 1))]
        settings = grpo.model_copy(
            update={"sampling": grpo.sampling.model_copy(update={"batch_size": size})}
        )
        rates, train_rates = [], []
        for r in range(repeats + 1):  # the first run warms up
            measured = measure_throughput(model, tokenizer, prompts, settings, seed=r)
            if r:
                rates.append(measured.sequences / measured.sample_s)
                train_rates.append(measured.train_tokens / measured.train_s)
        sampling[size], training[size] = statistics.median(rates), statistics.median(train_rates)
    return {
        "host": socket.gethostname(), "model": model_shape(config),
        "max_tokens": grpo.sampling.max_tokens,
        "sampling_sequences_per_s": sampling, "train_tokens_per_s": training,
        "sampling_batch_size": max(sampling, key=sampling.get),
        "train_batch_size": max(training, key=training.get),
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }  # fmt: skip
