"""The compiled decode loop (`sampling.compiled_decode`): one `mx.compile` graph per token step
(the model's forward for one token, the log-softmax, the draw, the picked log-prob) over a
fixed-shape KV cache, so the step is traced once per (batch, capacity, sampler) and replayed
for every later token instead of being rebuilt op by op in Python.

Fixed shape: after the prompt's prefill (mlx_lm's own KVCache, as the eager loop), each layer's
keys/values move to a [b, kv_heads, capacity, d] buffer; a step writes its position with
`mx.slice_update` at an array offset and attends to every slot with slots >= offset + 1 masked
out. The capacity is `prompt + max_tokens - 1` rounded up to `CAPACITY_STEP`, so nearby prompt
lengths share one trace. Masked slots weigh exactly zero; on the CPU backend the log-probs equal
the eager loop's bitwise (tested), a backend that sums the longer rows in another order may differ
by rounding. MLX's CUDA decode attention kernels take no array mask, so there the masked step
attends through unfused ops; `per_position` (`sampling.compiled_decode_per_position`) traces a
step per position instead, attending to the exact slice written so far, with no mask.

Host-device syncs: `lookahead` steps are queued (`mx.async_eval`) before the oldest is read back
for the EOS check, so the device has work queued while Python reads tokens; the price is up to
`lookahead` steps decoded past the last EOS (dropped like every token after a row's EOS).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx_lm.models.cache import KVCache, make_prompt_cache

from stages.training.decode_steps import cut_at_eos, pick_next

CAPACITY_STEP = 16


class _CompiledSteps:
    """A model's compiled steps by sampler kind, kept on the model so they die with it (a step
    reads the model's state, so a module-level cache would keep every model alive). A copy of
    the model (a reference policy) starts with none."""

    def __init__(self) -> None:
        self.by_kind: dict[tuple, Callable] = {}

    def __deepcopy__(self, memo: dict) -> _CompiledSteps:
        return _CompiledSteps()


class StaticKVCache:
    """One layer's keys and values in a fixed [b, kv_heads, capacity, d] buffer, written at slot
    `offset`; duck-types the parts of mlx_lm's KVCache the attention layers use. `offset` is an
    int32 array (one trace serves every position: attention reads every slot, those >= offset + 1
    masked) or an int (a trace per position: attention reads the slots before it, no mask)."""

    def __init__(self, keys: mx.array, values: mx.array, offset: mx.array | int) -> None:
        self.keys, self.values, self.offset = keys, values, offset

    def update_and_fetch(self, keys: mx.array, values: mx.array) -> tuple[mx.array, mx.array]:
        if keys.shape[2] != 1:
            raise ValueError(f"the static cache decodes one token a step, got {keys.shape[2]}")
        exact = isinstance(self.offset, int)
        start = mx.array([self.offset], dtype=mx.int32) if exact else self.offset.reshape(1)
        self.keys = mx.slice_update(self.keys, keys, start, axes=(2,))
        self.values = mx.slice_update(self.values, values, start, axes=(2,))
        if exact:
            return self.keys[..., : self.offset + 1, :], self.values[..., : self.offset + 1, :]
        return self.keys, self.values

    def make_mask(self, n: int, return_array: bool = False, window_size: int | None = None):
        if window_size is not None:
            raise ValueError("the static cache has no sliding-window mask")
        if isinstance(self.offset, int):
            return None  # one query over exactly the slots written so far
        slots = mx.arange(self.keys.shape[2])
        return (slots < self.offset + n)[None, None, None, :]


def static_cache_supported(cache: Sequence[Any]) -> bool:
    """Whether every layer's prefill cache is mlx_lm's plain KVCache (what the buffer replaces);
    sliding-window, quantized or state-space caches decode on the eager loop."""
    return all(type(c) is KVCache for c in cache)


def capacity_for(prompt_len: int, max_tokens: int) -> int:
    """Slots the buffer needs (the last sampled token is never fed back), rounded up."""
    need = prompt_len + max_tokens - 1
    return -(-need // CAPACITY_STEP) * CAPACITY_STEP


def to_static(cache: Sequence[KVCache], capacity: int) -> tuple[list[mx.array], mx.array]:
    """The prefill caches as flat [keys_0, values_0, keys_1, ...] buffers of `capacity` slots,
    and the first free slot as an int32 array."""
    length = cache[0].offset
    buffers = []
    for c in cache:
        for x in (c.keys[..., :length, :], c.values[..., :length, :]):
            buffers.append(mx.pad(x, [(0, 0), (0, 0), (0, capacity - length), (0, 0)]))
    return buffers, mx.array(length, dtype=mx.int32)


def compiled_step(model: nn.Module, sampler: Any, position: int | None = None) -> Callable:
    """`step(token_b, offset, rng, *kv) -> (token_b, logprob_b, offset, rng, *kv)`: feed one token
    per row, draw the next. Kept per model and sampler kind; traced once per input shape. With
    `position`, the step is that position's alone (`offset` is then not read)."""
    steps = model.__dict__.get("_compiled_decode_steps")
    if steps is None:
        steps = model._compiled_decode_steps = _CompiledSteps()
    # samplers of one kind draw alike: the trace keeps the first one's `draw`
    kind = (type(sampler), sampler.temperature, sampler.top_p, position)
    if kind in steps.by_kind:
        return steps.by_kind[kind]

    def step(token_b, offset, rng, *kv):
        at = offset if position is None else position
        cache = [StaticKVCache(kv[i], kv[i + 1], at) for i in range(0, len(kv), 2)]
        logits_bV = model(token_b[:, None], cache=cache)[:, -1, :]
        box = _KeyBox(sampler, rng)
        token_b, logprob_b = pick_next(logits_bV, box)
        flat = [x for c in cache for x in (c.keys, c.values)]
        return (token_b, logprob_b, offset + 1, box.state, *flat)

    # the weights are inputs, read at each call: one trace serves every later update
    steps.by_kind[kind] = mx.compile(step, inputs=model.state)
    return steps.by_kind[kind]


class _KeyBox:
    """The sampler as `pick_next` calls it, drawing from a traced key instead of its own."""

    def __init__(self, sampler: Any, state: mx.array) -> None:
        self.sampler, self.state = sampler, state

    def __call__(self, logprobs_bV: mx.array) -> mx.array:
        token_b, self.state = self.sampler.draw(logprobs_bV, self.state)
        return token_b


def decode_bucket_compiled(
    model: nn.Module,
    prompts_b: list[Sequence[int]],
    eos: np.ndarray,
    max_tokens: int,
    sampler: Any,
    lookahead: int,
    per_position: bool = False,
) -> tuple[list[list[int]], list[list[float]]]:
    """Decode one bucket (prompts of one length) with the compiled step, as the eager loop
    `sampling._decode_bucket` does: each row's tokens and log-probs up to its first EOS. The
    model's cache must pass `static_cache_supported`. `per_position`: a step traced per cache
    position, attending to the written slots only (no mask), instead of one masked step."""
    cache = make_prompt_cache(model)
    token_b, logprob_b = pick_next(model(mx.array(prompts_b), cache=cache)[:, -1, :], sampler)
    mx.async_eval(token_b, logprob_b)
    # the sampler's key after each queued step: the next bucket must start from the key the
    # eager loop leaves (it stops one step past the all-EOS step), however far ahead this ran
    queued, keys_after = deque([(token_b, logprob_b)]), [sampler.state]
    read: list[tuple[np.ndarray, np.ndarray]] = []
    done_b = np.zeros(len(prompts_b), dtype=bool)

    def read_oldest() -> bool:
        token_b, logprob_b = queued.popleft()
        read.append((np.array(token_b), np.array(logprob_b)))
        done_b[:] |= np.isin(read[-1][0], eos)
        return bool(done_b.all())

    if max_tokens > 1:
        step = None if per_position else compiled_step(model, sampler)
        kv, offset = to_static(cache, capacity_for(len(prompts_b[0]), max_tokens))
        rng = sampler.state
    del cache  # the prefill's buffers go once the first step has copied them
    for i in range(1, max_tokens):
        if per_position:
            step = compiled_step(model, sampler, len(prompts_b[0]) + i - 1)
        token_b, logprob_b, offset, rng, *kv = step(token_b, offset, rng, *kv)
        mx.async_eval(token_b, logprob_b)
        queued.append((token_b, logprob_b))
        keys_after.append(rng)
        if len(queued) > lookahead and read_oldest():
            break
    else:
        while queued and not read_oldest():
            pass
    sampler.state = keys_after[min(len(read), max_tokens - 1)]
    return cut_at_eos(np.stack([t for t, _ in read]), np.stack([lp for _, lp in read]), eos)
