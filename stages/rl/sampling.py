"""Split-invariant sampling: completion i of global prompt p draws its noise from its own key,
derived from (step seed, p, i), by the Gumbel-max trick. So the rollouts (and the update) do not
depend on how many ranks there are or how a step's groups were split, and a run resumed on fewer
ranks replays the same rollouts. It is a sampler `sample_groups` is given (`keyed`); runs that
never ran on several ranks keep the batched one (stages/training/sampling.py `batched`): its draws
depend on the batch layout, its rollouts on nothing else."""

from __future__ import annotations

from collections.abc import Sequence

import mlx.core as mx
from mlx_lm.sample_utils import apply_top_p

from stages.training.config import SamplingConfig
from stages.training.sampling import Sampler
from stages.training.schedule import derive_seed


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

    def for_rows(self, rows_b: Sequence[int]) -> RowKeyedSampler:
        """As a `RowSampler`: the sampler of the one decode batch it has a key per row of."""
        if len(rows_b) != self.keys_b2.shape[0]:
            raise ValueError(f"{self.keys_b2.shape[0]} keys for a batch of {len(rows_b)} rows")
        return self


class KeyedRows:
    """The split-invariant `RowSampler` (a `Sampler`, stages/training/sampling.py): row b of a
    call is completion b % group_size of the step's prompt first_index + b // group_size, and
    draws from its own key, whatever batch it is decoded in."""

    def __init__(
        self, seed: int, config: SamplingConfig, first_index: int, group_size: int
    ) -> None:
        self.seed, self.config = seed, config
        self.first_index, self.group_size = first_index, group_size

    def for_rows(self, rows_b: Sequence[int]) -> RowKeyedSampler:
        n = self.group_size
        seeds = [
            derive_seed(self.seed, "rollout", self.first_index + b // n, b % n) for b in rows_b
        ]
        return RowKeyedSampler(seeds, self.config.temperature, self.config.top_p)


keyed: Sampler = KeyedRows
