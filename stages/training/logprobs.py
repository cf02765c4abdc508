"""Batching token sequences and reading per-token log-probabilities / entropies off a model.

The vocabulary can be large (151,936 tokens for Qwen2.5): a [rows, positions, vocab] tensor in
fp32 is the biggest thing a training step holds. `logits_logprobs` therefore computes, per
position, only what it returns: log p(target) = logit(target) - logsumexp(logits), and the entropy
when asked, from one fp32 view of the logits; its gradient is written by hand (one fused
elementwise kernel back to the logits' dtype) instead of autograd's chain of full-vocabulary
intermediates (log-softmax, exp, scatter of the gathered target, casts).
"""

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


@mx.compile
def _plogp(x_BTV: mx.array, logz_BT: mx.array) -> mx.array:
    logp_BTV = x_BTV - logz_BT[..., None]
    return mx.exp(logp_BTV) * logp_BTV


def _forward(
    logits_BTV: mx.array, targets_BT: mx.array, with_entropy: bool
) -> tuple[mx.array, mx.array, mx.array]:
    x_BTV = logits_BTV.astype(mx.float32)
    logz_BT = mx.logsumexp(x_BTV, axis=-1)
    target_BT = mx.take_along_axis(x_BTV, targets_BT[..., None], axis=-1)[..., 0]
    entropy_BT = -_plogp(x_BTV, logz_BT).sum(axis=-1) if with_entropy else mx.zeros_like(logz_BT)
    return target_BT - logz_BT, entropy_BT, logz_BT


@mx.compile
def _logits_grad(
    logits_BTV: mx.array,
    targets_BT: mx.array,
    logz_BT: mx.array,
    entropy_BT: mx.array,
    g_logp_BT: mx.array,
    g_entropy_BT: mx.array,
) -> mx.array:
    """d/dlogits of sum(g_logp * logp + g_entropy * H): with p = softmax(x), lp = log p,
    dlogp/dx = onehot - p and dH/dx = -p * (lp + H)."""
    logp_BTV = logits_BTV.astype(mx.float32) - logz_BT[..., None]
    p_BTV = mx.exp(logp_BTV)
    onehot_BTV = mx.arange(logits_BTV.shape[-1]) == targets_BT[..., None]
    grad_BTV = g_logp_BT[..., None] * (onehot_BTV - p_BTV) - g_entropy_BT[..., None] * p_BTV * (
        logp_BTV + entropy_BT[..., None]
    )
    return grad_BTV.astype(logits_BTV.dtype)


def _make(with_entropy: bool):
    @mx.custom_function
    def fn(logits_BTV: mx.array, targets_BT: mx.array):
        return _forward(logits_BTV, targets_BT, with_entropy)

    @fn.vjp
    def fn_vjp(primals, cotangents, outputs):
        logits_BTV, targets_BT = primals
        g_logp_BT, g_entropy_BT, _ = cotangents
        _, entropy_BT, logz_BT = outputs
        if not with_entropy:
            g_entropy_BT = mx.zeros_like(g_logp_BT)
        grad = _logits_grad(logits_BTV, targets_BT, logz_BT, entropy_BT, g_logp_BT, g_entropy_BT)
        return grad, mx.zeros_like(targets_BT)

    return fn


_WITH_ENTROPY, _WITHOUT_ENTROPY = _make(True), _make(False)


def logits_logprobs(
    logits_BTV: mx.array, targets_BT: mx.array, with_entropy: bool = False
) -> tuple[mx.array, mx.array | None]:
    """fp32 log p(target) per position from `logits_BTV` (any float dtype), and optionally the
    entropy of each position's distribution; differentiable in the logits."""
    fn = _WITH_ENTROPY if with_entropy else _WITHOUT_ENTROPY
    logp_BT, entropy_BT, _ = fn(logits_BTV, targets_BT)
    return logp_BT, (entropy_BT if with_entropy else None)


def token_logprobs(
    model: nn.Module, tokens_BT: mx.array, with_entropy: bool = False
) -> tuple[mx.array, mx.array | None]:
    """log p(tokens_BT[:, t+1] | tokens_BT[:, :t+1]) as `logp_BT` (width T-1), and optionally the
    entropy of each next-token distribution."""
    return logits_logprobs(model(tokens_BT[:, :-1]), tokens_BT[:, 1:], with_entropy)


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
