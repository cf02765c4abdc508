"""The two pieces every decode loop shares, the eager one (`sampling`) and the compiled one
(`static_decode`): picking the next token with its log-prob, and cutting each row at its EOS."""

from __future__ import annotations

from collections.abc import Callable

import mlx.core as mx
import numpy as np


def cut_at_eos(
    tokens_Tb: np.ndarray, logprobs_Tb: np.ndarray, eos: np.ndarray
) -> tuple[list[list[int]], list[list[float]]]:
    """Each column's tokens and log-probs up to and including its first EOS (all if none)."""
    out_tokens, out_logprobs = [], []
    for b in range(tokens_Tb.shape[1]):
        stops = np.flatnonzero(np.isin(tokens_Tb[:, b], eos))
        end = stops[0] + 1 if len(stops) else len(tokens_Tb)
        out_tokens.append(tokens_Tb[:end, b].tolist())
        out_logprobs.append(logprobs_Tb[:end, b].tolist())
    return out_tokens, out_logprobs


def pick_next(
    logits_bV: mx.array, sampler: Callable[[mx.array], mx.array]
) -> tuple[mx.array, mx.array]:
    """The next token of each row and its log-prob under the temperature-1 policy."""
    logits_bV = logits_bV.astype(mx.float32)
    logprobs_bV = logits_bV - mx.logsumexp(logits_bV, axis=-1, keepdims=True)
    token_b = sampler(logprobs_bV)
    return token_b, mx.take_along_axis(logprobs_bV, token_b[:, None], axis=-1)[:, 0]
