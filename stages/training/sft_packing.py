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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx_lm.models import llama
from mlx_lm.models.base import create_attention_mask

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


def window_logits(model: nn.Module, inputs_BT: mx.array, start: int) -> mx.array:
    """`model(inputs_BT)[:, start:]`, with the last block's per-position work and the LM head
    done only at positions `start..` for mlx-lm llama models (see the module's docstring)."""
    # sliding-window layers take another mask: those models run the plain forward
    if not isinstance(model, llama.Model) or model.model.swa_idx is not None or start <= 0:
        return model(inputs_BT)[:, start:]
    inner = model.model
    h = inner.embed_tokens(inputs_BT)
    mask = create_attention_mask(h, None)
    *first, last = inner.layers
    for layer in first:
        h = layer(h, mask)
    attn = last.self_attn
    x = last.input_layernorm(h)
    B, L, _ = x.shape
    queries = attn.q_proj(x[:, start:]).reshape(B, L - start, attn.n_heads, -1)
    keys = attn.k_proj(x).reshape(B, L, attn.n_kv_heads, -1).transpose(0, 2, 1, 3)
    values = attn.v_proj(x).reshape(B, L, attn.n_kv_heads, -1).transpose(0, 2, 1, 3)
    queries = attn.rope(queries.transpose(0, 2, 1, 3), offset=start)
    keys = attn.rope(keys)
    # "causal" aligns the shorter query block with the keys' end: query i sits at start + i
    out = mx.fast.scaled_dot_product_attention(
        queries, keys, values, scale=attn.scale, mask="causal"
    )
    h = h[:, start:] + attn.o_proj(out.transpose(0, 2, 1, 3).reshape(B, L - start, -1))
    h = h + last.mlp(last.post_attention_layernorm(h))
    h = inner.norm(h)
    if model.args.tie_word_embeddings:
        return inner.embed_tokens.as_linear(h)
    return model.lm_head(h)


def packed_ce(model: nn.Module, groups: Sequence[Group]) -> mx.array:
    """Mean cross-entropy over every completion token of the groups (the batch's masked mean)."""
    total, count = mx.array(0.0), mx.array(0.0)
    for g in groups:
        logits_BTV = window_logits(model, g.tokens_BT[:, :-1], g.start)
        logp_BT, _ = logits_logprobs(logits_BTV, g.tokens_BT[:, g.start + 1 :])
        total = total + (logp_BT * g.mask_BT[:, g.start :]).sum()
        count = count + g.mask_BT.sum()
    return -total / mx.maximum(count, 1.0)


__all__ = ["MIN_SAVING", "ROW_MULTIPLE", "Group", "pack_rows", "packed_ce", "window_logits"]
