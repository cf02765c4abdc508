import mlx.core as mx
import numpy as np
import pytest
from mlx.utils import tree_flatten
from mlx_lm import load as mlx_lm_load

from stages.rl.step import train_grpo
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

TIMING = {"sample_tokens_per_s", "train_tokens_per_s", "sample_s", "train_s", "step_s"}


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
    assert [m.model_dump(exclude=TIMING) for m in resumed] == [
        m.model_dump(exclude=TIMING) for m in straight
    ]
    before, after = params(state.model), params(restored.model)
    assert all(np.array_equal(before[k], after[k]) for k in before)
    # Byte for byte: the same state saved from the straight and the resumed path has one digest.
    assert save_checkpoint(restored, blobs, config, model_config, sft_model_dir) == save_checkpoint(
        state, blobs, config, model_config, sft_model_dir
    )
    record = read_checkpoint_state(blobs, digest)
    assert record["fine_tune"] == ("lora" if lora_rank else "full")
    assert record["step"] == 2 and "kl_penalty_coef" in record and "current_learning_rate" in record


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


def test_a_checkpoint_written_before_the_one_name_table_restores(
    tmp_path, sft_model_dir, small_grpo
):
    """Older checkpoints say `kl_coef` and carry the removed adaptive-controller settings."""
    import json

    from stages.training.checkpoint import materialise

    blobs = BlobStore(tmp_path / "blobs")
    config = small_grpo(kl_penalty_coef=0.07)
    model, tokenizer = load_model(sft_model_dir)
    make_trainable(model, ModelConfig(), seed=1)
    digest = save_checkpoint(
        new_trainer_state(model, tokenizer, config), blobs, config, ModelConfig(), sft_model_dir
    )
    folder = materialise(blobs, digest, tmp_path / "old")
    record = json.loads((folder / "state.json").read_text())
    record["kl_coef"] = record.pop("kl_penalty_coef")
    record["grpo_config"] |= {"kl_controller": "fixed", "kl_target": 0.05, "kl_adapt_rate": 0.1}
    (folder / "state.json").write_text(json.dumps(record))
    restored, restored_config, _ = restore_checkpoint(blobs, blobs.put_tree(folder), sft_model_dir)
    assert restored.kl_penalty_coef == 0.07 and restored_config == config
