"""Batching token sequences and reading per-token log-probabilities / entropies off a model."""

from __future__ import annotations

from collections.abc import Sequence

import mlx.core as mx
import mlx.nn as nn
import numpy as np


def pad_batch(
    prompts_B: Sequence[Sequence[int]], completions_B: Sequence[Sequence[int]], pad_id: int = 0
) -> tuple[mx.array, mx.array]:
    """Right-padded `tokens_BT` (prompt + completion) and `mask_BT` over the *targets*
    `tokens_BT[:, 1:]`: 1 where the target is a completion token."""
    lengths_B = [len(p) + len(c) for p, c in zip(prompts_B, completions_B, strict=True)]
    width = max(lengths_B)
    tokens_BT = np.full((len(lengths_B), width), pad_id, dtype=np.int32)
    mask_BT = np.zeros((len(lengths_B), width - 1), dtype=np.float32)
    for b, (p, c) in enumerate(zip(prompts_B, completions_B, strict=True)):
        tokens_BT[b, : len(p) + len(c)] = list(p) + list(c)
        mask_BT[b, len(p) - 1 : len(p) + len(c) - 1] = 1.0
    return mx.array(tokens_BT), mx.array(mask_BT)


def token_logprobs(
    model: nn.Module, tokens_BT: mx.array, with_entropy: bool = False
) -> tuple[mx.array, mx.array | None]:
    """log p(tokens_BT[:, t+1] | tokens_BT[:, :t+1]) as `logp_BT` (width T-1), and optionally the
    entropy of each next-token distribution."""
    logits_BTV = model(tokens_BT[:, :-1]).astype(mx.float32)
    logz_BT = mx.logsumexp(logits_BTV, axis=-1)
    target_BT = mx.take_along_axis(logits_BTV, tokens_BT[:, 1:, None], axis=-1)[..., 0]
    logp_BT = target_BT - logz_BT
    if not with_entropy:
        return logp_BT, None
    logprobs_BTV = logits_BTV - logz_BT[..., None]
    entropy_BT = -(mx.exp(logprobs_BTV) * logprobs_BTV).sum(axis=-1)
    return logp_BT, entropy_BT


def completion_logprobs(
    model: nn.Module, prompts_B: Sequence[Sequence[int]], completions_B: Sequence[Sequence[int]]
) -> list[list[float]]:
    """Per-token log-probs of each completion under `model` (a plain forward pass, no grad)."""
    tokens_BT, mask_BT = pad_batch(prompts_B, completions_B)
    logp_BT, _ = token_logprobs(model, tokens_BT)
    logp = np.array(logp_BT)
    return [
        logp[b, len(p) - 1 : len(p) + len(c) - 1].tolist()
        for b, (p, c) in enumerate(zip(prompts_B, completions_B, strict=True))
    ]
