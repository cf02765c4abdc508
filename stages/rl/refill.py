"""DAPO's dynamic sampling (`grpo.dynamic_sampling`): a group whose rewards are all equal has no
advantage, so it carries no policy-gradient signal. The step leaves such groups out and samples
extra rounds of fresh prompts until it has as many groups with varied rewards as it drew prompts,
or `grpo.max_refill_rounds` rounds are spent (then it trains on those it has, as verl does not:
verl raises once `max_num_gen_batches` is reached).

Round k's prompts are drawn from the pool (the curriculum) with a key of (seed, step, attempt, k)
and sampled with another, so they depend on nothing but the log. Each round's task ids and
rewards go into the log (`BatchRefilled`); a resume's catch-up re-samples the same prompts and
takes the rewards from there instead of asking the verifier, as it does for the step's batch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from stages.errors import StageError
from stages.rl.types import Draw, Round, Rows
from stages.training.config import GRPOConfig
from stages.training.schedule import derive_seed
from stages.training.types import RolloutGroup

# (groups) -> rewards_GN: the step's own scoring.
Rewards = Callable[[list[RolloutGroup]], Rows]


def varies(row: Sequence[float | None]) -> bool:
    """A group the update can learn from: every rollout scored and not all rewards equal."""
    return None not in row and max(row) > min(row)  # type: ignore[type-var]


def task_id(record: Any) -> str:
    return str(getattr(record, "task_id", record))


def draw(pool: Sequence[Any], count: int, seed: int) -> list[Any]:
    """`count` distinct records of `pool` (all of it when smaller), in a seeded order."""
    picks = np.random.default_rng(seed).permutation(len(pool))[:count]
    return [pool[int(i)] for i in picks]


def refill(
    config: GRPOConfig,
    step: int,
    attempt: int,
    groups: list[RolloutGroup],
    rewards_GN: Rows,
    pool: Sequence[Any],
    sample: Draw,
    score: Rewards,
    logged: Sequence[dict] | None = None,
) -> tuple[list[RolloutGroup], Rows, list[Round], dict[str, float]]:
    """The groups to train on (those of `groups` whose rewards vary, then those of extra rounds,
    at most `len(groups)`), their rewards, the extra rounds and their summed sampling stats.
    `logged` (a catch-up): each round's logged `task_ids` and `rewards`; the verifier is not
    asked, the log's rounds are run (not the budget's) and a round whose prompts differ from
    the log's is refused."""
    want = len(groups)
    chosen = [(g, row) for g, row in zip(groups, rewards_GN, strict=True) if varies(row)]
    rounds: list[Round] = []
    stats = {"sample_s": 0.0, "sample_tokens": 0.0}
    # A replay runs the rounds the log holds, whatever the budget in force now (a branch may
    # have changed it); each must still have been needed.
    budget = config.max_refill_rounds if logged is None else len(logged)
    for k in range(1, budget + 1):
        missing = want - len(chosen)
        if missing <= 0 or not pool:
            if logged is not None:
                raise StageError(
                    f"cannot catch up step {step}: the log has {len(logged)} refill rounds, "
                    f"the replay needed {k - 1}"
                )
            break
        prompts = draw(pool, missing, derive_seed(config.seed, "refill", step, attempt, k))
        ids = [task_id(p) for p in prompts]
        if logged is not None and list(logged[k - 1]["task_ids"]) != ids:
            raise StageError(
                f"cannot catch up step {step}: refill round {k} of the log does not match "
                "the prompts drawn now (a different curriculum?)"
            )
        new, round_stats = sample(
            prompts, derive_seed(config.seed, "refill-sample", step, attempt, k)
        )
        rows = [list(r) for r in logged[k - 1]["rewards"]] if logged is not None else score(new)
        for key in stats:
            stats[key] += round_stats.get(key, 0.0)
        kept = [(g, row) for g, row in zip(new, rows, strict=True) if varies(row)]
        rounds.append(Round(round=k, task_ids=ids, rewards=rows, n_varied=len(kept)))
        chosen += kept
    chosen = chosen[:want]
    return [g for g, _ in chosen], [row for _, row in chosen], rounds, stats
