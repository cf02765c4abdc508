"""The one GRPO step, on every rank of a `World` (a world of one unless launched under
`mlx.launch`), as five named phases, each a function with a typed result:

    sample -> score -> refill -> update -> figures

The orchestrator's RL stages, the benchmarks and `rlvr calibrate` all run this code. The step
takes the settings in force (store/settings.py) as an argument, as tinker-cookbook's step takes
its learning rate and KL coefficient: nothing it keeps between steps holds them.

Per step: the prompt list is the one a single rank would draw for (seed, step); rank r takes a
contiguous slice of it, sized by the split in force (stages/rl/split.py). The update's gradients,
loss, KL and entropy are token-weighted sums over ranks through the world's reducer, passed to
every update (a no-op for one process); the step's other figures are computed from what every
rank gathers, so every rank holds the same figures, merged once. Per-rank timings go into the
figures as `rank{r}_*_s` when there are several ranks.

- A verdict with `excluded` (a judge error: an infrastructure fault) is not a zero: its group is
  left out of the update. A response that made the verifier raise, or that tried to steer the
  judge, is a zero like any wrong answer.
- `scale_rewards = "batch"` (a std over the whole batch) is not supported across ranks.
- `dynamic_sampling` refills the batch in extra sampling rounds (stages/rl/refill.py); the
  step's reward figures describe the batch as drawn (round 0), so a collapse of reward variance
  stays visible to the policies, and `trained_groups` / `refill_rounds` say what was trained on.
  Not supported across ranks.
- `grpo.max_staleness` k > 0: the sample phase's `draw` is the asynchronous sampler's
  (stages/rl/async_sampler.py): the batch the weights after step t-1-k sampled, in a second
  process, while earlier steps trained. Not supported across ranks.
- `reward_weights`: `score`'s verdicts carry their components (stages/rl/rewards.py); each
  component's mean is a figure `reward_<name>`, and `verify_rate` reads `correctness`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stages.distributed import World
from stages.errors import StageError
from stages.rl.figures import gather_figures
from stages.rl.refill import refill
from stages.rl.rewards import components_of
from stages.rl.split import Split
from stages.rl.types import Draw, Logged, Refilled, Sampled, Score, Scored, StepResult, Updated
from stages.training.config import GRPOConfig
from stages.training.grpo import step_seed, train_step
from stages.training.sampling import Sampler, batched, sample_groups
from stages.training.types import RolloutGroup, TrainerState
from store.crashpoints import crashpoint
from store.settings import Settings


@dataclass(frozen=True)
class Rank:
    """Where this process stands in the step: its world (whose reducer the update is always
    given) and the split of the step's groups in force."""

    world: World
    split: Split

    @classmethod
    def alone(cls, world: World | None = None) -> Rank:
        """A world of one (the benchmarks, tests): one rank, nothing split."""
        from stages.distributed import DistributedConfig

        world = world or World(None, DistributedConfig())
        return cls(world, Split.of(world.config, world.size))


def rl_step(
    trainer: TrainerState,
    prompts: Sequence[Any],
    config: GRPOConfig,
    settings: Settings,
    score: Score,
    rank: Rank,
    *,
    sampler: Sampler = batched,
    attempt: int = 0,
    logged: Logged | None = None,
    keep_samples: int | None = 0,
    refill_pool: Sequence[Any] | None = None,
    draw: Draw | None = None,
) -> StepResult:
    """Sample, score, refill and train step `trainer.step` on `prompts` (the whole step's, every
    rank the same list) with `settings` in force; the step's figures. `sampler`: how rollouts
    draw their tokens (`batched`, or the split-invariant `keyed`). With `logged` (a resume's
    catch-up) `score` is not called: the log's rewards are used. `refill_pool`: where dynamic
    sampling draws fresh prompts (default: `prompts`). `keep_samples`: the step's first groups
    whose rollouts the figures carry whole for the log (None: every one). `draw`: where the
    rollouts come from instead of the live policy (asynchronous rollouts, a world of one)."""
    config = config.in_force(settings)
    if config.scale_rewards == "batch" and rank.world.size > 1:
        raise StageError("grpo.scale_rewards = 'batch' is not supported across ranks")
    if config.dynamic_sampling and rank.world.size > 1:
        raise StageError("grpo.dynamic_sampling is not supported across ranks")
    if config.max_staleness and rank.world.size > 1:
        raise StageError("grpo.max_staleness > 0 is not supported across ranks")
    start = time.perf_counter()
    lo, mine = rank.split.slice_of(rank.world.rank, prompts)
    draw = draw or policy_draw(trainer, config, sampler, lo)
    sampled = sample(mine, lo, draw, step_seed(config, trainer.step, attempt))
    scored = score_groups(sampled, score, config.group_size, logged)
    refilled = refill_groups(
        config, trainer.step, attempt, sampled, scored, draw, score,
        prompts if refill_pool is None else refill_pool, logged,
    )  # fmt: skip
    crashpoint("verification")
    sample_s = rank.split.throttle(rank.world.rank, time.perf_counter() - start)
    updated = update(trainer, refilled, config, rank, attempt, sample_s)
    figures = gather_figures(
        rank.world, config, settings, attempt, keep_samples, sampled, scored, refilled, updated
    )
    return StepResult(sampled, scored, refilled, updated, figures)


def policy_draw(
    trainer: TrainerState, config: GRPOConfig, sampler: Sampler, first_index: int
) -> Draw:
    """The step's own `Draw`: the live policy sampled with `sampler`, `config.group_size`
    completions of each record (record p is prompt `first_index + p` of the step)."""

    def draw(records: list[Any], seed: int) -> tuple[list[RolloutGroup], dict[str, float]]:
        return sample_groups(
            trainer.model, trainer.tokenizer, records, config.sampling, config.group_size,
            sampler(seed, config.sampling, first_index, config.group_size),
        )  # fmt: skip

    return draw


def sample(records: list[Any], first_index: int, draw: Draw, seed: int) -> Sampled:
    """Phase 1: this rank's groups of completions, from `draw` (the step's own sampling of the
    live policy; an asynchronous sampler can stand in)."""
    groups, stats = draw(records, seed)
    crashpoint("sampling")
    return Sampled(first_index, groups, float(stats["sample_tokens"]))


def score_groups(sampled: Sampled, score: Score, group_size: int, logged: Logged | None) -> Scored:
    """Phase 2: each rollout's reward (and reward components), from the verifier or the log."""
    if logged is not None:
        lo, count = sampled.first_index, len(sampled.groups)
        return Scored(
            logged.rewards_GN[lo : lo + count],
            {k: v[lo : lo + count] for k, v in logged.components.items()},
        )
    groups, n = sampled.groups, group_size
    verdicts = score([g.prompt for g in groups for _ in g.rollouts_N],
                     [r.text for g in groups for r in g.rollouts_N])  # fmt: skip
    rows = [[None if v.excluded else v.reward for v in verdicts[g * n : (g + 1) * n]]
            for g in range(len(groups))]  # fmt: skip
    return Scored(rows, components_of(verdicts, n), verdicts)


def refill_groups(
    config: GRPOConfig, step: int, attempt: int, sampled: Sampled, scored: Scored,
    draw: Draw, score: Score, pool: Sequence[Any],
    logged: Logged | None,
) -> Refilled:  # fmt: skip
    """Phase 3: with dynamic sampling, the groups whose rewards vary, refilled from extra rounds
    of fresh prompts (stages/rl/refill.py); otherwise the batch as drawn."""
    if not config.dynamic_sampling:
        return Refilled(sampled.groups, scored.rewards_GN, [], 0.0)
    trained, rewards, rounds, extra = refill(
        config, step, attempt, sampled.groups, scored.rewards_GN, pool, draw,
        lambda new: score_groups(Sampled(0, new, 0.0), score, config.group_size, None).rewards_GN,
        list(logged.refills) if logged is not None else None,
    )  # fmt: skip
    if not trained:  # nothing varied in any round: the update drops them all, as without
        trained, rewards = sampled.groups, scored.rewards_GN
    return Refilled(trained, rewards, rounds, extra["sample_tokens"])


def update(
    trainer: TrainerState, refilled: Refilled, config: GRPOConfig, rank: Rank, attempt: int,
    sample_s: float,
) -> Updated:  # fmt: skip
    """Phase 4: one GRPO update on the groups every rollout of which was scored, through the
    world's reducer."""
    usable = [g for g, row in enumerate(refilled.rewards_GN) if None not in row]
    comm_before = rank.world.comm_s
    metrics = train_step(
        trainer, [refilled.groups[g] for g in usable], [refilled.rewards_GN[g] for g in usable],
        config, rank.world.sum_tree, attempt,
    )  # fmt: skip
    crashpoint("optimizer")  # the update is applied in memory, nothing appended yet
    train_s = rank.split.throttle(
        rank.world.rank, metrics.train_s - (rank.world.comm_s - comm_before)
    )
    return Updated(metrics, sample_s, train_s)
