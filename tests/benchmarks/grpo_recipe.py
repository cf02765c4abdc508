"""What the benchmarks and the training tests run GRPO on, outside the orchestrator: the embedded
arithmetic recipe (`a+b=` / `a-b=` with a in 0..99, b in 0..9; 1,600 train / 400 held-out), whose
SFT teacher "forgets the carry" (off by ten on carry/borrow problems with probability
`carry_error`, drawn afresh each time a problem is seen), an exact-answer reward, and a loop of
the product's one RL step (stages/rl/step.py) on a world of one with fixed settings.

The product's own task code lives in stages/tasks; nothing under stages/ imports this module.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from stages.rl.step import Rank, rl_step
from stages.rl.types import Score
from stages.training.config import GRPOConfig
from stages.training.sft import epoch_batches
from stages.training.types import RolloutGroup, TrainerState
from stages.verifiers.types import Verdict

RewardFn = Callable[[list[Any], list[str]], list[float]]
"""rewards = reward_fn(prompt_records, completion_texts); one float per completion, same order."""


@dataclass(frozen=True)
class Problem:
    prompt: str
    answer: str
    carry: bool


def arithmetic_problems(seed: int = 0, held_out: int = 400) -> tuple[list[Problem], list[Problem]]:
    """All 2,000 `a+b=` / `a-b=` problems, split into disjoint (train, held-out) by `seed`."""
    problems = []
    for a in range(100):
        for b in range(10):
            problems.append(Problem(f"{a}+{b}=", str(a + b), a % 10 + b >= 10))
            problems.append(Problem(f"{a}-{b}=", str(a - b), a % 10 < b))
    random.Random(seed).shuffle(problems)
    return problems[held_out:], problems[:held_out]


def forgets_the_carry(
    problems: Sequence[Problem], batch_size: int, carry_error: float = 0.7, seed: int = 0
) -> Callable[[int], list[tuple[str, str]]]:
    """SFT batches from a teacher that is off by ten on carry/borrow problems, drawn afresh."""
    order = epoch_batches(list(problems), batch_size, seed)

    def batch(step: int) -> list[tuple[str, str]]:
        rng = random.Random(f"teacher:{seed}:{step}")
        out = []
        for p in order(step):
            answer = int(p.answer)
            if p.carry and rng.random() < carry_error:
                answer += -10 if "+" in p.prompt else 10
            out.append((p.prompt, str(answer)))
        return out

    return batch


def exact_answer_reward(records: list[Any], texts: list[str]) -> list[float]:
    """1.0 when the completion equals the record's answer (whitespace stripped), else 0.0."""
    return [float(t.strip() == r.answer) for r, t in zip(records, texts, strict=True)]


def rewards_as_verdicts(reward_fn: RewardFn, threshold: float = 1.0) -> Score:
    """A plain reward function as the step's `Score`."""

    def score(records: list[Any], texts: list[str]) -> list[Verdict]:
        rewards = list(reward_fn(records, texts))
        if len(rewards) != len(texts):
            raise ValueError(
                f"reward_fn returned {len(rewards)} rewards for {len(texts)} completions"
            )
        return [
            Verdict(passed=r >= threshold, reward=float(r), status="ok" if r >= threshold else "failed",
                    reason="reward function")
            for r in rewards
        ]  # fmt: skip

    return score


def score_groups(groups_G: Sequence[RolloutGroup], reward_fn: RewardFn) -> list[list[float]]:
    """Call `reward_fn(records, texts)` once over the whole batch; return `rewards_GN`."""
    records = [g.prompt for g in groups_G for _ in g.rollouts_N]
    texts = [r.text for g in groups_G for r in g.rollouts_N]
    flat = list(reward_fn(records, texts))
    if len(flat) != len(texts):
        raise ValueError(f"reward_fn returned {len(flat)} rewards for {len(texts)} completions")
    out, k = [], 0
    for g in groups_G:
        out.append([float(x) for x in flat[k : k + len(g.rollouts_N)]])
        k += len(g.rollouts_N)
    return out


def train_grpo(
    state: TrainerState,
    prompt_batches: Callable[[int], Sequence[Any]],
    reward_fn: RewardFn,
    config: GRPOConfig,
    steps: int,
    on_step: Callable[[dict[str, float | None]], None] | None = None,
    rollouts: Any = None,
) -> list[dict[str, float | None]]:
    """Run `steps` steps of the product's RL step from `state.step` on a world of one, with the
    config's settings in force throughout; `prompt_batches(step)` gives each step's prompt
    records (anything with a `prompt`, or strings). Each step's figures. `rollouts`: the
    sampler process of asynchronous rollouts (`config.max_staleness` > 0; stages/rl/
    async_sampler.py), whose stale batches the step trains on."""
    from stages.rl.async_sampler import stale_draw

    score = rewards_as_verdicts(reward_fn, config.verified_threshold)
    settings, rank = config.start_settings(), Rank.alone()
    history = []
    for _ in range(steps):
        draw = None
        if config.max_staleness:
            draw, _ = stale_draw(rollouts, state, config, prompt_batches)
        result = rl_step(
            state, prompt_batches(state.step), config, settings, score, rank, draw=draw
        )
        history.append(result.metrics)
        if on_step is not None:
            on_step(result.metrics)
    return history
