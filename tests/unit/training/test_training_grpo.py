import numpy as np
import pytest

from stages.rl.step import Rank, rl_step
from stages.training.config import GRPOConfig, SamplingConfig
from stages.training.grpo import advantages, new_trainer_state, train_step
from stages.training.logprobs import completion_logprobs
from stages.training.sampling import batched, generate_greedy, sample_groups
from stages.training.sft import epoch_batches
from tests.benchmarks.grpo_recipe import rewards_as_verdicts, score_groups, train_grpo

TIMING = {
    "sample_tokens_per_s",
    "train_tokens_per_s",
    "sample_s",
    "train_s",
    "step_s",
    "train_tokens",
}
ALONE = Rank.alone().world.sum_tree  # a world of one's reducer


def untimed(metrics):
    if not isinstance(metrics, dict):
        metrics = metrics.model_dump()
    return {k: v for k, v in metrics.items() if k not in TIMING}


def step(state, prompts, config, score):
    return rl_step(state, prompts, config, config.start_settings(), score, Rank.alone())


def test_sampled_logprobs_match_a_forward_pass_and_keep_eos(fresh_model, prompts):
    model, tokenizer = fresh_model
    config = SamplingConfig(max_tokens=4)
    groups, stats = sample_groups(model, tokenizer, prompts[:16], config, 4, batched(7, config))
    rollouts = [r for g in groups for r in g.rollouts_N]
    assert len(groups) == 16 and all(len(g.rollouts_N) == 4 for g in groups)
    recomputed = completion_logprobs(
        model, [r.prompt_tokens for r in rollouts], [r.tokens for r in rollouts]
    )
    for r, lp in zip(rollouts, recomputed, strict=True):
        assert len(r.tokens) == len(r.logprobs) == len(lp)
        assert np.max(np.abs(np.array(r.logprobs) - np.array(lp))) < 1e-4
        assert r.truncated == (r.tokens[-1] != 1)
        assert r.truncated or len(r.tokens) <= 4
    assert any(not r.truncated for r in rollouts)
    assert stats["sample_tokens"] == sum(len(r.tokens) for r in rollouts)


def test_truncation_is_flagged_at_max_tokens(fresh_model, prompts):
    model, tokenizer = fresh_model
    config = SamplingConfig(max_tokens=1)
    groups, _ = sample_groups(model, tokenizer, prompts[:4], config, 2, batched(0, config))
    for r in (r for g in groups for r in g.rollouts_N):
        assert len(r.tokens) == 1
        assert r.truncated == (r.tokens[0] != 1)


def test_same_key_same_rollouts_other_key_other_rollouts(fresh_model, prompts):
    model, tokenizer = fresh_model
    config = SamplingConfig(max_tokens=6, temperature=1.0, top_p=0.95)
    a, _ = sample_groups(model, tokenizer, prompts[:8], config, 8, batched(11, config))
    b, _ = sample_groups(model, tokenizer, prompts[:8], config, 8, batched(11, config))
    c, _ = sample_groups(model, tokenizer, prompts[:8], config, 8, batched(12, config))
    tokens = lambda gs: [r.tokens for g in gs for r in g.rollouts_N]  # noqa: E731
    assert tokens(a) == tokens(b)
    assert tokens(a) != tokens(c)


def test_greedy_generation_answers_every_prompt_in_one_batch(fresh_model, prompts):
    model, tokenizer = fresh_model
    answers = generate_greedy(model, tokenizer, prompts[:50], max_tokens=6)
    assert len(answers) == 50 and all(isinstance(a, str) for a in answers)
    assert answers == generate_greedy(model, tokenizer, prompts[:50], max_tokens=6)


def test_advantages_are_group_normalised_or_not_as_configured():
    rewards = np.array([[1.0, 0.0, 1.0, 0.0], [2.0, 2.0, 2.0, 2.0]])
    group = advantages(rewards, "group")
    assert np.allclose(group[0], [1, -1, 1, -1], atol=1e-5) and np.all(group[1] == 0)
    assert np.allclose(advantages(rewards, "none")[0], [0.5, -0.5, 0.5, -0.5])
    assert np.allclose(advantages(rewards, "batch")[0], [0.5, -0.5, 0.5, -0.5] / rewards.std())
    with pytest.raises(ValueError, match="'median'"):
        advantages(rewards, "median")


def test_kl_is_zero_for_identical_policies_and_positive_after_updates(
    fresh_model, prompts, small_grpo, starts_with_7
):
    model, tokenizer = fresh_model
    config = small_grpo()
    state = new_trainer_state(model, tokenizer, config)
    batches = epoch_batches(prompts, config.groups_per_batch)
    history = train_grpo(state, batches, starts_with_7, config, steps=3)
    assert abs(history[0]["kl"]) < 1e-6
    assert history[2]["kl"] > 1e-5
    assert history[0]["trained_groups"] > 0 and history[0]["grad_norm"] > 0


def test_grpo_drives_the_toy_reward_above_0_9(fresh_model, prompts, small_grpo, starts_with_7):
    model, tokenizer = fresh_model
    config = small_grpo(groups_per_batch=16, learning_rate=2e-3, kl_penalty_coef=0.0)
    state = new_trainer_state(model, tokenizer, config)
    history = train_grpo(state, epoch_batches(prompts, 16), starts_with_7, config, steps=12)
    assert history[0]["reward_mean"] < 0.5
    assert max(m["reward_mean"] for m in history[-3:]) > 0.9


def test_same_seed_gives_the_same_metrics_twice(fresh_model, sft_model_dir, prompts, small_grpo):
    from stages.training.model import load_model

    config = small_grpo(num_substeps=2, entropy_coef=0.01)
    reward = lambda recs, texts: [float(len(t) == 2) for t in texts]  # noqa: E731
    runs = []
    for _ in range(2):
        model, tokenizer = load_model(sft_model_dir)
        state = new_trainer_state(model, tokenizer, config)
        runs.append(train_grpo(state, epoch_batches(prompts, 8), reward, config, steps=3))
    assert [untimed(m) for m in runs[0]] == [untimed(m) for m in runs[1]]
    assert runs[0][1]["clip_frac"] >= 0 and runs[0][2]["kl"] > 0


def test_separate_sample_and_train_calls_match_the_one_step(
    sft_model_dir, prompts, small_grpo, starts_with_7
):
    from stages.training.grpo import step_seed
    from stages.training.model import load_model

    config = small_grpo()
    model, tokenizer = load_model(sft_model_dir)
    state = new_trainer_state(model, tokenizer, config)
    convenient = step(state, prompts[:8], config, rewards_as_verdicts(starts_with_7))
    convenient = convenient.updated.metrics

    model, tokenizer = load_model(sft_model_dir)
    state = new_trainer_state(model, tokenizer, config)
    groups, _ = sample_groups(
        model, tokenizer, prompts[:8], config.sampling, config.group_size,
        batched(step_seed(config, 0), config.sampling),
    )  # fmt: skip
    manual = train_step(state, groups, score_groups(groups, starts_with_7), config, ALONE)
    assert untimed(manual) == untimed(convenient)


def test_rewards_of_the_wrong_shape_are_rejected(fresh_model, prompts, small_grpo):
    model, tokenizer = fresh_model
    config = small_grpo()
    state = new_trainer_state(model, tokenizer, config)
    groups, _ = sample_groups(
        model, tokenizer, prompts[:2], config.sampling, 8, batched(0, config.sampling)
    )
    with pytest.raises(ValueError, match="rewards shape"):
        train_step(state, groups, [[0.0] * 7, [0.0] * 7], config, ALONE)


def test_all_equal_rewards_leave_the_weights_alone(fresh_model, prompts, small_grpo):
    model, tokenizer = fresh_model
    config = small_grpo()
    state = new_trainer_state(model, tokenizer, config)
    metrics = step(state, prompts[:8], config, rewards_as_verdicts(lambda r, t: [1.0] * len(t)))
    metrics = metrics.metrics
    assert metrics["zero_variance_frac"] == 1.0 and metrics["trained_groups"] == 0
    assert metrics["verify_rate"] == 1.0 and metrics["grad_norm"] == 0.0 and state.step == 1
    assert 0.0 <= metrics["repetition_share"] <= 1.0 and metrics["reward_std"] == 0.0


def test_grpo_config_documents_every_field():
    for model in (GRPOConfig, SamplingConfig):
        assert all(f.description for f in model.model_fields.values())


def test_whose_fault_decides_the_step_figures_a_forfeit_scores_0_and_only_an_outage_is_left_out(
    fresh_model, prompts, small_grpo
):
    from stages.verifiers.types import Verdict, fail

    model, tokenizer = fresh_model
    config = small_grpo()
    state = new_trainer_state(model, tokenizer, config)
    injected = Verdict(passed=False, reward=0.0, status="failed", reason="injection attempt",
                       details={"injection": ["grade_json"]})  # fmt: skip
    outage, raised = fail("judge_error", "judge HTTP 503"), fail("verifier_error", "raised")
    right = Verdict(passed=True, reward=1.0, status="ok", reason="right")

    def score(records, texts):  # one outage (its group is left out); the rest scored
        return [outage if i == 1 else (raised, right, injected, right)[i % 4]
                for i in range(len(texts))]  # fmt: skip

    result = step(state, prompts[:8], config, score)
    n = len(result.figures.rewards_GN) * config.group_size
    assert result.metrics["judge_error_rate"] == pytest.approx(1 / n)
    assert result.metrics["verifier_error_rate"] == pytest.approx((n // 4) / n)
    assert result.metrics["judge_injection_rate"] == pytest.approx((n // 4) / n)
    flat = [r for row in result.figures.rewards_GN for r in row]
    assert flat.count(None) == 1 and flat.count(0.0) == 2 * (n // 4)  # the raises, the injections
