"""Micro-batched GRPO steps equal the one-pass step (same effective batch), and the per-token
log-prob / entropy path with its hand-written gradient equals autograd's."""

from dataclasses import replace

import mlx.core as mx
import mlx.nn as nn
import mlx.optimizers as optim
import numpy as np
import pytest
from mlx.utils import tree_flatten

import stages.training.logprobs as logprobs
from stages.rl.step import Rank
from stages.training.grpo import new_trainer_state, train_step
from stages.training.logprobs import head_logprobs, logits_logprobs
from stages.training.model import load_model
from stages.training.sampling import batched, sample_groups

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


ALONE = Rank.alone().world.sum_tree  # a world of one's reducer


@pytest.fixture(scope="module")
def scored(sft_model_dir):
    """16 groups of 4 sampled from the SFT'd model, rewards with variance except in group 3."""
    from tests.unit.training.conftest import PROMPTS, SamplingConfig

    model, tokenizer = load_model(sft_model_dir)
    sampling = SamplingConfig(max_tokens=6)
    groups, _ = sample_groups(model, tokenizer, PROMPTS[100:116], sampling, 4, batched(5, sampling))
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
    settings = config.start_settings()
    for i in range(steps):
        if i < len(kl_penalty_coefs):
            settings = settings.changed({"kl_penalty_coef": kl_penalty_coefs[i]})
        metrics.append(train_step(state, groups, rewards, config.in_force(settings), ALONE))
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


@pytest.mark.parametrize("entropy_grad", [False, True])
@pytest.mark.parametrize("compiled", [False, True])
def test_the_chunked_head_gives_the_full_logits_values_and_gradients(
    monkeypatch, entropy_grad, compiled
):
    """`head_logprobs` over chunks of positions (the logits recomputed in the backward) ==
    `logits_logprobs` of the whole `hidden @ weight.T`, in value and in the gradients of the
    hidden states and the head weight."""
    monkeypatch.setattr(logprobs, "HEAD_CHUNK_ELEMENTS", 3 * 2 * 300)  # chunks of 2 positions
    assert len(logprobs._chunks(3, 7, 300)) == 4
    mx.random.seed(2)
    hidden = mx.random.normal((3, 7, 16))
    weight = 0.5 * mx.random.normal((300, 16))
    targets = mx.random.randint(0, 300, (3, 7)).astype(mx.int32)
    a, b = mx.random.normal((3, 7)), mx.random.normal((3, 7))

    def objective(fn):
        def f(h, w):
            logp, entropy = fn(h, w)
            return (a * logp).sum() + (b * entropy).sum()

        return mx.compile(f) if compiled else f

    def chunked(h, w):
        return head_logprobs(h, w, targets, with_entropy=True, entropy_grad=entropy_grad)

    def whole(h, w):
        return logits_logprobs(h @ w.T, targets, with_entropy=True, entropy_grad=entropy_grad)

    value, (g_h, g_w) = mx.value_and_grad(objective(chunked), argnums=(0, 1))(hidden, weight)
    want, (want_h, want_w) = mx.value_and_grad(objective(whole), argnums=(0, 1))(hidden, weight)
    assert value.item() == pytest.approx(want.item(), rel=1e-5)
    assert mx.allclose(g_h, want_h, atol=1e-5).item()
    assert mx.allclose(g_w, want_w, atol=1e-5).item()


def test_token_logprobs_takes_the_chunked_head_for_a_tied_llama(sft_model_dir, monkeypatch):
    """The embedded llama's head (tied embeddings) goes through `head_logprobs`, with the
    same log-probs and weight gradients as the model's own logits."""
    model, _ = load_model(sft_model_dir)
    body, weight = logprobs.split_head(model)
    assert body is model.model and weight is model.model.embed_tokens.weight
    tokens = mx.array([[3, 4, 5, 6, 7, 8], [9, 10, 11, 12, 2, 3]])
    monkeypatch.setattr(logprobs, "HEAD_CHUNK_ELEMENTS", 2 * model.args.vocab_size)
    calls = []
    original = logprobs.head_logprobs
    monkeypatch.setattr(
        logprobs, "head_logprobs", lambda *a, **k: calls.append(1) or original(*a, **k)
    )

    def loss(fn):
        return lambda m: fn(m, tokens)[0].sum()

    def through_logits(m, t):
        return logits_logprobs(m(t[:, :-1]), t[:, 1:])

    value, grads = nn.value_and_grad(model, loss(logprobs.token_logprobs))(model)
    want, want_grads = nn.value_and_grad(model, loss(through_logits))(model)
    assert calls and value.item() == pytest.approx(want.item(), rel=1e-5)
    for (name, g), (_, w) in zip(tree_flatten(grads), tree_flatten(want_grads), strict=True):
        assert mx.allclose(g, w, atol=1e-5).item(), name


def test_the_compiled_loss_traces_once_for_lengths_within_a_width_bucket(
    sft_model_dir, scored, small_grpo, monkeypatch
):
    """Completion lengths that differ between steps, within one 64-position bucket, reuse the
    compiled loss's trace (without the padding each new longest sequence traced again)."""
    import stages.training.grpo_loss as grpo_loss

    groups, rewards = scored
    traces = []
    original = grpo_loss._micro_loss
    monkeypatch.setattr(
        grpo_loss, "_micro_loss", lambda *a, **k: traces.append(1) or original(*a, **k)
    )
    shorter = [
        replace(g, rollouts_N=[
            replace(r, tokens=r.tokens[:2], logprobs=r.logprobs[:2]) for r in g.rollouts_N
        ])
        for g in groups
    ]  # fmt: skip
    config = small_grpo(group_size=4, micro_batches=2, compile_loss=True)
    model, tokenizer = load_model(sft_model_dir)
    state = new_trainer_state(model, tokenizer, config)
    train_step(state, groups, rewards, config, ALONE)
    after_first = len(traces)
    train_step(state, shorter, rewards, config, ALONE)
    assert after_first > 0 and len(traces) == after_first
