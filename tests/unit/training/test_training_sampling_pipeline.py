"""The pipelined decode loop (step i+1 queued before step i is read back) gives exactly what a
plain step-by-step loop gives: same tokens, same log-probs, same stopping."""

from __future__ import annotations

import mlx.core as mx
import numpy as np
from mlx_lm.models.cache import make_prompt_cache

from stages.training.model import encode_prompt
from stages.training.sampling import KeyedSampler, generate_tokens


def step_by_step(model, prompts_b, eos_ids, max_tokens, sampler):
    """The reference: evaluate every step before building the next, stop when all saw EOS."""
    cache = make_prompt_cache(model)
    logits = model(mx.array(prompts_b), cache=cache)[:, -1, :].astype(mx.float32)
    tokens, logprobs, done = [], [], np.zeros(len(prompts_b), dtype=bool)
    for _ in range(max_tokens):
        lp = logits - mx.logsumexp(logits, axis=-1, keepdims=True)
        tok = sampler(lp)
        picked = mx.take_along_axis(lp, tok[:, None], axis=-1)[:, 0]
        mx.eval(tok, picked)
        tokens.append(np.array(tok))
        logprobs.append(np.array(picked))
        done |= np.isin(tokens[-1], eos_ids)
        if done.all():
            break
        logits = model(tok[:, None], cache=cache)[:, -1, :].astype(mx.float32)
    out_t, out_lp = [], []
    for b in range(len(prompts_b)):
        column = np.stack(tokens)[:, b]
        stops = np.flatnonzero(np.isin(column, eos_ids))
        end = stops[0] + 1 if len(stops) else len(column)
        out_t.append(column[:end].tolist())
        out_lp.append(np.stack(logprobs)[:end, b].tolist())
    return out_t, out_lp


def test_pipelined_decode_equals_the_step_by_step_loop(fresh_model, prompts):
    model, tokenizer = fresh_model
    ids = [encode_prompt(tokenizer, p, True) for p in prompts[:16] for _ in range(4)]
    eos = sorted(tokenizer.eos_token_ids)
    for max_tokens, temperature in ((3, 1.0), (24, 1.0), (24, 0.0), (1, 1.0)):
        want_t, want_lp = step_by_step(model, ids, eos, max_tokens, KeyedSampler(7, temperature))
        got_t, got_lp, truncated, n = generate_tokens(
            model, ids, eos, max_tokens, KeyedSampler(7, temperature)
        )
        assert got_t == want_t, (max_tokens, temperature)
        assert got_lp == want_lp, (max_tokens, temperature)
        assert n == sum(len(t) for t in want_t)
        assert truncated == [t[-1] not in eos for t in want_t]
    # with room to finish, the SFT'd model ends every answer: the loop stopped early
    assert max(len(t) for t in want_t) < 24
