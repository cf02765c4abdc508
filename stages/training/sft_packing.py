"""Less padding and less work per SFT step: rows grouped by length, logits only where the loss is.

An SFT batch mixes lengths (the quickstart's: 48 arithmetic rows of 6-9 tokens and 16 reversal
rows of 12): padded to one width, a quarter of the positions the model computes are padding.
`pack_rows` splits the rows into at most two groups, each padded to its own width, when that
saves positions; the step sums the masked loss over the groups and divides by the batch's count
of completion tokens, so the loss is the batch mean as before (same terms, other rounding).

The loss reads log-probabilities only at completion targets, and every target position of a
group lies at or after `start` (its shortest prompt's last position). `window_logits` computes,
for mlx-lm llama models with full attention in every layer (the embedded model), the last block's
queries, attention output and MLP, and the LM head, only at positions `start..`: the earlier
positions still feed the last block's keys and values, and every earlier block runs in full.
Other models run their full forward and the logits are cut to the window.

For those llama models, `packed_ce` lays the groups' rows end to end: every row-wise op
(embedding, norms, projections, MLP, LM head) runs once over all groups' rows, and only attention
runs per group. At the embedded model's shapes an SFT step is as much per-op cost (graph
building, dispatch, BLAS packing) as arithmetic: two groups as one cut the step's ops from ~950
to ~710 and its CPU time by ~13%. The MLP's SwiGLU is `fast_activation.swiglu_fast`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx_lm.models import llama
from mlx_lm.models.activations import swiglu

from stages.training.fast_activation import swiglu_fast
from stages.training.logprobs import logits_logprobs

# Row counts of a group are rounded up to a multiple of this (with all-padding rows of zero
# mask), so batches of varying composition reuse a few compiled shapes instead of tracing anew.
ROW_MULTIPLE = 16
# Splitting must save at least this many positions: each group costs its own ops.
MIN_SAVING = 64


@dataclass(frozen=True)
class Group:
    """Rows padded to one width: `tokens_BT`, `mask_BT` over the targets `tokens_BT[:, 1:]`,
    and `start`, the first target position any row's mask covers."""

    tokens_BT: mx.array
    mask_BT: mx.array
    start: int


def _group(
    prompts: Sequence[Sequence[int]], completions: Sequence[Sequence[int]], rows: int, pad_id: int
) -> Group:
    width = max(len(p) + len(c) for p, c in zip(prompts, completions, strict=True))
    tokens_BT = np.full((rows, width), pad_id, dtype=np.int32)
    mask_BT = np.zeros((rows, width - 1), dtype=np.float32)
    for b, (p, c) in enumerate(zip(prompts, completions, strict=True)):
        tokens_BT[b, : len(p) + len(c)] = list(p) + list(c)
        mask_BT[b, len(p) - 1 : len(p) + len(c) - 1] = 1.0
    start = min(len(p) for p in prompts) - 1
    return Group(mx.array(tokens_BT), mx.array(mask_BT), start)


def _rounded(n: int) -> int:
    return -(-n // ROW_MULTIPLE) * ROW_MULTIPLE


def pack_rows(
    prompts_B: Sequence[Sequence[int]], completions_B: Sequence[Sequence[int]], pad_id: int = 0
) -> list[Group]:
    """The batch as one group padded to its longest row, or as two (rows up to some length, the
    rest) when that computes at least `MIN_SAVING` fewer positions. Row order inside a group
    follows the batch's (a sum over rows does not depend on it beyond rounding)."""
    if len(prompts_B) != len(completions_B) or not prompts_B:
        raise ValueError("pack_rows needs one completion per prompt and at least one row")
    lengths = [len(p) + len(c) for p, c in zip(prompts_B, completions_B, strict=True)]
    if min(len(p) for p in prompts_B) < 1:
        raise ValueError("every prompt needs at least one token")
    n, longest = len(lengths), max(lengths)
    best_cost, best_cut = n * longest, None
    for cut in sorted(set(lengths))[:-1]:
        short = sum(1 for length in lengths if length <= cut)
        cost = _rounded(short) * cut + _rounded(n - short) * longest
        if cost + MIN_SAVING <= best_cost:
            best_cost, best_cut = cost, cut
    if best_cut is None:
        return [_group(prompts_B, completions_B, n, pad_id)]
    groups = []
    for keep in (lambda length: length <= best_cut, lambda length: length > best_cut):
        rows = [b for b in range(n) if keep(lengths[b])]
        groups.append(
            _group(
                [prompts_B[b] for b in rows], [completions_B[b] for b in rows],
                _rounded(len(rows)), pad_id,
            )
        )  # fmt: skip
    return groups


def _mlp(mlp: nn.Module, x: mx.array) -> mx.array:
    """mlx-lm llama's MLP, with `swiglu_fast` (the same function, its exp fused; see there)
    for float32 activations."""
    gate, up = mlp.gate_proj(x), mlp.up_proj(x)
    return mlp.down_proj((swiglu_fast if gate.dtype == mx.float32 else swiglu)(gate, up))


def _attention(
    attn: nn.Module, x_ND: mx.array, shapes: Sequence[tuple[int, int]], starts: Sequence[int]
) -> mx.array:
    """Causal self-attention of the groups laid end to end in `x_ND` (group i: B_i x L_i rows),
    with queries, output projection and result only at each group's positions `start_i..`
    (starts of 0: every position). Projections run once over all groups' rows."""
    q_in = mx.concatenate(
        [x.reshape(B, L, -1)[:, s:].reshape(B * (L - s), -1)
         for x, (B, L), s in zip(_split(x_ND, shapes), shapes, starts, strict=True)]
    ) if any(starts) else x_ND  # fmt: skip
    queries, keys, values = attn.q_proj(q_in), attn.k_proj(x_ND), attn.v_proj(x_ND)
    q_shapes = [(B, L - s) for (B, L), s in zip(shapes, starts, strict=True)]
    outs = []
    for q, k, v, (B, L), s in zip(
        _split(queries, q_shapes), _split(keys, shapes), _split(values, shapes), shapes, starts,
        strict=True,
    ):  # fmt: skip
        q = attn.rope(q.reshape(B, L - s, attn.n_heads, -1).transpose(0, 2, 1, 3), offset=s)
        k = attn.rope(k.reshape(B, L, attn.n_kv_heads, -1).transpose(0, 2, 1, 3))
        v = v.reshape(B, L, attn.n_kv_heads, -1).transpose(0, 2, 1, 3)
        # "causal" aligns a shorter query block with the keys' end: query i sits at s + i
        out = mx.fast.scaled_dot_product_attention(q, k, v, scale=attn.scale, mask="causal")
        outs.append(out.transpose(0, 2, 1, 3).reshape(B * (L - s), -1))
    return attn.o_proj(mx.concatenate(outs) if len(outs) > 1 else outs[0])


def _split(x_ND: mx.array, shapes: Sequence[tuple[int, int]]) -> list[mx.array]:
    """`x_ND`'s rows cut into the groups' B x L blocks (flat, in order)."""
    bounds = np.cumsum([B * L for B, L in shapes])[:-1].tolist()
    return mx.split(x_ND, bounds) if bounds else [x_ND]


def _llama_window_rows(
    model: nn.Module, inputs: Sequence[mx.array], starts: Sequence[int]
) -> mx.array:
    """The logits of every group's positions `start..`, the groups' rows laid end to end
    ([sum of B_i x (L_i - start_i), vocabulary]). Every row-wise op (embedding, norms,
    projections, MLP, LM head) runs once over all groups' rows; attention runs per group."""
    inner = model.model
    shapes = [tuple(x.shape) for x in inputs]
    h = inner.embed_tokens(mx.concatenate([x.reshape(-1) for x in inputs]))
    *first, last = inner.layers
    for layer in first:
        h = h + _attention(layer.self_attn, layer.input_layernorm(h), shapes, [0] * len(shapes))
        h = h + _mlp(layer.mlp, layer.post_attention_layernorm(h))
    x = last.input_layernorm(h)
    h = mx.concatenate(
        [g.reshape(B, L, -1)[:, s:].reshape(B * (L - s), -1)
         for g, (B, L), s in zip(_split(h, shapes), shapes, starts, strict=True)]
    )  # fmt: skip
    h = h + _attention(last.self_attn, x, shapes, starts)
    h = h + _mlp(last.mlp, last.post_attention_layernorm(h))
    h = inner.norm(h)
    if model.args.tie_word_embeddings:
        return inner.embed_tokens.as_linear(h)
    return model.lm_head(h)


def _fast_path(model: nn.Module) -> bool:
    # sliding-window layers take another mask: those models run the plain forward
    return isinstance(model, llama.Model) and model.model.swa_idx is None


def window_logits(model: nn.Module, inputs_BT: mx.array, start: int) -> mx.array:
    """`model(inputs_BT)[:, start:]`, with the last block's per-position work and the LM head
    done only at positions `start..` for mlx-lm llama models (see the module's docstring)."""
    if not _fast_path(model):
        return model(inputs_BT)[:, start:]
    B, L = inputs_BT.shape
    return _llama_window_rows(model, [inputs_BT], [start]).reshape(B, L - start, -1)


def packed_ce(model: nn.Module, groups: Sequence[Group]) -> mx.array:
    """Mean cross-entropy over every completion token of the groups (the batch's masked mean)."""
    count = sum(g.mask_BT.sum() for g in groups)
    if _fast_path(model):
        logits_NV = _llama_window_rows(
            model, [g.tokens_BT[:, :-1] for g in groups], [g.start for g in groups]
        )
        targets_N = mx.concatenate([g.tokens_BT[:, g.start + 1 :].reshape(-1) for g in groups])
        mask_N = mx.concatenate([g.mask_BT[:, g.start :].reshape(-1) for g in groups])
        logp_N, _ = logits_logprobs(logits_NV, targets_N)
        total = (logp_N * mask_N).sum()
    else:
        total = mx.array(0.0)
        for g in groups:
            logits_BTV = model(g.tokens_BT[:, :-1])[:, g.start :]
            logp_BT, _ = logits_logprobs(logits_BTV, g.tokens_BT[:, g.start + 1 :])
            total = total + (logp_BT * g.mask_BT[:, g.start :]).sum()
    return -total / mx.maximum(count, 1.0)


__all__ = ["MIN_SAVING", "ROW_MULTIPLE", "Group", "pack_rows", "packed_ce", "window_logits"]
