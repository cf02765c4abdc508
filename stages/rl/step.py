"""The one GRPO step: sample, score, train, and the step's figures, on every rank of a `World`
(a world of one unless launched under `mlx.launch`). The orchestrator's RL stages, the embedded
recipe, the benchmarks and `rlvr calibrate` all run this code.

Per step: the prompt list is the one a single rank would draw for (seed, step); rank r takes a
contiguous slice of it, sized by the split in force (`world.weights`). Gradients, loss, KL and
entropy are token-weighted sums over ranks (`train_step(reduce=...)`); the rest of the step's
figures are computed from what every rank gathers, so every rank holds the same figures. Per-rank
timings go into the figures as `rank{r}_*_s` when there are several ranks.

- A verdict with `excluded` (a judge error: an infrastructure fault) is not a zero: its group is
  left out of the update. A response that made the verifier raise, or that tried to steer the
  judge, is a zero like any wrong answer.
- `scale_rewards = "batch"` (a std over the whole batch) is not supported across ranks.
- `dynamic_sampling` refills the batch in extra sampling rounds (stages/rl/refill.py); the
  step's reward figures describe the batch as drawn (round 0), so a collapse of reward variance
  stays visible to the policies, and `trained_groups` / `refill_rounds` say what was trained on.
  Not supported across ranks.
- `reward_weights`: `score`'s verdicts carry their components (stages/rl/rewards.py); each
  component's mean is a figure `reward_<name>`, and `verify_rate` reads `correctness`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from stages.distributed import DistributedConfig, World, apportion, offsets
from stages.rl.refill import Round, refill
from stages.rl.rewards import CORRECTNESS, components_of
from stages.rl.sampling import sample_groups_keyed
from stages.rl.tunables import TUNABLES, setting
from stages.training.config import GRPOConfig
from stages.training.grpo import step_seed, train_step
from stages.training.sampling import sample_groups
from stages.training.types import RewardFn, RolloutGroup, StepMetrics, TrainerState
from stages.types import StageError
from stages.verifiers.types import Verdict
from store.crashpoints import crashpoint

Score = Callable[[list[Any], list[str]], Sequence[Verdict]]
"""verdicts = score(prompt_records, completion_texts); one verdict per completion, same order."""


@dataclass(frozen=True)
class StepResult:
    groups: list[RolloutGroup]  # this rank's groups
    rewards_GN: list[list[float | None]]  # every rank's, in prompt order; None: excluded
    components: dict[str, list[list[float | None]]]  # every rank's, by reward component
    refills: list[Round]  # dynamic sampling's extra rounds (a world of one)
    update: StepMetrics  # what `train_step` reported on this rank
    metrics: dict[str, float | None]  # the step's figures across ranks (finite or None + flag)
    samples: list[dict]  # the first `keep_samples` groups, for the log
    verdicts: list[dict]  # their verdicts (none when the rewards came from the log)
    n_passed: int
    n_errors: int
    n_total: int
    groups_per_s: list[float]  # each rank's measured throughput, for the split's drift check


def rewards_as_verdicts(reward_fn: RewardFn, threshold: float = 1.0) -> Score:
    """A plain reward function as a `Score` (the recipe's and the benchmarks' exact-answer reward)."""

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


def throttle(world: World, seconds: float) -> float:
    """Benchmarks: make a rank `throttle` times slower by sleeping; the seconds it now took."""
    factor = world.slowdown()
    if factor > 1.0:
        time.sleep((factor - 1.0) * seconds)
    return seconds * max(factor, 1.0)


def rl_step(
    trainer: TrainerState,
    prompts: Sequence[Any],
    config: GRPOConfig,
    score: Score,
    *,
    world: World | None = None,
    attempt: int = 0,
    logged_rewards: list | None = None,
    keyed: bool = False,
    keep_samples: int = 0,
    refill_pool: Sequence[Any] | None = None,
    logged_components: dict | None = None,
    logged_refills: Sequence[dict] | None = None,
) -> StepResult:
    """Sample, score and train step `trainer.step` on `prompts` (the whole step's, every rank the
    same list). `keyed`: the split-invariant sampler. With `logged_rewards` (a resume's catch-up)
    `score` is not called: the log's rewards (its reward components, its refill rounds' rewards)
    are used. `refill_pool`: where dynamic sampling draws fresh prompts (default: `prompts`)."""
    world = world or World(None, DistributedConfig())
    if config.scale_rewards == "batch" and world.size > 1:
        raise StageError("grpo.scale_rewards = 'batch' is not supported across ranks")
    if config.dynamic_sampling and world.size > 1:
        raise StageError("grpo.dynamic_sampling is not supported across ranks")
    step, n = trainer.step, config.group_size
    counts = apportion(len(prompts), world.weights or [1.0] * world.size)
    lo = offsets(counts)[world.rank]
    mine = list(prompts[lo : lo + counts[world.rank]])
    comm_before, start = world.comm_s, time.perf_counter()

    def sample(records: list[Any], seed: int) -> tuple[list[RolloutGroup], dict[str, float]]:
        if keyed:
            return sample_groups_keyed(
                trainer.model, trainer.tokenizer, records, lo, config.sampling, n, seed
            )
        return sample_groups(trainer.model, trainer.tokenizer, records, config.sampling, n, seed)

    def verify(groups: list[RolloutGroup]) -> tuple[Sequence[Verdict], list[list]]:
        flat = [g.prompt for g in groups for _ in g.rollouts_N]
        verdicts = score(flat, [r.text for g in groups for r in g.rollouts_N])
        rows = [[None if v.excluded else v.reward for v in verdicts[g * n : (g + 1) * n]]
                for g in range(len(groups))]  # fmt: skip
        return verdicts, rows

    groups, stats = sample(mine, step_seed(config, step, attempt))
    crashpoint("sampling")
    verdicts: Sequence[Verdict] = []
    if logged_rewards is None:
        verdicts, rewards_GN = verify(groups)
        components = components_of(verdicts, n)
    else:
        rewards_GN = logged_rewards[lo : lo + len(groups)]
        components = {k: v[lo : lo + len(groups)] for k, v in (logged_components or {}).items()}
    trained, trained_rewards = groups, rewards_GN
    rounds: list[Round] = []
    if config.dynamic_sampling:
        trained, trained_rewards, rounds, extra = refill(
            config, step, attempt, groups, rewards_GN,
            prompts if refill_pool is None else refill_pool, sample,
            lambda new: verify(new)[1], logged_refills,
        )  # fmt: skip
        stats = dict(stats, sample_tokens=stats["sample_tokens"] + extra["sample_tokens"])
        if not trained:  # nothing varied in any round: train_step drops them all, as without
            trained, trained_rewards = groups, rewards_GN
    crashpoint("verification")
    sample_s = throttle(world, time.perf_counter() - start)
    usable = [g for g, row in enumerate(trained_rewards) if None not in row]
    update = train_step(
        trainer, [trained[g] for g in usable], [trained_rewards[g] for g in usable], config,
        attempt, dict(stats, sample_s=sample_s), reduce=world.sum_tree if world.size > 1 else None,
    )  # fmt: skip
    crashpoint("optimizer")  # the update is applied in memory, nothing appended yet
    train_s = throttle(world, update.train_s - (world.comm_s - comm_before))
    local = {
        "rewards": rewards_GN,
        "components": components,
        "samples": [
            {"task_id": g.prompt.task_id, "prompt": g.prompt_text,
             "completions": [r.text for r in g.rollouts_N], "rewards": rewards_GN[i]}
            for i, g in enumerate(groups) if lo + i < keep_samples
        ],
        "verdicts": [
            {"task_id": groups[j // n].prompt.task_id, "passed": v.passed, "status": v.status,
             "reason": v.reason[:80]}
            for j, v in enumerate(verdicts) if lo * n + j < keep_samples * n
        ],
        "lengths": [len(r.tokens) for g in groups for r in g.rollouts_N],
        "truncated": sum(r.truncated for g in groups for r in g.rollouts_N),
        "verifier_errors": sum(v.status == "verifier_error" for v in verdicts),
        "judge_injections": sum(bool(v.details.get("injection")) for v in verdicts),
        "sample_s": sample_s, "train_s": train_s, "sample_tokens": stats["sample_tokens"],
        "train_tokens": update.train_tokens_per_s * update.train_s,
    }  # fmt: skip
    ranks = world.gather_json(local, "step summary")
    rewards_all = [row for r in ranks for row in r["rewards"]]
    components_all = {k: [row for r in ranks for row in r["components"][k]] for k in components}
    errors = sum(row.count(None) for row in rewards_all)
    lengths = [x for r in ranks for x in r["lengths"]]
    verified_GN = components_all.get(CORRECTNESS, rewards_all)
    metrics = _figures(config, update, ranks, rewards_all, attempt)
    metrics.update(finite(_component_figures(config, components_all, len(rounds))))
    return StepResult(
        groups=groups,
        rewards_GN=rewards_all,
        components=components_all,
        refills=rounds,
        update=update,
        metrics=metrics,
        samples=[s for r in ranks for s in r["samples"]],
        verdicts=[v for r in ranks for v in r["verdicts"]],
        n_passed=sum(
            1
            for row in verified_GN
            for x in row
            if x is not None and x >= config.verified_threshold
        ),
        n_errors=errors,
        n_total=len(lengths),
        groups_per_s=[len(r["rewards"]) / max(r["sample_s"] + r["train_s"], 1e-9) for r in ranks],
    )


def _figures(
    config: GRPOConfig, update: StepMetrics, ranks: list[dict], rewards_GN: list[list], attempt: int
) -> dict[str, float | None]:
    """The step's figures over every rank's rollouts (`train_step`'s see the trained ones only),
    and the knobs the step ran with, so policies (and readers) see what they would adjust."""
    scored = np.array([row for row in rewards_GN if None not in row], dtype=np.float64)
    lengths = [x for r in ranks for x in r["lengths"]]
    errors = sum(row.count(None) for row in rewards_GN)  # excluded: judge errors
    broken = sum(r.get("verifier_errors", 0) for r in ranks)  # raised: scored 0
    injections = sum(r.get("judge_injections", 0) for r in ranks)  # steered the judge: scored 0
    values = update.model_dump(exclude={"step", "attempt"})
    if len(scored):
        varied = np.ptp(scored, axis=1) > 0
        values.update(
            reward_mean=float(scored.mean()), reward_std=float(scored.std()),
            verify_rate=float((scored >= config.verified_threshold).mean()),
            zero_variance_frac=float(1.0 - varied.mean()),
            trained_groups=float(
                update.trained_groups if config.dynamic_sampling
                else varied.sum() if config.drop_zero_variance_groups else len(scored)
            ),
        )  # fmt: skip
    sample_s = max(r["sample_s"] for r in ranks)
    train_s = max(r["train_s"] for r in ranks)
    values.update(
        response_len=float(np.mean(lengths)),
        truncation_rate=sum(r["truncated"] for r in ranks) / max(len(lengths), 1),
        sample_s=sample_s, train_s=train_s, step_s=max(r["sample_s"] + r["train_s"] for r in ranks),
        sample_tokens_per_s=sum(r["sample_tokens"] for r in ranks) / max(sample_s, 1e-9),
        train_tokens_per_s=sum(r["train_tokens"] for r in ranks) / max(train_s, 1e-9),
        judge_error_rate=errors / max(len(lengths), 1),
        verifier_error_rate=broken / max(len(lengths), 1),
        judge_injection_rate=injections / max(len(lengths), 1),
        attempt=float(attempt),
    )  # fmt: skip
    # The tunables the step ran with, so policies (and readers) see what they would adjust; the
    # trainer-held ones are in `update` already (learning_rate_scheduled, kl_penalty_coef).
    for tunable in TUNABLES:
        if tunable.lives_on == "grpo config":
            values[tunable.metric] = float(setting(config, tunable.name))
    if len(ranks) > 1:
        for r, rank in enumerate(ranks):
            values[f"rank{r}_sample_s"], values[f"rank{r}_train_s"] = (
                rank["sample_s"],
                rank["train_s"],
            )
    return finite(values)


def _component_figures(
    config: GRPOConfig, components_GN: dict[str, list[list]], refill_rounds: int
) -> dict[str, float]:
    """Each reward component's mean over the scored rollouts (`reward_<name>`), `verify_rate` on
    correctness when the reward is a weighted sum, and dynamic sampling's extra rounds."""
    values: dict[str, float] = {}
    for name, rows in components_GN.items():
        scored = np.array([row for row in rows if None not in row], dtype=np.float64)
        if len(scored):
            values[f"reward_{name}"] = float(scored.mean())
            if name == CORRECTNESS:
                values["verify_rate"] = float((scored >= config.verified_threshold).mean())
    if config.dynamic_sampling:
        values["refill_rounds"] = float(refill_rounds)
    return values


def finite(values: dict[str, Any]) -> dict[str, float | None]:
    """Events refuse NaN/inf: a non-finite figure becomes None plus a `nonfinite_<name>` flag."""
    out: dict[str, float | None] = {}
    for key, value in values.items():
        value = float(value)
        if math.isfinite(value):
            out[key] = value
        else:
            out[key] = None
            out[f"nonfinite_{key}"] = 1.0
    return out


def train_grpo(
    state: TrainerState,
    prompt_batches: Callable[[int], Sequence[Any]],
    reward_fn: RewardFn,
    config: GRPOConfig,
    steps: int,
    on_step: Callable[[StepMetrics], None] | None = None,
) -> list[StepMetrics]:
    """Run `steps` steps from `state.step` on a world of one; `prompt_batches(step)` gives each
    step's prompt records (anything with a `prompt`, or strings)."""
    score = rewards_as_verdicts(reward_fn, config.verified_threshold)
    history = []
    for _ in range(steps):
        result = rl_step(state, prompt_batches(state.step), config, score)
        history.append(result.update)
        if on_step is not None:
            on_step(result.update)
    return history
