import json
from pathlib import Path

import mlx.core as mx
import numpy as np
import pytest
from mlx.utils import tree_flatten
from mlx_lm import load as mlx_lm_load

from stages.training.checkpoint import (
    materialise,
    read_checkpoint_state,
    restore_checkpoint,
    save_checkpoint,
    save_model_to_blobs,
)
from stages.training.config import ModelConfig
from stages.training.errors import TrainingError
from stages.training.grpo import new_trainer_state
from stages.training.model import load_model, make_trainable
from stages.training.sft import epoch_batches
from store.blobs import BlobStore
from tests.benchmarks.grpo_recipe import train_grpo

TIMING = {"sample_tokens_per_s", "train_tokens_per_s", "sample_s", "train_s", "step_s"}
# A checkpoint as the code before the settings left checkpoints wrote it (format 1): the settings
# in force (learning_rate, kl_penalty_coef, current_learning_rate) and the policies' overrides
# (`meta`), which restore no longer reads: the log holds them.
V1_STATE = Path(__file__).parent / "fixtures" / "checkpoint_state_v1.json"


def untimed(history):
    return [{k: v for k, v in m.items() if k not in TIMING} for m in history]


def params(model):
    return {k: np.array(v) for k, v in tree_flatten(model.parameters())}


def reward(records, texts):
    return [float(t.startswith("7")) + 0.1 * len(t) for t in texts]


@pytest.mark.parametrize("lora_rank", [0, 4])
def test_restoring_a_checkpoint_reproduces_the_next_step_bit_for_bit(
    tmp_path, sft_model_dir, prompts, small_grpo, lora_rank
):
    blobs = BlobStore(tmp_path / "blobs")
    model_config = ModelConfig(lora_rank=lora_rank)
    config = small_grpo(lr_schedule="cosine", warmup_steps=1, total_steps=5, num_substeps=2)
    batches = epoch_batches(prompts, config.groups_per_batch)

    model, tokenizer = load_model(sft_model_dir)
    make_trainable(model, model_config, seed=1)
    state = new_trainer_state(model, tokenizer, config)
    train_grpo(state, batches, reward, config, steps=2)
    digest = save_checkpoint(state, blobs, config, model_config, sft_model_dir)
    straight = train_grpo(state, batches, reward, config, steps=2)

    restored, restored_config, restored_model_config = restore_checkpoint(
        blobs, digest, sft_model_dir
    )
    assert restored.step == 2 and restored_config == config
    assert restored_model_config == model_config
    resumed = train_grpo(restored, batches, reward, config, steps=2)
    assert untimed(resumed) == untimed(straight)
    before, after = params(state.model), params(restored.model)
    assert all(np.array_equal(before[k], after[k]) for k in before)
    # Byte for byte: the same state saved from the straight and the resumed path has one digest.
    assert save_checkpoint(restored, blobs, config, model_config, sft_model_dir) == save_checkpoint(
        state, blobs, config, model_config, sft_model_dir
    )
    record = read_checkpoint_state(blobs, digest)
    assert record["fine_tune"] == ("lora" if lora_rank else "full")
    assert record["step"] == 2 and record["format_version"] == 2
    # The settings in force are the log's: a checkpoint keeps none.
    assert not {"learning_rate", "kl_penalty_coef", "current_learning_rate", "meta"} & set(record)


def test_lora_checkpoint_loads_with_mlx_lm_adapter_path(
    tmp_path, sft_model_dir, prompts, small_grpo
):
    blobs = BlobStore(tmp_path / "blobs")
    model_config = ModelConfig(lora_rank=4)
    config = small_grpo()
    model, tokenizer = load_model(sft_model_dir)
    make_trainable(model, model_config)
    state = new_trainer_state(model, tokenizer, config)
    train_grpo(state, epoch_batches(prompts, 8), reward, config, steps=1)
    folder = materialise(
        blobs, save_checkpoint(state, blobs, config, model_config, sft_model_dir), tmp_path / "c"
    )
    assert (folder / "adapters.safetensors").exists() and (folder / "adapter_config.json").exists()
    loaded, _ = mlx_lm_load(str(sft_model_dir), adapter_path=str(folder))
    trained = dict(tree_flatten(state.model.trainable_parameters()))
    got = dict(tree_flatten(loaded.parameters()))
    assert all(np.array_equal(np.array(trained[k]), np.array(got[k])) for k in trained)


def test_full_checkpoint_and_stored_model_load_with_mlx_lm(tmp_path, fresh_model, sft_model_dir):
    blobs = BlobStore(tmp_path / "blobs")
    model, _ = fresh_model
    folder = materialise(blobs, save_model_to_blobs(model, sft_model_dir, blobs), tmp_path / "m")
    loaded, tokenizer = mlx_lm_load(str(folder))
    x = mx.array([[3, 4, 74]])
    assert np.array_equal(np.array(loaded(x)), np.array(model(x)))
    assert tokenizer.eos_token_ids == {1}


def test_an_unknown_checkpoint_raises_training_error(tmp_path, sft_model_dir):
    with pytest.raises(TrainingError, match="cannot read checkpoint"):
        restore_checkpoint(BlobStore(tmp_path / "blobs"), "0" * 64, sft_model_dir)


def _as_of_old(tmp_path, blobs, sft_model_dir, record: dict) -> str:
    """A checkpoint holding this code's weights under an old `state.json` record."""
    model, tokenizer = load_model(sft_model_dir)
    make_trainable(model, ModelConfig(), seed=1)
    config = small_config()
    digest = save_checkpoint(
        new_trainer_state(model, tokenizer, config), blobs, config, ModelConfig(), sft_model_dir
    )
    folder = materialise(blobs, digest, tmp_path / "old")
    (folder / "state.json").write_text(json.dumps(record))
    return blobs.put_tree(folder)


def small_config():
    from stages.training.config import GRPOConfig

    record = json.loads(V1_STATE.read_text())
    return GRPOConfig.model_validate(record["grpo_config"])


@pytest.mark.parametrize("kind", ["format 1", "format 1 before the one-name table"])
def test_a_checkpoint_of_an_older_format_restores_its_weights_and_step(
    tmp_path, sft_model_dir, kind
):
    """Format 1 carried the settings in force and the policies' overrides; older ones still said
    `kl_coef` and carried the removed adaptive-controller settings. Both restore; none of that is
    read (the settings in force are the log's)."""
    blobs = BlobStore(tmp_path / "blobs")
    record = json.loads(V1_STATE.read_text())
    assert record["format_version"] == 1 and record["meta"]["overrides"]
    if kind != "format 1":
        record["kl_coef"] = record.pop("kl_penalty_coef")
        record["grpo_config"] |= {"kl_controller": "fixed", "kl_target": 0.05, "kl_adapt_rate": 0.1}
    digest = _as_of_old(tmp_path, blobs, sft_model_dir, record)
    restored, restored_config, _ = restore_checkpoint(blobs, digest, sft_model_dir)
    assert restored.step == 3 and restored_config == small_config()
    assert not hasattr(restored, "learning_rate") and not hasattr(restored, "kl_penalty_coef")
