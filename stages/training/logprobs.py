"""Batching token sequences and reading per-token log-probabilities / entropies off a model.

The vocabulary can be large (151,936 tokens for Qwen2.5): a [rows, positions, vocab] tensor in
fp32 is the biggest thing a training step holds. `logits_logprobs` therefore computes, per
position, only what it returns: log p(target) = logit(target) - logsumexp(logits), and the entropy
when asked, from one fp32 view of the logits; its gradient is written by hand (softmax minus the
target, back in the logits' dtype) instead of autograd's chain of full-vocabulary intermediates
(the saved fp32 logits, log-softmax, exp, a scatter of the gathered target, casts).
"""

from __future__ import annotations

from collections.abc import Sequence

import mlx.core as mx
import mlx.nn as nn
import numpy as np


def round_up(width: int, multiple: int) -> int:
    return -(-width // multiple) * multiple


def pad_batch(
    prompts_B: Sequence[Sequence[int]],
    completions_B: Sequence[Sequence[int]],
    pad_id: int = 0,
    multiple: int = 1,
) -> tuple[mx.array, mx.array]:
    """Right-padded `tokens_BT` (prompt + completion) and `mask_BT` over the *targets*
    `tokens_BT[:, 1:]`: 1 where the target is a completion token. The width is the longest
    sequence rounded up to `multiple`."""
    lengths_B = [len(p) + len(c) for p, c in zip(prompts_B, completions_B, strict=True)]
    width = round_up(max(lengths_B), multiple)
    tokens_BT = np.full((len(lengths_B), width), pad_id, dtype=np.int32)
    mask_BT = np.zeros((len(lengths_B), width - 1), dtype=np.float32)
    for b, (p, c) in enumerate(zip(prompts_B, completions_B, strict=True)):
        tokens_BT[b, : len(p) + len(c)] = list(p) + list(c)
        mask_BT[b, len(p) - 1 : len(p) + len(c) - 1] = 1.0
    return mx.array(tokens_BT), mx.array(mask_BT)


def pad_logprobs(
    rows_B: Sequence[Sequence[float]], starts_B: Sequence[int], width: int
) -> mx.array:
    """Per-token log-probs of completions placed at their targets' positions (0 elsewhere)."""
    out_BT = np.zeros((len(rows_B), width), dtype=np.float32)
    for b, (row, start) in enumerate(zip(rows_B, starts_B, strict=True)):
        out_BT[b, start : start + len(row)] = row
    return mx.array(out_BT)


def split_rows(rows: np.ndarray, parts: int) -> list[np.ndarray]:
    """`rows` in up to `parts` consecutive, near-equal, non-empty micro-batches."""
    return [p for p in np.array_split(rows, parts) if len(p)]


def take_rows(
    tokens_BT: mx.array, mask_BT: mx.array, ends_B: np.ndarray, rows: np.ndarray, multiple: int = 1
) -> tuple[mx.array, mx.array, mx.array, int]:
    """`rows` (as an index), their tokens and mask cut to their longest sequence (`ends_B`:
    prompt + completion length per row; right padding, so nothing is lost) rounded up to
    `multiple` (at most the batch's width), and that width."""
    width = min(round_up(int(ends_B[rows].max()), multiple), tokens_BT.shape[1])
    rows_mx = mx.array(rows)
    return rows_mx, tokens_BT[rows_mx][:, :width], mask_BT[rows_mx][:, : width - 1], width


def _forward(
    logits_BTV: mx.array, targets_BT: mx.array, with_entropy: bool
) -> tuple[mx.array, mx.array, mx.array]:
    x_BTV = logits_BTV.astype(mx.float32)
    logz_BT = mx.logsumexp(x_BTV, axis=-1)
    logp_BT = mx.take_along_axis(x_BTV, targets_BT[..., None], axis=-1)[..., 0] - logz_BT
    if not with_entropy:
        return logp_BT, mx.zeros_like(logz_BT), logz_BT
    # H = -sum p log p = logz - sum p x
    entropy_BT = logz_BT - (mx.softmax(x_BTV, axis=-1) * x_BTV).sum(axis=-1)
    return logp_BT, entropy_BT, logz_BT


def _logits_grad(
    logits_BTV: mx.array,
    targets_BT: mx.array,
    logp_BT: mx.array,
    logz_BT: mx.array,
    entropy_BT: mx.array,
    g_logp_BT: mx.array,
    g_entropy_BT: mx.array | None,
) -> mx.array:
    """d/dlogits of sum(g_logp * logp + g_entropy * H): with p = softmax(x), lp = log p,
    dlogp/dx = onehot - p and dH/dx = -p * (lp + H). Written so that each step can reuse its
    input's buffer: one fp32 and one logits-dtype tensor of the vocabulary's width at a time."""
    lp_BTV = logits_BTV.astype(mx.float32) - logz_BT[..., None]
    p_target_BT = mx.exp(logp_BT)
    if g_entropy_BT is None:
        grad_BTV = mx.exp(lp_BTV) * -g_logp_BT[..., None]
        target_BT = g_logp_BT * (1.0 - p_target_BT)
    else:
        p_BTV = mx.exp(lp_BTV)
        weight_BTV = (lp_BTV + entropy_BT[..., None]) * g_entropy_BT[..., None]
        grad_BTV = -p_BTV * (weight_BTV + g_logp_BT[..., None])
        weight_BT = (logp_BT + entropy_BT) * g_entropy_BT
        target_BT = g_logp_BT - p_target_BT * (weight_BT + g_logp_BT)
    # the onehot term, written at each position's target (its value computed from [B, T] terms)
    grad_BTV = grad_BTV.astype(logits_BTV.dtype)
    target_BT = target_BT.astype(logits_BTV.dtype)
    return mx.put_along_axis(grad_BTV, targets_BT[..., None], target_BT[..., None], axis=-1)


def _make(with_entropy: bool, entropy_grad: bool):
    @mx.custom_function
    def fn(logits_BTV: mx.array, targets_BT: mx.array):
        return _forward(logits_BTV, targets_BT, with_entropy)

    @fn.vjp
    def fn_vjp(primals, cotangents, outputs):
        logits_BTV, targets_BT = primals
        g_logp_BT, g_entropy_BT, _ = cotangents
        logp_BT, entropy_BT, logz_BT = outputs
        grad = _logits_grad(
            logits_BTV, targets_BT, logp_BT, logz_BT, entropy_BT, g_logp_BT,
            g_entropy_BT if entropy_grad else None,
        )  # fmt: skip
        return grad, mx.zeros_like(targets_BT)

    return fn


_FUNCTIONS = {
    (False, False): _make(False, False),
    (True, False): _make(True, False),
    (True, True): _make(True, True),
}


def logits_logprobs(
    logits_BTV: mx.array,
    targets_BT: mx.array,
    with_entropy: bool = False,
    entropy_grad: bool = True,
) -> tuple[mx.array, mx.array | None]:
    """fp32 log p(target) per position from `logits_BTV` (any float dtype), differentiable in
    the logits, and optionally the entropy of each position's distribution: differentiable too,
    or with `entropy_grad=False` a metric whose gradient is taken as zero (cheaper)."""
    fn = _FUNCTIONS[(with_entropy, with_entropy and entropy_grad)]
    logp_BT, entropy_BT, _ = fn(logits_BTV, targets_BT)
    return logp_BT, (entropy_BT if with_entropy else None)


# Positions per chunk of `head_logprobs`: rows x positions x vocab at most this many elements
# (fp32: 1 GiB), at least one position.
HEAD_CHUNK_ELEMENTS = 1 << 28
_PLAIN_HEADS = ("mlx_lm.models.llama", "mlx_lm.models.qwen2", "mlx_lm.models.qwen3")


def split_head(model: nn.Module) -> tuple[nn.Module, mx.array] | None:
    """(the model without its head, the head's [vocab, hidden] weight) when the logits are
    exactly `hidden @ weight.T` (see the module docstring), else None."""
    if type(model).__module__ not in _PLAIN_HEADS or not hasattr(model, "model"):
        return None
    args = getattr(model, "args", None)
    if getattr(args, "tie_word_embeddings", False):
        head = model.model.embed_tokens
        return (model.model, head.weight) if type(head) is nn.Embedding else None
    head = getattr(model, "lm_head", None)
    if type(head) is not nn.Linear or "bias" in head:
        return None
    return model.model, head.weight


def _chunks(rows: int, positions: int, vocab: int) -> list[tuple[int, int]]:
    step = max(1, HEAD_CHUNK_ELEMENTS // max(rows * vocab, 1))
    return [(s, min(s + step, positions)) for s in range(0, positions, step)]


def _make_head(with_entropy: bool, entropy_grad: bool):
    @mx.custom_function
    def fn(hidden_BTD: mx.array, weight_VD: mx.array, targets_BT: mx.array):
        B, T, _ = hidden_BTD.shape
        parts, previous = [], []
        for s, e in _chunks(B, T, weight_VD.shape[0]):
            h_bcD = hidden_BTD[:, s:e]
            if previous:  # one chunk's logits at a time
                h_bcD = mx.depends([h_bcD], previous)[0]
            parts.append(_forward(h_bcD @ weight_VD.T, targets_BT[:, s:e], with_entropy))
            previous = list(parts[-1])
        return tuple(mx.concatenate([p[i] for p in parts], axis=1) for i in range(3))

    @fn.vjp
    def fn_vjp(primals, cotangents, outputs):
        hidden_BTD, weight_VD, targets_BT = primals
        g_logp_BT, g_entropy_BT, _ = cotangents
        logp_BT, entropy_BT, logz_BT = outputs
        B, T, D = hidden_BTD.shape
        d_hidden, d_weight = [], mx.zeros(weight_VD.shape, dtype=mx.float32)
        for s, e in _chunks(B, T, weight_VD.shape[0]):
            h_bcD = hidden_BTD[:, s:e]
            if d_hidden:  # this chunk starts once the previous one's gradients are taken
                h_bcD = mx.depends([h_bcD], [d_hidden[-1], d_weight])[0]
            g_bcV = _logits_grad(
                h_bcD @ weight_VD.T, targets_BT[:, s:e], logp_BT[:, s:e], logz_BT[:, s:e],
                entropy_BT[:, s:e], g_logp_BT[:, s:e],
                g_entropy_BT[:, s:e] if entropy_grad else None,
            )  # fmt: skip
            d_hidden.append(g_bcV @ weight_VD)
            flat_nV = g_bcV.reshape(-1, g_bcV.shape[-1])
            d_weight = d_weight + (flat_nV.T @ h_bcD.reshape(-1, D)).astype(mx.float32)
        return (
            mx.concatenate(d_hidden, axis=1),
            d_weight.astype(weight_VD.dtype),
            mx.zeros_like(targets_BT),
        )

    return fn


_HEAD_FUNCTIONS = {
    (False, False): _make_head(False, False),
    (True, False): _make_head(True, False),
    (True, True): _make_head(True, True),
}


def head_logprobs(
    hidden_BTD: mx.array,
    weight_VD: mx.array,
    targets_BT: mx.array,
    with_entropy: bool = False,
    entropy_grad: bool = True,
) -> tuple[mx.array, mx.array | None]:
    """`logits_logprobs(hidden_BTD @ weight_VD.T, ...)` computed over chunks of positions, the
    logits recomputed in the backward (see the module docstring); differentiable in the hidden
    states and the weight."""
    fn = _HEAD_FUNCTIONS[(with_entropy, with_entropy and entropy_grad)]
    logp_BT, entropy_BT, _ = fn(hidden_BTD, weight_VD, targets_BT)
    return logp_BT, (entropy_BT if with_entropy else None)


def token_logprobs(
    model: nn.Module, tokens_BT: mx.array, with_entropy: bool = False, entropy_grad: bool = True
) -> tuple[mx.array, mx.array | None]:
    """log p(tokens_BT[:, t+1] | tokens_BT[:, :t+1]) as `logp_BT` (width T-1), and optionally the
    entropy of each next-token distribution (see `logits_logprobs`); through `head_logprobs`
    where the model's head allows (`split_head`)."""
    split = split_head(model)
    if split is None:
        return logits_logprobs(
            model(tokens_BT[:, :-1]), tokens_BT[:, 1:], with_entropy, entropy_grad
        )
    body, weight_VD = split
    return head_logprobs(
        body(tokens_BT[:, :-1]), weight_VD, tokens_BT[:, 1:], with_entropy, entropy_grad
    )


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
