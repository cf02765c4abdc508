"""The GRPO loss on fixed log-probs (no model): masking, and each option's reason to exist."""

import re
from pathlib import Path
from typing import get_args

import mlx.core as mx
import numpy as np
from mlx.utils import tree_flatten

from stages.rl.step import Rank
from stages.training.config import GRPOConfig, SamplingConfig
from stages.training.grpo import new_trainer_state, train_step
from stages.training.grpo_loss import loss_from_logprobs
from stages.training.sampling import batched, sample_groups
from stages.training.types import Rollout, RolloutGroup

ALONE = Rank.alone().world.sum_tree  # a world of one's reducer


def _loss_and_grad(logp, mask, adv, ref, old, config, kl_penalty_coef=0.04):
    def f(lp):
        return loss_from_logprobs(
            lp, mx.zeros_like(lp), mask, adv, ref, old, kl_penalty_coef, config
        )[0]

    loss, grad = mx.value_and_grad(f)(logp)
    return loss.item(), np.array(grad)


def test_an_overflowing_kl_term_in_a_padded_slot_leaves_loss_and_gradient_finite():
    mask = mx.array([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    logp = mx.array([[-1.0, -2.0, -200.0], [-0.5, -300.0, -250.0]])  # exp(ref - logp) = inf
    ref = mx.array([[-1.1, -1.9, 0.0], [-0.4, 0.0, 0.0]])
    old = mx.array([[-1.0, -2.1, 0.0], [-0.6, 0.0, 0.0]])
    adv = mx.array([1.0, -1.0])
    for agg in ("token-mean", "sequence-mean"):
        config = GRPOConfig(loss_agg=agg)
        loss, grad = _loss_and_grad(logp, mask, adv, ref, old, config)
        assert np.isfinite(loss) and np.all(np.isfinite(grad))
        assert np.all(grad[mask == 0] == 0)
        # the padded slots change nothing: the same loss with them set to harmless values
        tame = mx.where(mask > 0, logp, -1.0)
        assert abs(loss - _loss_and_grad(tame, mask, adv, ref, old, config)[0]) < 1e-6


def _readme_option_rows():
    readme = (Path(__file__).parents[3] / "README.md").read_text()
    return [line for line in readme.splitlines() if line.startswith("| `grpo.")]


def test_the_readme_option_table_names_real_fields_and_their_descriptions_name_the_peers():
    rows = _readme_option_rows()
    assert len(rows) >= 13
    fields = GRPOConfig.model_fields
    for row in rows:
        option, default, _paper, trl, verl = (c.strip() for c in row.strip("|").split("|"))
        names = re.findall(r"`grpo\.(\w+)(?: = \"([\w-]+)\")?`", option)
        assert names and all(name in fields for name, _ in names), row
        descriptions = " ".join(fields[name].description for name, _ in names)
        for name, value in names:
            if value:
                assert value in get_args(fields[name].annotation), row
                assert (getattr(GRPOConfig(), name) == value) == (default == "yes"), row
        for peer in (trl, verl):
            for token in re.findall(r"`([^`]+)`", peer):
                key, _, value = token.partition("=")
                assert key in descriptions and value.strip('"') in descriptions, (row, token)


# Two completions: a long one (4 tokens) and a short one (2), both with advantage 1.
MASK = mx.array([[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0]])
LOGP = mx.array([[-1.0, -1.5, -0.7, -2.0], [-0.3, -1.2, 0.0, 0.0]])


def test_gspo_has_one_ratio_per_sequence_so_a_sequence_is_clipped_whole_or_not_at_all():
    old = LOGP - mx.array([[0.9, 0.0, 0.0, 0.0], [0.1, 0.1, 0.0, 0.0]])  # one token at e^0.9
    adv = mx.array([1.0, 1.0])
    clipped = {}
    for level in ("token", "sequence"):
        config = GRPOConfig(importance_level=level)
        clipped[level] = [
            loss_from_logprobs(
                LOGP[b : b + 1], mx.zeros((1, 4)), MASK[b : b + 1], adv[b : b + 1],
                LOGP[b : b + 1], old[b : b + 1], 0.0, config,
            )[1].item()
            for b in range(2)
        ]  # fmt: skip
    assert clipped["token"] == [1, 0]  # the one token whose own ratio is past 1.28
    assert clipped["sequence"] == [0, 0]  # exp(0.9 / 4) = 1.25: the sequence's ratio is inside
    config = GRPOConfig(importance_level="sequence", clip_eps_high=0.2)
    assert loss_from_logprobs(LOGP, mx.zeros((2, 4)), MASK, adv, LOGP, old, 0.0, config)[1] == 4


def test_dr_grpo_gives_every_token_the_same_weight_whatever_its_sequence_length():
    adv = mx.array([1.0, 1.0])
    ref = LOGP
    seq = _loss_and_grad(LOGP, MASK, adv, ref, None, GRPOConfig(loss_agg="sequence-mean"), 0.0)
    dr = _loss_and_grad(
        LOGP, MASK, adv, ref, None,
        GRPOConfig(loss_agg="dr-grpo", sampling=SamplingConfig(max_tokens=8)), 0.0,
    )  # fmt: skip
    assert np.allclose(seq[1][0, :4], -1 / 8) and np.allclose(seq[1][1, :2], -1 / 4)
    assert np.allclose(dr[1][MASK == 1], -1 / (2 * 8))  # 2 completions x max_tokens 8


def test_delta_bounds_the_loss_of_a_far_off_policy_token_with_negative_advantage():
    old = LOGP - mx.array([[mx.log(mx.array(3.0)).item(), 0, 0, 0], [0, 0, 0, 0]])
    adv = mx.array([-1.0, 0.0])
    mask = mx.array([[1.0, 0, 0, 0], [1.0, 0, 0, 0]])
    plain = _loss_and_grad(LOGP, mask, adv, LOGP, old, GRPOConfig(loss_agg="sequence-mean"), 0.0)
    bounded = _loss_and_grad(
        LOGP, mask, adv, LOGP, old, GRPOConfig(loss_agg="sequence-mean", delta=1.5), 0.0
    )
    assert abs(plain[0] - 3.0 / 2) < 1e-5 and abs(bounded[0] - 1.5 / 2) < 1e-5
    assert bounded[1][0, 0] == 0  # past delta the token pushes no more


def test_bias_corrected_kl_weights_k3_by_the_ratio_off_policy_and_equals_it_on_policy():
    ref = LOGP - 0.3
    old = LOGP - 0.2
    adv = mx.array([0.0, 0.0])  # only the KL term
    k3_value = float(np.exp(-0.3) + 0.3 - 1)
    for old_BT, ratio in ((None, 1.0), (old, float(np.exp(0.2)))):
        corrected = GRPOConfig(kl_estimator="k3-bias-corrected")
        loss = _loss_and_grad(LOGP, MASK, adv, ref, old_BT, corrected, 1.0)[0]
        assert abs(loss - ratio * k3_value) < 1e-5
        assert (
            abs(_loss_and_grad(LOGP, MASK, adv, ref, old_BT, GRPOConfig(), 1.0)[0] - k3_value)
            < 1e-5
        )


def _rollout(prompt, tokens, truncated):
    return Rollout(prompt, tokens, [-1.0] * len(tokens), "", truncated)


def _parameters(state):
    return np.concatenate([np.array(v).ravel() for _, v in tree_flatten(state.model.parameters())])


def test_overlong_filtering_trains_as_if_the_truncated_completions_were_not_there(
    sft_model_dir, small_grpo
):
    from stages.training.model import load_model

    tokenizer = load_model(sft_model_dir)[1]
    prompt = tokenizer.encode("3+4=")
    eos = sorted(tokenizer.eos_token_ids)[0]
    truncated = RolloutGroup(
        None, "", [_rollout(prompt, [5, 6, 7], True), _rollout(prompt, [8, 9, 10], True)]
    )
    complete = RolloutGroup(
        None, "", [_rollout(prompt, [11, eos], False), _rollout(prompt, [12, 13, eos], False)]
    )
    rewards = [[1.0, 0.0], [1.0, 0.0]]

    def trained(groups, rewards, **overrides):
        model, tokenizer = load_model(sft_model_dir)
        state = new_trainer_state(model, tokenizer, small_grpo(group_size=2, **overrides))
        train_step(state, groups, rewards, small_grpo(group_size=2, **overrides), ALONE)
        return _parameters(state)

    filtered = trained([truncated, complete], rewards, overlong_filter=True)
    assert np.allclose(filtered, trained([complete], rewards[1:]), atol=1e-7)
    assert not np.allclose(filtered, trained([truncated, complete], rewards), atol=1e-4)


def test_a_second_pass_over_the_batch_is_off_policy_and_clips(sft_model_dir, prompts, small_grpo):
    from stages.training.model import load_model

    config = small_grpo(learning_rate=3e-2, kl_penalty_coef=0.0)
    model, tokenizer = load_model(sft_model_dir)
    groups, _ = sample_groups(
        model, tokenizer, prompts[:8], config.sampling, 8, batched(3, config.sampling)
    )
    rewards = [
        [float(r.text.startswith("7")) + 0.1 * len(r.tokens) for r in g.rollouts_N] for g in groups
    ]
    clip_fracs = []
    for passes in (1, 2):
        model, tokenizer = load_model(sft_model_dir)
        passes_config = config.model_copy(update={"num_iterations": passes})
        state = new_trainer_state(model, tokenizer, passes_config)
        clip_fracs.append(train_step(state, groups, rewards, passes_config, ALONE).clip_frac)
    assert clip_fracs[0] == 0.0
    assert clip_fracs[1] > 0.0  # the mean over both passes: the second one clipped


def test_delta_is_verls_dual_clip_when_above_one_plus_clip_high():
    # verl's compute_policy_loss (dual-clip), written out: for A < 0 the loss is capped at -A * c
    rng = np.random.default_rng(0)
    logp = mx.array(rng.normal(-1.0, 0.5, (6, 5)).astype(np.float32))
    old = logp - mx.array(rng.normal(0.0, 0.8, (6, 5)).astype(np.float32))
    adv = mx.array([1.0, -1.0, 0.5, -2.0, -0.3, 0.8])
    mask = mx.ones((6, 5))
    ratio = np.exp(np.array(logp - old))
    a = np.array(adv)[:, None]
    clipped = np.maximum(-a * ratio, -a * np.clip(ratio, 0.8, 1.28))
    verl = np.where(a < 0, np.minimum(-a * 2.0, clipped), clipped).mean()
    assert (ratio[np.array(adv) < 0] > 2.0).any()  # the cap binds somewhere
    ours = _loss_and_grad(logp, mask, adv, logp, old, GRPOConfig(delta=2.0), 0.0)[0]
    assert abs(ours - verl) < 1e-5
