"""Models: build the embedded tiny llama in Hugging Face layout, load any model through mlx_lm.load,
turn on LoRA, and save weights / adapters so that mlx_lm can load them back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import mlx.core as mx
import mlx.nn as nn
from mlx.utils import tree_flatten
from mlx_lm import load as mlx_lm_load
from mlx_lm.models import llama
from mlx_lm.tuner.utils import linear_to_lora_layers

from stages.training.blas import warn_if_reference_blas
from stages.training.config import ModelConfig
from stages.training.errors import TrainingError

PAD, EOS = "<pad>", "<eos>"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
# The user turn verbatim, the assistant turn followed by EOS: prompts stay as short as the task.
CHAT_TEMPLATE = (
    "{% for message in messages %}{{ message['content'] }}"
    "{% if message['role'] == 'assistant' %}{{ eos_token }}{% endif %}{% endfor %}"
)


def write_tokenizer(vocab_chars: str, directory: Path) -> int:
    """A char-level tokenizer (tokenizers library) in HF layout; returns the vocabulary size."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

    vocab = {PAD: 0, EOS: 1} | {c: i + 2 for i, c in enumerate(vocab_chars)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token=PAD))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    tok.decoder = decoders.Fuse()
    tok.add_special_tokens([PAD, EOS])
    tok.save(str(directory / "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "eos_token": EOS,
        "pad_token": PAD,
        "model_max_length": 1 << 20,
        "chat_template": CHAT_TEMPLATE,
        "clean_up_tokenization_spaces": False,
    }
    (directory / "tokenizer_config.json").write_text(json.dumps(config, indent=2))
    (directory / "special_tokens_map.json").write_text(
        json.dumps({"eos_token": EOS, "pad_token": PAD}, indent=2)
    )
    return len(vocab)


def build_embedded_model(config: ModelConfig, directory: Path | str) -> Path:
    """Write a freshly initialised tiny llama + tokenizer to `directory` (HF layout) and return it.

    Load it with `load_model(directory)`, exactly like a downloaded model.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    vocab_size = max(write_tokenizer(config.vocab_chars, directory), config.vocab_size or 0)
    model_config = {
        "model_type": "llama",
        "hidden_size": config.hidden_size,
        "num_hidden_layers": config.num_hidden_layers,
        "intermediate_size": config.intermediate_size,
        "num_attention_heads": config.num_attention_heads,
        "num_key_value_heads": config.num_key_value_heads or config.num_attention_heads,
        "rms_norm_eps": config.rms_norm_eps,
        "rope_theta": config.rope_theta,
        "vocab_size": vocab_size,
        "max_position_embeddings": config.max_position_embeddings,
        "tie_word_embeddings": True,
        "eos_token_id": 1,
        "pad_token_id": 0,
    }
    args = llama.ModelArgs.from_dict(model_config)
    mx.random.seed(config.init_seed)
    model = llama.Model(args)
    if config.dtype != "float32":
        model.set_dtype(getattr(mx, config.dtype))
    mx.eval(model.parameters())
    (directory / "config.json").write_text(json.dumps(model_config, indent=2))
    mx.save_safetensors(
        str(directory / "model.safetensors"), dict(tree_flatten(model.parameters()))
    )
    return directory


def load_model(path: Path | str, adapter_path: Path | str | None = None) -> tuple[nn.Module, Any]:
    """`mlx_lm.load` with errors translated: (model, tokenizer wrapper)."""
    warn_if_reference_blas()  # here, where it matters: this model is about to compute
    try:
        model, tokenizer = mlx_lm_load(
            str(path), adapter_path=None if adapter_path is None else str(adapter_path)
        )
    except Exception as e:  # mlx_lm raises assorted errors for missing or malformed files
        raise TrainingError(f"cannot load model {path!s} (adapters {adapter_path}): {e}") from e
    return model, tokenizer


def prepare_model(
    config: ModelConfig, directory: Path | str | None = None
) -> tuple[nn.Module, Any, Path]:
    """Build (if embedded) and load the model; return (model, tokenizer, model path)."""
    if config.model_name == "embedded":
        if directory is None:
            raise ValueError('model_name="embedded" needs a directory to write the model to')
        path = build_embedded_model(config, directory)
    else:
        path = Path(config.model_name)
    model, tokenizer = load_model(path)
    return model, tokenizer, path


def lora_settings(config: ModelConfig, model: nn.Module) -> dict[str, Any]:
    """The adapter_config.json mlx_lm needs to re-create the LoRA layers."""
    num_layers = len(model.layers) if config.lora_layers < 0 else config.lora_layers
    return {
        "fine_tune_type": "lora",
        "num_layers": num_layers,
        "lora_parameters": {
            "rank": config.lora_rank,
            "scale": config.lora_scale,
            "dropout": config.lora_dropout,
        },
    }


def make_trainable(model: nn.Module, config: ModelConfig, seed: int = 0) -> dict[str, Any] | None:
    """Full fine-tune when lora_rank == 0, else freeze the base and add LoRA layers.

    Returns the adapter settings (None for full fine-tuning). LoRA init is seeded by `seed`.
    """
    if config.lora_rank == 0:
        model.unfreeze()
        return None
    settings = lora_settings(config, model)
    model.freeze()
    mx.random.seed(seed)
    linear_to_lora_layers(model, settings["num_layers"], settings["lora_parameters"])
    mx.eval(model.parameters())
    return settings


def save_weights(
    model: nn.Module, directory: Path | str, adapter_settings: dict[str, Any] | None
) -> None:
    """LoRA: `adapters.safetensors` + `adapter_config.json`; full: `model.safetensors`."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    if adapter_settings is not None:
        weights = dict(tree_flatten(model.trainable_parameters()))
        mx.save_safetensors(str(directory / "adapters.safetensors"), weights)
        (directory / "adapter_config.json").write_text(json.dumps(adapter_settings, indent=2))
    else:
        weights = dict(tree_flatten(model.parameters()))
        mx.save_safetensors(str(directory / "model.safetensors"), weights)


def save_model_dir(model: nn.Module, base_path: Path | str, directory: Path | str) -> Path:
    """A complete HF-layout model folder (config, tokenizer, current full weights)."""
    base_path, directory = Path(base_path), Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", *TOKENIZER_FILES):
        if (base_path / name).exists():
            shutil.copy(base_path / name, directory / name)
    save_weights(model, directory, None)
    return directory


def encode_prompt(tokenizer: Any, text: str, use_chat_template: bool = True) -> list[int]:
    """Prompt token ids, through the chat template when asked and the tokenizer has one."""
    if use_chat_template and getattr(tokenizer, "chat_template", None):
        ids = tokenizer.apply_chat_template(
            [{"role": "user", "content": text}], add_generation_prompt=True, tokenize=True
        )
        return list(ids["input_ids"] if isinstance(ids, dict) else ids)
    return list(tokenizer.encode(text, add_special_tokens=False))


def encode_completion(tokenizer: Any, text: str) -> list[int]:
    """Completion token ids followed by the (first) EOS token."""
    eos = sorted(tokenizer.eos_token_ids)[0]
    return list(tokenizer.encode(text, add_special_tokens=False)) + [eos]
