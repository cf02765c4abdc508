import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest
from mlx.utils import tree_flatten
from mlx_lm.models import llama

from stages.training.config import ModelConfig
from stages.training.logprobs import pad_batch, token_logprobs
from stages.training.model import (
    build_embedded_model,
    encode_completion,
    encode_prompt,
    load_model,
)
from stages.training.sft_packing import ROW_MULTIPLE, pack_rows, packed_ce, window_logits

# The quickstart's mix: short arithmetic rows (6-9 tokens) and longer reversal rows (12 tokens).
ARITHMETIC = [(f"{a}+{b}=", str(a + b)) for a in (3, 17, 45, 99) for b in (0, 4, 9)] * 4
REVERSAL = [(f"rev {s}=", s[::-1]) for s in ("123", "907", "550", "001")] * 4


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    return load_model(build_embedded_model(ModelConfig(), tmp_path_factory.mktemp("m")))


def encoded(tokenizer, pairs):
    return (
        [encode_prompt(tokenizer, p) for p, _ in pairs],
        [encode_completion(tokenizer, c) for _, c in pairs],
    )


def padded_ce(model, tokens_BT, mask_BT):
    """The loss as it was: every row padded to the batch's longest, logits at every position."""
    logp_BT, _ = token_logprobs(model, tokens_BT)
    return -(logp_BT * mask_BT).sum() / mx.maximum(mask_BT.sum(), 1.0)


def test_mixed_lengths_split_into_two_groups_each_padded_to_its_own_width(embedded):
    _, tokenizer = embedded
    prompts, completions = encoded(tokenizer, ARITHMETIC + REVERSAL)
    groups = pack_rows(prompts, completions)
    assert [g.tokens_BT.shape for g in groups] == [(48, 9), (16, 12)]
    # the first target any row's mask covers: the shortest prompt's last token ("3+0=": 4 tokens)
    assert [g.start for g in groups] == [3, 7]
    short, long = groups
    assert short.mask_BT.sum().item() + long.mask_BT.sum().item() == sum(map(len, completions))
    assert not np.array(short.mask_BT)[:, :3].any() and not np.array(long.mask_BT)[:, :7].any()


def test_rows_of_one_length_stay_one_group_and_odd_row_counts_round_up(embedded):
    _, tokenizer = embedded
    prompts, completions = encoded(tokenizer, REVERSAL)
    (group,) = pack_rows(prompts, completions)
    assert group.tokens_BT.shape == (16, 12)
    # 32 short rows + 14 long ones: the long group gets 2 all-padding rows with an empty mask
    prompts, completions = encoded(tokenizer, ARITHMETIC[:32] + REVERSAL[:14])
    short, long = pack_rows(prompts, completions)
    assert short.tokens_BT.shape == (32, 9) and long.tokens_BT.shape == (ROW_MULTIPLE, 12)
    assert np.array(long.mask_BT)[14:].sum() == 0 and np.array(long.tokens_BT)[14:].sum() == 0
    # 40 short + 5 long: two groups (48 x 9 + 16 x 12 positions) would cost more than one (45 x 12)
    (group,) = pack_rows(*encoded(tokenizer, ARITHMETIC[:40] + REVERSAL[:5]))
    assert group.tokens_BT.shape == (45, 12)


def test_pack_rows_refuses_empty_batches_and_empty_prompts():
    with pytest.raises(ValueError):
        pack_rows([], [])
    with pytest.raises(ValueError):
        pack_rows([[]], [[1]])


def test_window_logits_are_the_full_forward_cut_to_the_window(embedded):
    model, tokenizer = embedded
    tokens_BT, _ = pad_batch(*encoded(tokenizer, REVERSAL[:4] + ARITHMETIC[:4]))
    inputs_BT = tokens_BT[:, :-1]
    full = model(inputs_BT)
    for start in (1, 3, inputs_BT.shape[1] - 1):
        window = window_logits(model, inputs_BT, start)
        assert window.shape == full[:, start:].shape
        assert np.allclose(np.array(window), np.array(full[:, start:]), atol=1e-5)


def test_a_sliding_window_llama_takes_the_full_forward_and_cuts_it():
    args = llama.ModelArgs(
        model_type="llama", hidden_size=32, num_hidden_layers=2, intermediate_size=64,
        num_attention_heads=4, rms_norm_eps=1e-5, vocab_size=20,
        layer_types=["full_attention", "sliding_attention"], sliding_window=3,
    )  # fmt: skip
    mx.random.seed(0)
    model = llama.Model(args)
    inputs_BT = mx.array([[3, 4, 5, 6, 7, 8, 9, 10]])
    window = window_logits(model, inputs_BT, 4)
    assert np.allclose(np.array(window), np.array(model(inputs_BT)[:, 4:]), atol=1e-6)


def test_packed_loss_and_gradients_equal_the_padded_full_forward_ones(embedded):
    model, tokenizer = embedded
    prompts, completions = encoded(tokenizer, ARITHMETIC[:32] + REVERSAL[:14])
    groups = pack_rows(prompts, completions)
    assert len(groups) == 2
    tokens_BT, mask_BT = pad_batch(prompts, completions)
    old_loss, old_grads = nn.value_and_grad(model, padded_ce)(model, tokens_BT, mask_BT)
    new_loss, new_grads = nn.value_and_grad(model, packed_ce)(model, groups)
    assert abs(old_loss.item() - new_loss.item()) < 1e-5
    old, new = dict(tree_flatten(old_grads)), dict(tree_flatten(new_grads))
    assert set(old) == set(new)
    for name in old:
        assert np.allclose(np.array(new[name]), np.array(old[name]), atol=1e-6, rtol=1e-4), name
