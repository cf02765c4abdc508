"""The embedded model in a real model's shape: grouped-query attention, a head padded past the
tokenizer's tokens (as Qwen2.5's 151,936 rows are), bf16 weights; bad shapes are refused."""

import mlx.core as mx
import pytest
from pydantic import ValidationError

from stages.training.config import ModelConfig, SamplingConfig
from stages.training.model import load_model, prepare_model
from stages.training.sampling import batched, sample_groups


def test_the_embedded_model_takes_kv_heads_a_padded_head_and_bf16(tmp_path):
    config = ModelConfig(num_key_value_heads=2, vocab_size=5000, dtype="bfloat16")
    model, tokenizer, path = prepare_model(config, tmp_path / "base")
    again, _ = load_model(path)  # as saved
    for m in (model, again):
        assert m.model.embed_tokens.weight.shape == (5000, 128)
        assert m.model.embed_tokens.weight.dtype == mx.bfloat16
        assert m.args.num_key_value_heads == 2 and m.args.tie_word_embeddings
    # the rows past the tokenizer's tokens decode to nothing: sampling still gives text
    sampling = SamplingConfig(max_tokens=8)
    groups, _ = sample_groups(model, tokenizer, ["1+2="], sampling, 4, batched(0, sampling))
    assert any(t >= len(config.vocab_chars) + 2 for r in groups[0].rollouts_N for t in r.tokens)
    assert all(isinstance(r.text, str) for r in groups[0].rollouts_N)
    default, _, _ = prepare_model(ModelConfig(), tmp_path / "default")
    assert default.model.embed_tokens.weight.shape[0] == len(ModelConfig().vocab_chars) + 2
    assert default.args.num_key_value_heads == 4
    assert default.model.embed_tokens.weight.dtype == mx.float32


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"num_key_value_heads": 3},
            "num_attention_heads=4 is not a multiple of num_key_value_heads=3",
        ),
        ({"vocab_size": 10}, "vocab_size=10 is below the tokenizer's"),
        ({"dtype": "float16"}, "dtype"),
    ],
)
def test_bad_shapes_are_refused(fields, message):
    with pytest.raises(ValidationError, match=message):
        ModelConfig(**fields)
