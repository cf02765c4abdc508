"""DAPO's dynamic sampling (`grpo.dynamic_sampling`): zero-variance groups are replaced by groups
of fresh prompts sampled in extra rounds, each round recorded, and a replay from the recorded
rewards ends on the same weights without asking the verifier."""

from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest
from mlx.utils import tree_flatten

from orchestrator.config import load_config
from orchestrator.errors import ConfigError
from stages.rl.step import Rank, rl_step
from stages.rl.types import Logged
from stages.training.grpo import new_trainer_state
from stages.training.model import load_model
from stages.types import StageError
from tests.benchmarks.grpo_recipe import rewards_as_verdicts


def step(state, batch, config, score, **kwargs):
    """The one RL step on a world of one, with the config's settings in force."""
    return rl_step(state, batch, config, config.start_settings(), score, Rank.alone(), **kwargs)


def _score(batch: set[str]):
    """The step's own prompts all score 1 (zero variance); any other prompt's rollouts alternate
    1, 0, 1, ... (every such group varies)."""

    def reward(records: list, texts: list[str]) -> list[float]:
        return [1.0 if r in batch else float(j % 2 == 0) for j, r in enumerate(records)]

    return rewards_as_verdicts(reward)


def _weights(state) -> dict[str, np.ndarray]:
    return {k: np.array(v) for k, v in tree_flatten(state.model.trainable_parameters())}


def test_a_batch_whose_groups_all_had_zero_variance_is_refilled_and_the_rounds_recorded(
    sft_model_dir, prompts, small_grpo
):
    batch, pool = prompts[:4], prompts[100:140]
    config = small_grpo(groups_per_batch=4, group_size=4, dynamic_sampling=True)
    model, tokenizer = load_model(sft_model_dir)
    state = new_trainer_state(model, tokenizer, config)
    before = _weights(state)
    result = step(state, batch, config, _score(set(batch)), refill_pool=pool)

    (refill,) = result.refilled.rounds  # one extra round found 4 varied groups
    assert refill.round == 1 and refill.n_varied == 4
    assert len(refill.task_ids) == 4 and set(refill.task_ids) <= set(pool)
    assert [row for row in refill.rewards] == [[1.0, 0.0, 1.0, 0.0]] * 4
    assert result.updated.metrics.trained_groups == 4
    assert result.metrics["refill_rounds"] == 1.0 and result.metrics["trained_groups"] == 4.0
    # The step's reward figures describe the batch as drawn: all of it zero-variance.
    assert result.metrics["zero_variance_frac"] == 1.0 and result.metrics["reward_mean"] == 1.0
    assert result.figures.rewards_GN == [[1.0] * 4] * 4
    assert any(not np.array_equal(before[k], v) for k, v in _weights(state).items())

    # Replayed from the recorded rewards (a resume's catch-up): the verifier is not asked and
    # the weights end where the live step left them.
    def no_verifier(records, texts):
        raise AssertionError("a replay must not ask the verifier")

    model, tokenizer = load_model(sft_model_dir)
    replay = new_trainer_state(model, tokenizer, config)
    rounds = [{"task_ids": r.task_ids, "rewards": r.rewards} for r in result.refilled.rounds]
    logged = Logged(result.figures.rewards_GN, refills=rounds)
    again = step(replay, batch, config, no_verifier, refill_pool=pool, logged=logged)
    assert again.refilled.rounds == result.refilled.rounds
    live, replayed = _weights(state), _weights(replay)
    assert all(np.array_equal(live[k], replayed[k]) for k in live)

    # A log whose round drew other prompts (another curriculum) is refused, not trained on.
    model, tokenizer = load_model(sft_model_dir)
    other = [{"task_ids": ["1+1="] * 4, "rewards": refill.rewards}]
    with pytest.raises(StageError, match="refill round 1"):
        step(new_trainer_state(model, tokenizer, config), batch, config, no_verifier,
             refill_pool=pool, logged=Logged(result.figures.rewards_GN, refills=other))  # fmt: skip


def test_the_refill_budget_bounds_the_rounds_and_the_step_trains_on_what_it_found(
    sft_model_dir, prompts, small_grpo
):
    batch = prompts[:4]
    config = small_grpo(
        groups_per_batch=4, group_size=4, dynamic_sampling=True, max_refill_rounds=3
    )
    model, tokenizer = load_model(sft_model_dir)
    state = new_trainer_state(model, tokenizer, config)
    flat = rewards_as_verdicts(lambda records, texts: [1.0] * len(texts))  # nothing ever varies
    result = step(state, batch, config, flat, refill_pool=prompts[100:140])
    assert [r.round for r in result.refilled.rounds] == [1, 2, 3]
    assert all(r.n_varied == 0 and len(r.task_ids) == 4 for r in result.refilled.rounds)
    assert result.updated.metrics.trained_groups == 0
    assert result.metrics["refill_rounds"] == 3.0
    assert state.step == 1


def test_without_dynamic_sampling_no_round_is_sampled(sft_model_dir, prompts, small_grpo):
    config = small_grpo(groups_per_batch=4, group_size=4)
    model, tokenizer = load_model(sft_model_dir)
    state = new_trainer_state(model, tokenizer, config)
    result = step(state, prompts[:4], config, _score(set(prompts[:4])))
    assert result.refilled.rounds == [] and "refill_rounds" not in result.metrics
    assert result.updated.metrics.trained_groups == 0
    mx.clear_cache()


def test_dynamic_sampling_across_ranks_is_refused_when_the_config_loads() -> None:
    with pytest.raises(ConfigError, match="grpo.dynamic_sampling: not supported across ranks"):
        load_config(None, ["grpo.dynamic_sampling=true", "distributed.enabled=true"])
