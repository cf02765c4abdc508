"""Micro-batched GRPO steps equal the one-pass step (same effective batch), and the per-token
log-prob / entropy path with its hand-written gradient equals autograd's."""

import mlx.core as mx
import mlx.optimizers as optim
import numpy as np
import pytest
from mlx.utils import tree_flatten

from stages.training.grpo import new_trainer_state, train_step
from stages.training.logprobs import logits_logprobs
from stages.training.model import load_model
from stages.training.sampling import sample_groups

COMPARED = ("loss", "grad_norm", "kl", "entropy", "clip_frac", "trained_groups")


def _autograd_reference(logits_BTV, targets_BT):
    x_BTV = logits_BTV.astype(mx.float32)
    logz_BT = mx.logsumexp(x_BTV, axis=-1)
    logp_BT = mx.take_along_axis(x_BTV, targets_BT[..., None], axis=-1)[..., 0] - logz_BT
    logprobs_BTV = x_BTV - logz_BT[..., None]
    return logp_BT, -(mx.exp(logprobs_BTV) * logprobs_BTV).sum(axis=-1)


@pytest.mark.parametrize("dtype", [mx.float32, mx.bfloat16])
def test_logprob_and_entropy_gradients_match_autograd(dtype):
    mx.random.seed(0)
    logits = (3 * mx.random.normal((3, 5, 300))).astype(dtype)
    targets = mx.random.randint(0, 300, (3, 5)).astype(mx.int32)
    a, b = mx.random.normal((3, 5)), mx.random.normal((3, 5))

    def ours(x):
        logp, entropy = logits_logprobs(x, targets, with_entropy=True)
        return (a * logp).sum() + (b * entropy).sum()

    def autograd(x):
        logp, entropy = _autograd_reference(x, targets)
        return (a * logp).sum() + (b * entropy).sum()

    value, grad = mx.value_and_grad(ours)(logits)
    want_value, want_grad = mx.value_and_grad(autograd)(logits)
    assert grad.dtype == dtype
    assert abs(value.item() - want_value.item()) < 1e-4
    tol = 1e-5 if dtype == mx.float32 else 5e-2
    assert mx.abs(grad.astype(mx.float32) - want_grad.astype(mx.float32)).max().item() < tol


def test_an_entropy_without_gradient_leaves_the_logprob_gradient():
    mx.random.seed(1)
    logits = 3 * mx.random.normal((2, 4, 50))
    targets = mx.random.randint(0, 50, (2, 4)).astype(mx.int32)

    def with_metric(x):
        logp, entropy = logits_logprobs(x, targets, with_entropy=True, entropy_grad=False)
        return logp.sum() + entropy.sum()

    def logp_only(x):
        return logits_logprobs(x, targets)[0].sum()

    assert mx.allclose(mx.grad(with_metric)(logits), mx.grad(logp_only)(logits), atol=1e-6)
    entropy = logits_logprobs(logits, targets, with_entropy=True, entropy_grad=False)[1]
    assert mx.allclose(entropy, _autograd_reference(logits, targets)[1], atol=1e-4)


@pytest.fixture(scope="module")
def scored(sft_model_dir):
    """16 groups of 4 sampled from the SFT'd model, rewards with variance except in group 3."""
    from tests.unit.training.conftest import PROMPTS, SamplingConfig

    model, tokenizer = load_model(sft_model_dir)
    groups, _ = sample_groups(
        model, tokenizer, PROMPTS[100:116], SamplingConfig(max_tokens=6), 4, 5
    )
    rng = np.random.default_rng(0)
    rewards = rng.integers(0, 2, size=(16, 4)).astype(float)
    rewards[:, 0], rewards[:, 1] = 0.0, 1.0
    rewards[3] = 1.0  # all equal: dropped from the update, still in the KL/entropy metrics
    lengths = {len(r.tokens) for g in groups for r in g.rollouts_N}
    assert len(lengths) > 1  # micro-batches are cut to different widths
    return groups, rewards


def _step(sft_model_dir, groups, rewards, config, steps=2, kl_penalty_coefs=()):
    """Two steps under plain SGD: AdamW divides by sqrt(v), so on coordinates whose gradient is
    ~0 it turns last-bit differences (any change of summation order, micro-batched or not) into
    lr-sized ones, which would hide what is compared here. `kl_penalty_coefs`: the coefficient
    set before each step, as the KL policy sets it between steps."""
    model, tokenizer = load_model(sft_model_dir)
    state = new_trainer_state(model, tokenizer, config)
    state.optimizer = optim.SGD(learning_rate=config.learning_rate)
    metrics = []
    for i in range(steps):
        if i < len(kl_penalty_coefs):
            state.kl_penalty_coef = kl_penalty_coefs[i]
        metrics.append(train_step(state, groups, rewards, config))
    return metrics, dict(tree_flatten(state.model.parameters()))


@pytest.mark.parametrize("loss_agg", ["token-mean", "sequence-mean", "dr-grpo"])
@pytest.mark.parametrize("num_substeps", [1, 2])
def test_micro_batches_give_the_one_pass_update(
    sft_model_dir, scored, small_grpo, loss_agg, num_substeps
):
    groups, rewards = scored
    config = small_grpo(
        group_size=4, loss_agg=loss_agg, num_substeps=num_substeps, entropy_coef=0.01
    )
    one, params_one = _step(sft_model_dir, groups, rewards, config)
    four, params_four = _step(
        sft_model_dir, groups, rewards, config.model_copy(update={"micro_batches": 4})
    )
    for a, b in zip(one, four, strict=True):
        for key in COMPARED:
            assert getattr(a, key) == pytest.approx(getattr(b, key), rel=1e-5, abs=1e-6), key
    assert one[-1].kl > 0 and one[0].grad_norm > 0
    differ = max(float(mx.abs(params_one[k] - v).max()) for k, v in params_four.items())
    assert differ < 1e-6


@pytest.mark.parametrize("num_substeps", [1, 2])
def test_the_compiled_loss_gives_the_uncompiled_update(
    sft_model_dir, scored, small_grpo, num_substeps
):
    groups, rewards = scored
    config = small_grpo(group_size=4, num_substeps=num_substeps, micro_batches=2)
    coefs = (0.05, 0.08, 0.1)
    plain, params_plain = _step(sft_model_dir, groups, rewards, config, 3, coefs)
    compiled, params_compiled = _step(
        sft_model_dir, groups, rewards, config.model_copy(update={"compile_loss": True}), 3, coefs
    )
    for a, b in zip(plain, compiled, strict=True):
        for key in COMPARED:
            assert getattr(a, key) == pytest.approx(getattr(b, key), rel=1e-4, abs=1e-6), key
    assert plain[0].kl_penalty_coef != plain[-1].kl_penalty_coef  # it moved: no stale trace
    differ = max(float(mx.abs(params_plain[k] - v).max()) for k, v in params_compiled.items())
    assert differ < 1e-5
