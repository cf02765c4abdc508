"""Batched sampling on mlx_lm models and KV caches: every completion of every prompt is decoded in
one batch per prompt length, returning token ids (the EOS token included, unlike mlx_lm's
`batch_generate`), per-token log-probs of the temperature-1 policy, and a truncation flag.

Why not mlx_lm's `BatchGenerator`: on the tiny embedded model its per-sequence bookkeeping (a
log-prob row object per sequence per step, cache filtering, per-token `.item()`) cost ~3x the
model itself. Sequences of one bucket keep decoding after their EOS (the extra tokens are dropped);
with short answers that is cheaper than filtering the cache.

`sampling.compiled_decode` swaps the per-bucket loop for one `mx.compile` graph per token step
over a fixed-shape KV cache (`static_decode.py`): the same rollouts, with the host off a GPU's
critical path.

Randomness: a sampler splits an explicit key (from `derive_seed(seed, step, attempt)`) once per
decoding step, so the same key gives the same rollouts whatever else used mlx's global RNG. Which
key each decode batch draws from is the injected sampler's choice (`RowSampler`): `batched` gives
the whole call one key, carried from batch to batch (a completion's draws depend on where it sits
in the batch); the split-invariant sampler (stages/rl/sampling.py) gives each completion its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx_lm.models.cache import make_prompt_cache
from mlx_lm.sample_utils import apply_top_p

from stages.training.config import SamplingConfig
from stages.training.decode_steps import cut_at_eos, pick_next
from stages.training.model import encode_prompt
from stages.training.types import Rollout, RolloutGroup

TokenSampler = Callable[[mx.array], mx.array]
"""token_B = sampler(logprobs_BV): the next token of each row of one decode batch."""


class RowSampler(Protocol):
    def for_rows(self, rows_b: Sequence[int]) -> TokenSampler:
        """The token sampler of the decode batch made of these rows of the call (row b of a
        `sample_groups` call is completion b % group_size of its prompt b // group_size)."""
        ...


Sampler = Callable[[int, SamplingConfig, int, int], RowSampler]
"""sampler(seed, config, first_index, group_size): the `RowSampler` of one `sample_groups` call
whose prompt p is prompt `first_index + p` of the step."""


class KeyedSampler:
    """Temperature / top-p sampling from log-probs with its own key; greedy at temperature 0.
    As a `RowSampler` it serves every decode batch of a call, its key carried from one to the
    next: a completion's draws depend on the batch layout."""

    def __init__(self, seed: int, temperature: float, top_p: float = 1.0) -> None:
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {top_p}")
        self.key = mx.random.key(seed)
        self.temperature = temperature
        self.top_p = top_p

    def __call__(self, logprobs_BV: mx.array) -> mx.array:
        token_B, self.key = self.draw(logprobs_BV, self.key)
        return token_B

    def draw(self, logprobs_BV: mx.array, key: mx.array) -> tuple[mx.array, mx.array]:
        """The tokens drawn with `key`, and the key to draw the next ones with (a pure function,
        so a compiled decode step can carry the key as an input)."""
        if self.temperature == 0:
            return mx.argmax(logprobs_BV, axis=-1), key
        key, sub = mx.random.split(key)
        if self.top_p < 1.0:
            logprobs_BV = apply_top_p(logprobs_BV, self.top_p)
        return mx.random.categorical(logprobs_BV * (1.0 / self.temperature), key=sub), key

    @property
    def state(self) -> mx.array:
        return self.key

    @state.setter
    def state(self, key: mx.array) -> None:
        self.key = key

    def for_rows(self, rows_b: Sequence[int]) -> KeyedSampler:
        return self


def batched(
    seed: int, config: SamplingConfig, first_index: int = 0, group_size: int = 1
) -> KeyedSampler:
    """One key for the whole call (runs that never ran on several ranks sample so)."""
    return KeyedSampler(seed, config.temperature, config.top_p)


def generate_tokens(
    model: nn.Module,
    prompts_B: Sequence[Sequence[int]],
    eos_ids: Sequence[int],
    max_tokens: int,
    sampler: RowSampler,
    batch_size: int = 512,
    compiled_decode: bool = False,
    lookahead: int = 1,
    per_position: bool = False,
) -> tuple[list[list[int]], list[list[float]], list[bool], int]:
    """Decode every prompt: (tokens_B, logprobs_B, truncated_B, generated tokens).

    Prompts are bucketed by length, so each bucket runs as one [b, 1]-per-step decode over an
    mlx_lm KV cache with no padding at all (what makes the sampled log-probs equal a forward pass).
    `sampler.for_rows(rows)` samples each decode batch (`rows`: its indices into `prompts_B`).
    `compiled_decode`: decode with the compiled step over a fixed-shape cache
    (`stages/training/static_decode.py`; the token sampler needs `draw` and `state`, as
    KeyedSampler),
    `lookahead` steps queued before the EOS check, `per_position` a trace per cache position
    (no attention mask); models whose cache it cannot replace decode on the eager loop.
    """
    if max_tokens <= 0:
        raise ValueError(f"max_tokens must be positive, got {max_tokens}")
    if batch_size <= 0:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    if lookahead <= 0:
        raise ValueError(f"lookahead must be positive, got {lookahead}")
    if any(len(p) == 0 for p in prompts_B):
        raise ValueError("every prompt needs at least one token; got an empty prompt")
    by_length: dict[int, list[int]] = {}
    for b, p in enumerate(prompts_B):
        by_length.setdefault(len(p), []).append(b)
    tokens_B: list[list[int]] = [[] for _ in prompts_B]
    logprobs_B: list[list[float]] = [[] for _ in prompts_B]
    truncated_B = [False] * len(prompts_B)
    eos = np.array(sorted(eos_ids))
    decode = _decode_bucket
    if compiled_decode:
        # imported here: the compiled decode is only loaded when a config asks for it
        from stages.training import static_decode

        if static_decode.static_cache_supported(make_prompt_cache(model)):

            def decode(model, prompts_b, eos, max_tokens, sampler):
                return static_decode.decode_bucket_compiled(
                    model, prompts_b, eos, max_tokens, sampler, lookahead, per_position
                )

    for length in sorted(by_length):
        members = by_length[length]
        for lo in range(0, len(members), batch_size):
            rows = members[lo : lo + batch_size]
            toks, lps = decode(
                model, [prompts_B[b] for b in rows], eos, max_tokens, sampler.for_rows(rows)
            )
            for b, t, lp in zip(rows, toks, lps, strict=True):
                tokens_B[b], logprobs_B[b] = t, lp
                truncated_B[b] = t[-1] not in eos
    return tokens_B, logprobs_B, truncated_B, sum(len(t) for t in tokens_B)


def _decode_bucket(
    model: nn.Module,
    prompts_b: list[Sequence[int]],
    eos: np.ndarray,
    max_tokens: int,
    sampler: TokenSampler,
) -> tuple[list[list[int]], list[list[float]]]:
    """Decode one bucket. Step i+1 is queued (`mx.async_eval`) before step i's tokens are read
    back for the EOS check, so the device works on one step while Python builds the next: a
    synchronous loop leaves the device idle for the whole graph-building time of every step
    (most of a decode step of a small model on a GPU). The price is one step decoded past the
    last EOS, which is dropped with the other tokens after it."""
    cache = make_prompt_cache(model)
    logits_bV = model(mx.array(prompts_b), cache=cache)[:, -1, :]
    token_b, logprob_b = pick_next(logits_bV, sampler)
    mx.async_eval(token_b, logprob_b)
    steps_tokens, steps_logprobs = [], []
    done_b = np.zeros(len(prompts_b), dtype=bool)
    for i in range(max_tokens):
        queued = None
        if i + 1 < max_tokens:
            queued = pick_next(model(token_b[:, None], cache=cache)[:, -1, :], sampler)
            mx.async_eval(*queued)
        token_np = np.array(token_b)  # waits for step i only; step i+1 is already queued
        steps_tokens.append(token_np)
        steps_logprobs.append(np.array(logprob_b))
        done_b |= np.isin(token_np, eos)
        if done_b.all() or queued is None:
            break
        token_b, logprob_b = queued
    return cut_at_eos(np.stack(steps_tokens), np.stack(steps_logprobs), eos)


def _text(tokenizer: Any, tokens: list[int]) -> str:
    eos = set(tokenizer.eos_token_ids)
    return tokenizer.decode([t for t in tokens if t not in eos])


def sample_groups(
    model: nn.Module,
    tokenizer: Any,
    prompts_P: Sequence[Any],
    config: SamplingConfig,
    group_size: int,
    sampler: RowSampler,
    prompt_text: Callable[[Any], str] | None = None,
) -> tuple[list[RolloutGroup], dict[str, float]]:
    """`group_size` completions of each prompt record, decoded in batches of one prompt length,
    each batch sampled by `sampler.for_rows` (e.g. `batched(seed, config)`).

    `prompt_text(record)` gives the prompt string (default: the record itself, or its "prompt"
    key/attribute). Returns the groups and {"sample_s", "sample_tokens", "sample_tokens_per_s"}.
    """
    if group_size <= 0:
        raise ValueError(f"group_size must be positive, got {group_size}")
    if not prompts_P:
        raise ValueError("sample_groups needs at least one prompt, got none")
    to_text = prompt_text or default_prompt_text
    texts_P = [to_text(p) for p in prompts_P]
    ids_P = [encode_prompt(tokenizer, t, config.use_chat_template) for t in texts_P]
    flat_ids = [ids for ids in ids_P for _ in range(group_size)]
    start = time.perf_counter()
    tokens, logprobs, truncated, generated = generate_tokens(
        model, flat_ids, tokenizer.eos_token_ids, config.max_tokens, sampler, config.batch_size,
        config.compiled_decode, config.decode_lookahead, config.compiled_decode_per_position,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    groups = []
    for p, (record, text, ids) in enumerate(zip(prompts_P, texts_P, ids_P, strict=True)):
        rollouts_N = [
            Rollout(
                prompt_tokens=list(ids),
                tokens=tokens[i],
                logprobs=logprobs[i],
                text=_text(tokenizer, tokens[i]),
                truncated=truncated[i],
            )
            for i in range(p * group_size, (p + 1) * group_size)
        ]
        groups.append(RolloutGroup(prompt=record, prompt_text=text, rollouts_N=rollouts_N))
    stats = {
        "sample_s": seconds,
        "sample_tokens": float(generated),
        "sample_tokens_per_s": generated / max(seconds, 1e-9),
    }
    return groups, stats


def default_prompt_text(record: Any) -> str:
    """A prompt record's text: the record if a str, else its "prompt" key or attribute."""
    if isinstance(record, str):
        return record
    if isinstance(record, dict) and "prompt" in record:
        return str(record["prompt"])
    if hasattr(record, "prompt"):
        return str(record.prompt)
    raise ValueError(f"cannot find the prompt text of record {record!r}: pass prompt_text=")


def generate_greedy(
    model: nn.Module,
    tokenizer: Any,
    prompts: Sequence[str],
    max_tokens: int = 16,
    use_chat_template: bool = True,
    batch_size: int = 512,
) -> list[str]:
    """Greedy completions of `prompts` (batched), EOS stripped: the evaluation helper."""
    if not prompts:
        return []
    ids = [encode_prompt(tokenizer, t, use_chat_template) for t in prompts]
    tokens, _, _, _ = generate_tokens(
        model, ids, tokenizer.eos_token_ids, max_tokens, KeyedSampler(0, 0.0), batch_size
    )
    return [_text(tokenizer, t) for t in tokens]
