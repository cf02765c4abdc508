"""The pipelined decode loop (step i+1 queued before step i is read back) gives exactly what a
plain step-by-step loop gives: same tokens, same log-probs, same stopping; and the compiled decode
(`sampling.compiled_decode`) gives what the pipelined loop gives, on the embedded llama and on a
tiny Qwen2."""

from __future__ import annotations

import copy

import mlx.core as mx
import numpy as np
import pytest
from mlx.utils import tree_flatten, tree_map
from mlx_lm.models import llama, qwen2
from mlx_lm.models.cache import make_prompt_cache

from stages.rl.sampling import RowKeyedSampler, keyed
from stages.training import static_decode
from stages.training.config import SamplingConfig
from stages.training.grpo import new_trainer_state
from stages.training.model import encode_prompt, load_model
from stages.training.sampling import KeyedSampler, batched, generate_tokens, sample_groups
from stages.training.sft import epoch_batches
from tests.benchmarks.grpo_recipe import train_grpo


def step_by_step(model, prompts_b, eos_ids, max_tokens, sampler):
    """The reference: evaluate every step before building the next, stop when all saw EOS."""
    cache = make_prompt_cache(model)
    logits = model(mx.array(prompts_b), cache=cache)[:, -1, :].astype(mx.float32)
    tokens, logprobs, done = [], [], np.zeros(len(prompts_b), dtype=bool)
    for _ in range(max_tokens):
        lp = logits - mx.logsumexp(logits, axis=-1, keepdims=True)
        tok = sampler(lp)
        picked = mx.take_along_axis(lp, tok[:, None], axis=-1)[:, 0]
        mx.eval(tok, picked)
        tokens.append(np.array(tok))
        logprobs.append(np.array(picked))
        done |= np.isin(tokens[-1], eos_ids)
        if done.all():
            break
        logits = model(tok[:, None], cache=cache)[:, -1, :].astype(mx.float32)
    out_t, out_lp = [], []
    for b in range(len(prompts_b)):
        column = np.stack(tokens)[:, b]
        stops = np.flatnonzero(np.isin(column, eos_ids))
        end = stops[0] + 1 if len(stops) else len(column)
        out_t.append(column[:end].tolist())
        out_lp.append(np.stack(logprobs)[:end, b].tolist())
    return out_t, out_lp


def test_pipelined_decode_equals_the_step_by_step_loop(fresh_model, prompts):
    model, tokenizer = fresh_model
    ids = [encode_prompt(tokenizer, p, True) for p in prompts[:16] for _ in range(4)]
    eos = sorted(tokenizer.eos_token_ids)
    for max_tokens, temperature in ((3, 1.0), (24, 1.0), (24, 0.0), (1, 1.0)):
        want_t, want_lp = step_by_step(model, ids, eos, max_tokens, KeyedSampler(7, temperature))
        got_t, got_lp, truncated, n = generate_tokens(
            model, ids, eos, max_tokens, KeyedSampler(7, temperature)
        )
        assert got_t == want_t, (max_tokens, temperature)
        assert got_lp == want_lp, (max_tokens, temperature)
        assert n == sum(len(t) for t in want_t)
        assert truncated == [t[-1] not in eos for t in want_t]
    # with room to finish, the SFT'd model ends every answer: the loop stopped early
    assert max(len(t) for t in want_t) < 24


# The compiled decode (`sampling.compiled_decode`): the same rollouts as the eager loop. On the
# CPU backend the log-probs are bitwise equal (asserted); LOGPROB_TOL (fp32 log-probs) is what a
# backend whose attention sums the masked slots in another order must still meet.
LOGPROB_TOL = 1e-6


def assert_same_rollouts(
    model, ids, eos, max_tokens, make_sampler, lookahead=1, per_position=False
):
    eager_sampler, compiled_sampler = make_sampler(), make_sampler()
    want_t, want_lp, want_trunc, want_n = generate_tokens(
        model, ids, eos, max_tokens, eager_sampler
    )
    got_t, got_lp, got_trunc, got_n = generate_tokens(
        model, ids, eos, max_tokens, compiled_sampler, compiled_decode=True, lookahead=lookahead,
        per_position=per_position,
    )  # fmt: skip
    assert got_t == want_t
    assert (got_trunc, got_n) == (want_trunc, want_n)
    worst = max(
        np.abs(np.array(g) - np.array(w)).max() for g, w in zip(got_lp, want_lp, strict=True)
    )
    assert worst <= LOGPROB_TOL
    if mx.default_device() == mx.cpu:
        assert got_lp == want_lp  # bitwise, as the README says
    # the sampler's key ends where the eager loop leaves it: a later call draws the same noise
    assert np.array_equal(np.array(compiled_sampler.state), np.array(eager_sampler.state))
    return want_t


@pytest.mark.parametrize("per_position", [False, True])
def test_compiled_decode_gives_the_eager_loops_rollouts(fresh_model, prompts, per_position):
    model, tokenizer = fresh_model
    # "1+2=" and "50+3=": two prompt lengths, two buckets
    ids = [
        encode_prompt(tokenizer, p, True) for p in prompts[:12] + prompts[500:516] for _ in range(3)
    ]
    assert len({len(i) for i in ids}) >= 2
    eos = sorted(tokenizer.eos_token_ids)
    for max_tokens, temperature, top_p, lookahead in (
        (3, 1.0, 1.0, 1), (24, 1.0, 1.0, 1), (24, 0.0, 1.0, 1), (1, 1.0, 1.0, 1),
        (24, 1.0, 0.9, 1), (24, 1.0, 1.0, 4), (24, 0.0, 1.0, 3), (5, 1.0, 1.0, 8),
    ):  # fmt: skip
        tokens = assert_same_rollouts(
            model,
            ids,
            eos,
            max_tokens,
            lambda t=temperature, p=top_p: KeyedSampler(7, t, p),
            lookahead,
            per_position,
        )
    assert max(len(t) for t in tokens) < 24  # rows ended on EOS, so the loop stopped early


def tiny_qwen2(dtype=mx.float32, **shape):
    """A random-weight Qwen2 (the GPU benchmark's architecture: q/k/v biases, grouped KV heads,
    tied embeddings) of configs/gpu_bench.toml's [tiny] shape."""
    mx.random.seed(0)
    args = dict(
        model_type="qwen2", hidden_size=64, num_hidden_layers=2, intermediate_size=128,
        num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-6, vocab_size=512,
    ) | shape  # fmt: skip
    model = qwen2.Model(qwen2.ModelArgs(**args))
    model.set_dtype(dtype)
    mx.eval(model.parameters())
    return model


def random_prompts(lengths, vocab=510, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, vocab, n).tolist() for n in lengths]


@pytest.mark.parametrize("per_position", [False, True])
@pytest.mark.parametrize("dtype", [mx.float32, mx.bfloat16])
def test_compiled_decode_gives_the_eager_loops_rollouts_on_qwen2(dtype, per_position):
    model = tiny_qwen2(dtype)
    # three buckets; 40 + 40 tokens crosses a capacity step, 6 + 40 does not
    ids = random_prompts([6] * 16 + [9] * 8 + [40] * 4)
    eos = list(range(0, 512, 31))  # one token in 31 ends a row: rows stop at different steps
    for max_tokens, temperature, lookahead in (
        (3, 1.0, 1),
        (40, 1.0, 1),
        (40, 0.0, 2),
        (40, 1.0, 5),
    ):
        tokens = assert_same_rollouts(
            model, ids, eos, max_tokens, lambda t=temperature: KeyedSampler(3, t), lookahead,
            per_position,
        )  # fmt: skip
    assert len({len(t) for t in tokens}) > 1 and any(t[-1] not in eos for t in tokens)


def test_compiled_decode_keeps_the_split_invariant_samplers_draws():
    model = tiny_qwen2()
    ids = random_prompts([7] * 12)
    make = lambda: RowKeyedSampler(list(range(12)), 1.0, 0.9)  # noqa: E731
    assert_same_rollouts(model, ids, list(range(0, 512, 9)), 30, make)


def test_compiled_decode_reads_the_current_weights_not_the_traced_ones():
    model = tiny_qwen2()
    ids = random_prompts([7] * 8)
    before = assert_same_rollouts(model, ids, [], 12, lambda: KeyedSampler(0, 0.0))
    # an optimizer update replaces the arrays; the traced step must see the new ones
    model.update(tree_map(lambda w: w * 1.5, model.parameters()))
    after = assert_same_rollouts(model, ids, [], 12, lambda: KeyedSampler(0, 0.0))
    assert after != before


def test_compiled_step_is_traced_once_per_shape_not_once_per_token(monkeypatch):
    model = tiny_qwen2()
    ids = random_prompts([5] * 4 + [7] * 4)  # 5 + 10 - 1 and 7 + 10 - 1 slots: both in 16
    writes = []
    original = static_decode.StaticKVCache.update_and_fetch
    monkeypatch.setattr(
        static_decode.StaticKVCache, "update_and_fetch",
        lambda self, k, v: writes.append(1) or original(self, k, v),
    )  # fmt: skip
    generate_tokens(model, ids, [], 10, KeyedSampler(0, 1.0), compiled_decode=True)
    assert len(writes) == 2  # one trace of the step (2 layers): both buckets share its shape
    generate_tokens(model, ids, [], 10, KeyedSampler(1, 1.0), compiled_decode=True)
    assert len(writes) == 2  # replayed, not rebuilt


def test_per_position_steps_are_traced_once_each_and_attend_without_a_mask(monkeypatch):
    model = tiny_qwen2()
    ids = random_prompts([5] * 4)
    writes, masks = [], []
    original = static_decode.StaticKVCache.update_and_fetch
    original_mask = static_decode.StaticKVCache.make_mask
    monkeypatch.setattr(
        static_decode.StaticKVCache, "update_and_fetch",
        lambda self, k, v: writes.append(1) or original(self, k, v),
    )  # fmt: skip
    monkeypatch.setattr(
        static_decode.StaticKVCache, "make_mask",
        lambda self, *a, **k: masks.append(original_mask(self, *a, **k)) or masks[-1],
    )  # fmt: skip
    generate_tokens(
        model, ids, [], 10, KeyedSampler(0, 1.0), compiled_decode=True, per_position=True
    )
    assert len(writes) == 9 * 2 and masks == [None] * 9  # 9 positions fed, 2 layers
    generate_tokens(
        model, ids, [], 10, KeyedSampler(1, 1.0), compiled_decode=True, per_position=True
    )
    assert len(writes) == 9 * 2  # replayed


def test_models_with_a_sliding_window_cache_decode_on_the_eager_loop():
    mx.random.seed(0)
    model = llama.Model(llama.ModelArgs(
        model_type="llama", hidden_size=32, num_hidden_layers=2, intermediate_size=64,
        num_attention_heads=2, rms_norm_eps=1e-6, vocab_size=64,
        layer_types=["sliding_attention", "full_attention"], sliding_window=4,
    ))  # fmt: skip
    ids = random_prompts([6] * 4, vocab=64)
    assert not static_decode.static_cache_supported(make_prompt_cache(model))
    assert_same_rollouts(model, ids, [], 10, lambda: KeyedSampler(0, 1.0))
    assert "_compiled_decode_steps" not in model.__dict__


def test_the_sampling_config_switches_the_rollout_samplers_to_the_compiled_step(
    fresh_model, prompts
):
    model, tokenizer = fresh_model
    eager = SamplingConfig(max_tokens=6)
    for compiled in (
        SamplingConfig(max_tokens=6, compiled_decode=True, decode_lookahead=2),
        SamplingConfig(max_tokens=6, compiled_decode=True, compiled_decode_per_position=True),
    ):
        for sample in (
            lambda c: sample_groups(
                model, tokenizer, prompts[:8] + prompts[600:608], c, 4, batched(5, c)
            )[0],
            lambda c: sample_groups(model, tokenizer, prompts[:8], c, 4, keyed(5, c, 3, 4))[0],
        ):
            model.__dict__.pop("_compiled_decode_steps", None)
            want = [r for g in sample(eager) for r in g.rollouts_N]
            assert "_compiled_decode_steps" not in model.__dict__
            assert [r for g in sample(compiled) for r in g.rollouts_N] == want
            positions = {kind[-1] for kind in model._compiled_decode_steps.by_kind}
            assert (positions != {None}) == compiled.compiled_decode_per_position


def test_a_copy_of_a_model_that_sampled_compiled_decodes_with_its_own_weights():
    model = tiny_qwen2()
    ids = random_prompts([7] * 8)
    generate_tokens(model, ids, [], 12, KeyedSampler(0, 0.0), compiled_decode=True)
    twin = copy.deepcopy(model)  # what a reference policy is made by, after the model sampled
    twin.update(tree_map(lambda w: w * 1.5, twin.parameters()))
    assert_same_rollouts(twin, ids, [], 12, lambda: KeyedSampler(0, 0.0))
    assert assert_same_rollouts(model, ids, [], 12, lambda: KeyedSampler(0, 0.0)) != (
        assert_same_rollouts(twin, ids, [], 12, lambda: KeyedSampler(0, 0.0))
    )


def test_a_lookahead_below_one_is_refused():
    with pytest.raises(ValueError, match="lookahead must be positive, got 0"):
        generate_tokens(tiny_qwen2(), [[1, 2]], [], 4, KeyedSampler(0, 0.0), lookahead=0)
    with pytest.raises(ValueError, match="decode_lookahead"):
        SamplingConfig(decode_lookahead=0)


def test_grpo_steps_sampled_by_the_compiled_decode_leave_the_same_weights(
    sft_model_dir, prompts, small_grpo, starts_with_7
):
    weights = []
    for compiled in (False, True):
        model, tokenizer = load_model(sft_model_dir)
        config = small_grpo(sampling=SamplingConfig(max_tokens=6, compiled_decode=compiled))
        state = new_trainer_state(model, tokenizer, config)
        train_grpo(
            state, epoch_batches(prompts[::7], config.groups_per_batch), starts_with_7, config, 3
        )
        weights.append(dict(tree_flatten(model.parameters())))
    assert weights[0].keys() == weights[1].keys()
    for name, w in weights[0].items():  # bitwise on CPU: the rollouts were bitwise the same
        assert np.array_equal(np.array(w), np.array(weights[1][name])), name
