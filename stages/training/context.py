"""How many tokens each task row takes as SFT and sampling encode it, and the model's context,
for the check at the door (stages/tasks/limits.py). Only the tokenizer is loaded, never weights."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path

from stages.training.config import ModelConfig
from store.text_files import read_utf8

_MAX_MODEL_CONFIG_BYTES = 16 << 20  # a model's config.json is a few KB


def model_context(config: ModelConfig) -> tuple[int, str] | None:
    """The model's context in tokens and where it is set; None when a local model's
    `config.json` is absent or names none (a repo id not on this machine: nothing to check)."""
    if config.model_name == "embedded":
        return config.max_position_embeddings, "model.max_position_embeddings"
    path = Path(config.model_name) / "config.json"
    try:
        text = read_utf8(path, _MAX_MODEL_CONFIG_BYTES)
        context = json.loads(text).get("max_position_embeddings")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    return (context, str(path)) if isinstance(context, int) and context > 0 else None


def row_tokens(
    config: ModelConfig, rows: Sequence[tuple[str, str]], use_chat_template: bool
) -> list[int] | None:
    """Tokens of each (prompt, answer) row: the prompt through the chat template as sampling
    encodes it, the answer with its EOS as SFT does (the template's tokens are counted once, on an
    empty prompt: a merge across its edge may shift a count by a token). None when the model's
    tokenizer is not on this machine."""
    from mlx_lm.tokenizer_utils import load as load_tokenizer

    from stages.training.model import encode_prompt, write_tokenizer

    with tempfile.TemporaryDirectory() as scratch:
        if config.model_name == "embedded":
            folder = Path(scratch)
            write_tokenizer(config.vocab_chars, folder)
        else:
            folder = Path(config.model_name)
            if not (folder / "tokenizer.json").is_file():
                return None
        try:
            tokenizer = load_tokenizer(folder)
        except Exception:  # a tokenizer it cannot read: stage 1 names the problem when it loads
            return None
        template = len(encode_prompt(tokenizer, "", use_chat_template))
        backend = tokenizer._tokenizer  # the fast tokenizer: a batch is encoded in Rust
        prompts = backend([p for p, _ in rows], add_special_tokens=False)["input_ids"]
        answers = backend([a for _, a in rows], add_special_tokens=False)["input_ids"]
    return [template + len(p) + len(a) + 1 for p, a in zip(prompts, answers, strict=True)]
