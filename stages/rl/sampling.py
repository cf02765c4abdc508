"""Split-invariant sampling: completion i of global prompt p draws its noise from its own key,
derived from (step seed, p, i), by the Gumbel-max trick. So the rollouts (and the update) do not
depend on how many ranks there are or how a step's groups were split, and a run resumed on fewer
ranks replays the same rollouts. Runs that never ran on several ranks keep the batched sampler
(stages/training/sampling.py): its draws depend on the batch layout, its rollouts on nothing else."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import mlx.core as mx
import mlx.nn as nn
from mlx_lm.sample_utils import apply_top_p

from stages.training.config import SamplingConfig
from stages.training.model import encode_prompt
from stages.training.sampling import generate_tokens
from stages.training.schedule import derive_seed
from stages.training.types import Rollout, RolloutGroup


class RowKeyedSampler:
    """Temperature / top-p sampling where row b of the batch draws from its own key."""

    def __init__(self, seeds_b: Sequence[int], temperature: float, top_p: float = 1.0) -> None:
        self.keys_b2 = mx.stack([mx.random.key(s) for s in seeds_b])
        self.temperature = temperature
        self.top_p = top_p

    def __call__(self, logprobs_bV: mx.array) -> mx.array:
        token_b, self.keys_b2 = self.draw(logprobs_bV, self.keys_b2)
        return token_b

    def draw(self, logprobs_bV: mx.array, keys_b2: mx.array) -> tuple[mx.array, mx.array]:
        """The tokens drawn with `keys_b2` and the keys for the next draw (pure, so the compiled
        decode step carries the keys as an input)."""
        if self.temperature == 0:
            return mx.argmax(logprobs_bV, axis=-1), keys_b2
        pairs_b22 = mx.vmap(mx.random.split)(keys_b2)
        keys_b2, sub_b2 = pairs_b22[:, 0], pairs_b22[:, 1]
        if self.top_p < 1.0:
            logprobs_bV = apply_top_p(logprobs_bV, self.top_p)
        width = logprobs_bV.shape[-1]
        gumbel_bV = mx.vmap(lambda k: mx.random.gumbel(shape=(width,), key=k))(sub_b2)
        return mx.argmax(logprobs_bV * (1.0 / self.temperature) + gumbel_bV, axis=-1), keys_b2

    @property
    def state(self) -> mx.array:
        return self.keys_b2

    @state.setter
    def state(self, keys_b2: mx.array) -> None:
        self.keys_b2 = keys_b2


def sample_groups_keyed(
    model: nn.Module,
    tokenizer: Any,
    prompts_P: Sequence[Any],
    first_index: int,
    config: SamplingConfig,
    group_size: int,
    seed: int,
) -> tuple[list[RolloutGroup], dict[str, float]]:
    """`sample_groups` with one key per completion: prompt `prompts_P[p]` is global prompt
    `first_index + p` of the step."""
    texts_P = [p.prompt if hasattr(p, "prompt") else str(p) for p in prompts_P]
    ids_P = [encode_prompt(tokenizer, t, config.use_chat_template) for t in texts_P]
    rows = [(p, i) for p in range(len(prompts_P)) for i in range(group_size)]
    seeds = [derive_seed(seed, "rollout", first_index + p, i) for p, i in rows]
    by_length: dict[int, list[int]] = {}
    for b, (p, _) in enumerate(rows):
        by_length.setdefault(len(ids_P[p]), []).append(b)
    tokens_B: list[list[int]] = [[] for _ in rows]
    logprobs_B: list[list[float]] = [[] for _ in rows]
    truncated_B = [False] * len(rows)
    eos = set(tokenizer.eos_token_ids)
    start = time.perf_counter()
    for members in by_length.values():
        for lo in range(0, len(members), config.batch_size):
            chunk = members[lo : lo + config.batch_size]
            sampler = RowKeyedSampler([seeds[b] for b in chunk], config.temperature, config.top_p)
            toks, lps, truncs, _ = generate_tokens(
                model, [ids_P[rows[b][0]] for b in chunk], sorted(eos), config.max_tokens,
                sampler, len(chunk), config.compiled_decode, config.decode_lookahead,
                config.compiled_decode_per_position,
            )  # fmt: skip
            for b, t, lp, tr in zip(chunk, toks, lps, truncs, strict=True):
                tokens_B[b], logprobs_B[b], truncated_B[b] = t, lp, tr
    seconds = time.perf_counter() - start
    groups = []
    for p, record in enumerate(prompts_P):
        rollouts_N = [
            Rollout(
                prompt_tokens=list(ids_P[p]), tokens=tokens_B[b], logprobs=logprobs_B[b],
                text=tokenizer.decode([t for t in tokens_B[b] if t not in eos]),
                truncated=truncated_B[b],
            )
            for b in range(p * group_size, (p + 1) * group_size)
        ]  # fmt: skip
        groups.append(RolloutGroup(prompt=record, prompt_text=texts_P[p], rollouts_N=rollouts_N))
    generated = sum(len(t) for t in tokens_B)
    stats = {"sample_s": seconds, "sample_tokens": float(generated),
             "sample_tokens_per_s": generated / max(seconds, 1e-9)}  # fmt: skip
    return groups, stats
