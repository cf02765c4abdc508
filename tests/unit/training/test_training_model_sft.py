import json

import mlx.core as mx
import numpy as np
import pytest
from mlx.utils import tree_flatten
from mlx_lm import load as mlx_lm_load

from stages.training.config import ModelConfig, SFTConfig
from stages.training.errors import TrainingError
from stages.training.model import (
    build_embedded_model,
    encode_completion,
    encode_prompt,
    load_model,
)
from stages.training.schedule import derive_seed, lr_multiplier
from stages.training.sft import epoch_batches, sft

EXAMPLES = [(f"{a}+{b}=", str(a + b)) for a in range(100) for b in range(10)]


def test_embedded_model_round_trips_through_mlx_lm_load(tmp_path):
    path = build_embedded_model(ModelConfig(), tmp_path / "m")
    for name in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"):
        assert (path / name).exists()
    model, tokenizer = mlx_lm_load(str(path))
    saved = mx.load(str(path / "model.safetensors"))
    loaded = dict(tree_flatten(model.parameters()))
    assert set(saved) == set(loaded)
    assert all(np.array_equal(np.array(saved[k]), np.array(loaded[k])) for k in saved)
    assert tokenizer.eos_token_ids == {1}
    assert json.loads((path / "tokenizer_config.json").read_text())["chat_template"]
    assert tokenizer.decode(encode_prompt(tokenizer, "12+3=")) == "12+3="
    assert encode_completion(tokenizer, "15")[-1] == 1


def test_embedded_model_weights_depend_only_on_the_init_seed(tmp_path):
    a = build_embedded_model(ModelConfig(init_seed=3), tmp_path / "a")
    b = build_embedded_model(ModelConfig(init_seed=3), tmp_path / "b")
    assert (a / "model.safetensors").read_bytes() == (b / "model.safetensors").read_bytes()


def test_loading_a_missing_model_raises_training_error(tmp_path):
    with pytest.raises(TrainingError, match="cannot load model"):
        load_model(tmp_path / "nothing-here")


def test_model_config_rejects_heads_that_do_not_divide_hidden():
    with pytest.raises(ValueError, match="num_attention_heads=5"):
        ModelConfig(hidden_size=128, num_attention_heads=5)


def test_sft_lowers_loss_and_reports_progress(tmp_path):
    path = build_embedded_model(ModelConfig(), tmp_path / "m")
    model, tokenizer = load_model(path)
    reports = []
    config = SFTConfig(steps=80, warmup_steps=10, report_every=40)
    losses = sft(model, tokenizer, epoch_batches(EXAMPLES, 32), config, reports.append)
    assert np.mean(losses[-10:]) < 0.6 * losses[0]
    assert [r["step"] for r in reports] == [39, 79]
    assert {"loss", "learning_rate", "tokens_per_s", "elapsed_s"} <= set(reports[0])


def test_epoch_batches_visit_every_example_once_per_epoch():
    batch = epoch_batches(list(range(10)), 5, seed=1)
    assert sorted(batch(0) + batch(1)) == list(range(10))
    assert batch(0) != batch(2) or batch(1) != batch(3)
    with pytest.raises(ValueError, match="batch_size"):
        epoch_batches([1], 0)


def test_lr_schedule_warms_up_then_decays_to_the_floor():
    assert lr_multiplier(0, "cosine", 10, 100, 0.1) == pytest.approx(0.1)
    assert lr_multiplier(9, "cosine", 10, 100, 0.1) == pytest.approx(1.0)
    assert lr_multiplier(100, "cosine", 10, 100, 0.1) == pytest.approx(0.1)
    assert lr_multiplier(55, "linear", 10, 100, 0.0) == pytest.approx(0.5)
    assert lr_multiplier(50, "constant", 0, 100, 0.1) == 1.0
    with pytest.raises(ValueError, match="'step'"):
        lr_multiplier(0, "step", 0, 10, 0.0)


def test_derived_seeds_differ_by_step_and_attempt_and_are_stable():
    assert derive_seed(0, "grpo", 1, 0) == derive_seed(0, "grpo", 1, 0)
    assert len({derive_seed(0, "grpo", s, a) for s in range(3) for a in range(3)}) == 9


def test_compiled_sft_step_trains_exactly_like_the_eager_one(tmp_path):
    """The compiled step (and the losses read back per report, not per step) change no number:
    same losses at every step, same final weights; one loss per step whatever report_every."""
    path = build_embedded_model(ModelConfig(), tmp_path / "m")
    config = SFTConfig(steps=23, warmup_steps=5, weight_decay=0.1, report_every=10)
    runs = {}
    for compiled in (True, False):
        model, tokenizer = load_model(path)
        losses = sft(model, tokenizer, epoch_batches(EXAMPLES, 16), config, compiled=compiled)
        runs[compiled] = losses, dict(tree_flatten(model.parameters()))
    (losses, weights), (eager_losses, eager_weights) = runs[True], runs[False]
    assert len(losses) == 23 and losses == eager_losses
    assert all(np.array_equal(np.array(weights[k]), np.array(eager_weights[k])) for k in weights)
