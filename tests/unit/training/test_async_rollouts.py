"""Asynchronous rollouts (stages/rl/async_sampler.py): the sampler process samples what the
trainer would have sampled with the same weights, batch for batch, and a batch sampled ahead is
used only when everything it is a function of still holds."""

from __future__ import annotations

import pytest

from stages.rl.async_sampler import AsyncRollouts
from stages.training.config import GRPOConfig, ModelConfig, SamplingConfig
from stages.training.grpo import new_trainer_state, step_seed, train_step
from stages.training.model import load_model, make_trainable
from stages.training.sampling import batched, sample_groups
from stages.training.types import PolicyVersions
from tests.unit.training.test_training_grpo_loss import ALONE


@pytest.fixture
def setup(sft_model_dir, small_grpo):
    config = small_grpo(groups_per_batch=4, group_size=4, max_staleness=1)
    model, tokenizer = load_model(sft_model_dir)
    make_trainable(model, ModelConfig(), seed=0)
    trainer = new_trainer_state(model, tokenizer, config)
    rollouts = AsyncRollouts(1, sft_model_dir, ModelConfig(), 0, batched)
    yield trainer, config, rollouts
    rollouts.close()


def _here(trainer, config, texts, seed):
    groups, _ = sample_groups(
        trainer.model, trainer.tokenizer, texts, config.sampling, config.group_size,
        batched(seed, config.sampling, 0, config.group_size),
    )  # fmt: skip
    return [[(r.tokens, r.logprobs) for r in g.rollouts_N] for g in groups]


def _of(groups):
    return [[(r.tokens, r.logprobs) for r in g.rollouts_N] for g in groups]


def test_the_sampler_process_samples_what_the_trainer_would_with_the_same_weights(
    setup, prompts
) -> None:
    trainer, config, rollouts = setup
    texts = list(prompts[:4])
    versions = rollouts.publish(trainer)
    ahead = rollouts.key(1, versions, texts, 11, config)
    rollouts.ahead_of(ahead, versions)  # sampled with step 0's weights, while step 0 trains
    expected = _here(trainer, config, texts, 11)
    groups, _ = rollouts.take(rollouts.key(0, versions, texts, 7, config), versions, texts)
    assert _of(groups) == _here(trainer, config, texts, 7)
    train_step(trainer, groups, [[1.0, 0.0, 0.0, 1.0]] * 4, config, ALONE)
    versions = rollouts.publish(trainer)
    assert rollouts.key(1, versions, texts, 11, config) == ahead  # version 0 still
    taken, _ = rollouts.take(ahead, versions, texts)
    assert _of(taken) == expected  # the old weights', not the trained ones'
    assert _of(taken) != _here(trainer, config, texts, 11) or config.sampling.temperature == 0


def test_a_batch_sampled_with_other_settings_is_sampled_again_with_those_in_force(
    setup, prompts
) -> None:
    trainer, config, rollouts = setup
    texts = list(prompts[:4])
    versions = rollouts.publish(trainer)
    rollouts.ahead_of(rollouts.key(0, versions, texts, 5, config), versions)
    cooler = config.model_copy(update={"sampling": SamplingConfig(max_tokens=6, temperature=0.3)})
    groups, _ = rollouts.take(rollouts.key(0, versions, texts, 5, cooler), versions, texts)
    assert _of(groups) == _here(trainer, cooler, texts, 5)


def test_a_rollback_discards_the_batches_sampled_with_the_weights_left(setup, prompts) -> None:
    trainer, config, rollouts = setup
    texts = list(prompts[:4])
    versions = rollouts.publish(trainer)
    rollouts.ahead_of(rollouts.key(1, versions, texts, 3, config), versions)
    trainer.step = 1  # as after step 0, whose weights a rollback then restored
    dropped = rollouts.rolled_back(trainer)
    assert [(k.step, k.version) for k in dropped] == [(1, 0)]
    assert trainer.versions.for_step(1, 1) == 1 and trainer.versions.for_step(3, 1) == 2


def test_the_schedule_samples_step_s_with_the_weights_after_step_s_minus_1_minus_k() -> None:
    versions = PolicyVersions()
    assert [versions.for_step(s, 2) for s in range(5)] == [0, 0, 0, 1, 2]
    assert [PolicyVersions(reset=3).for_step(s, 2) for s in (3, 4, 5, 6)] == [3, 3, 3, 4]


def test_tis_weighs_one_update_per_batch_only() -> None:
    with pytest.raises(ValueError, match="grpo.tis_cap weighs one update per batch"):
        GRPOConfig(tis_cap=2.0, num_iterations=2)


def test_tis_weighs_each_token_by_its_truncated_trainer_over_sampler_ratio() -> None:
    import mlx.core as mx

    from stages.training.grpo_loss import loss_from_logprobs

    logp = mx.array([[-1.0, -2.0]])
    sampler = mx.array([[-1.5, -0.5]])  # ratios e^0.5 = 1.65 and e^-1.5 = 0.22
    mask, adv, ref = mx.ones((1, 2)), mx.array([1.0]), mx.zeros((1, 2))
    config = GRPOConfig(tis_cap=1.2, kl_penalty_coef=0.0)

    def loss(lp):
        return loss_from_logprobs(lp, mx.zeros_like(lp), mask, adv, ref, sampler, 0.0, config)[0]

    value, grad = mx.value_and_grad(loss)(logp)
    weights = [1.2, float(mx.exp(mx.array(-1.5)))]  # the first truncated at the cap
    assert value.item() == pytest.approx(-sum(weights) / 2, rel=1e-5)
    assert grad.tolist()[0] == pytest.approx([-w / 2 for w in weights], rel=1e-5)


def test_a_dynamic_sampling_round_samples_now_with_the_version_of_its_step(setup, prompts) -> None:
    from stages.rl.async_sampler import stale_draw

    trainer, config, rollouts = setup
    texts = list(prompts[:8])
    draw, version = stale_draw(rollouts, trainer, config, lambda s: texts[:4])
    assert version == 0
    first, _ = draw(texts[:4], 123)
    assert _of(first) == _here(trainer, config, texts[:4], step_seed(config, 0, 0))
    refill, _ = draw(texts[4:6], 99)  # a refill round: its own prompts and seed
    assert _of(refill) == _here(trainer, config, texts[4:6], 99)


def test_asynchronous_rollouts_across_ranks_are_refused_when_the_config_loads() -> None:
    from orchestrator.config import load_config
    from orchestrator.errors import ConfigError

    with pytest.raises(ConfigError, match="grpo.max_staleness: asynchronous rollouts are not"):
        load_config(None, ["grpo.max_staleness=1", "distributed.enabled=true"])


def test_a_stale_batch_trains_with_num_iterations_and_reports_its_log_prob_gap(
    setup, prompts
) -> None:
    trainer, config, rollouts = setup
    texts = list(prompts[:4])
    versions = rollouts.publish(trainer)
    stale, _ = rollouts.take(rollouts.key(1, versions, texts, 3, config), versions, texts)
    rewards = [[1.0, 0.0, 0.0, 1.0]] * 4
    fresh = train_step(trainer, stale, rewards, config, ALONE)  # sampled by these very weights
    assert fresh.logprob_gap is not None and fresh.logprob_gap < 1e-4
    twice = config.model_copy(update={"num_iterations": 2})
    moved = train_step(trainer, stale, rewards, twice, ALONE)  # one update old now
    assert moved.logprob_gap > fresh.logprob_gap and moved.loss == moved.loss
    on_policy = config.model_copy(update={"max_staleness": 0})
    assert train_step(trainer, stale, rewards, on_policy, ALONE).logprob_gap is None
