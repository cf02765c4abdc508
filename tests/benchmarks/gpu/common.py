"""Shared by both sides of the GPU benchmark: config, the model folder, prompts, reward, FLOPs.

Nothing here imports mlx or torch at module level: each side runs in its own process.
"""

from __future__ import annotations

import json
import tomllib
import zlib
from pathlib import Path
from typing import Any

EOS_TOKEN, IM_END = "<|endoftext|>", "<|im_end|>"


def load_config(path: str | Path, profile: str | None = None) -> dict[str, dict[str, Any]]:
    """The TOML config as {"model": ..., "grpo": ..., "bench": ...}; `profile` (a top-level table,
    e.g. "tiny") overrides keys of whichever section holds them."""
    raw = tomllib.loads(Path(path).read_text())
    cfg = {k: dict(raw[k]) for k in ("model", "grpo", "bench")}
    if profile:
        for key, value in raw[profile].items():
            owner = next((s for s in cfg if key in cfg[s]), None)
            if owner is None:
                raise KeyError(f"profile {profile!r} sets unknown key {key!r}")
            cfg[owner][key] = value
    return cfg


def hf_config(m: dict[str, Any]) -> dict[str, Any]:
    """config.json of a Qwen2ForCausalLM of this shape."""
    return {
        "architectures": ["Qwen2ForCausalLM"],
        "model_type": "qwen2",
        "hidden_size": m["hidden_size"],
        "num_hidden_layers": m["num_hidden_layers"],
        "num_attention_heads": m["num_attention_heads"],
        "num_key_value_heads": m["num_key_value_heads"],
        "intermediate_size": m["intermediate_size"],
        "vocab_size": m["vocab_size"],
        "max_position_embeddings": m["max_position_embeddings"],
        "rope_theta": m["rope_theta"],
        "rms_norm_eps": m["rms_norm_eps"],
        "hidden_act": "silu",
        "tie_word_embeddings": True,
        "use_sliding_window": False,
        "attention_dropout": 0.0,
        "initializer_range": 0.02,
        "bos_token_id": None,
        "eos_token_id": m["vocab_size"] - 2,
        "pad_token_id": m["vocab_size"] - 2,
        "torch_dtype": m["dtype"],
    }


LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _byte_chars() -> list[str]:
    """GPT-2 / Qwen byte-level alphabet: the printable stand-in of each of the 256 bytes."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars, extra = {}, 0
    for b in range(256):
        if b in keep:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return [chars[b] for b in range(256)]


def word_tokens(vocab_size: int) -> tuple[list[str], list[tuple[str, str]]]:
    """Byte-level BPE tokens after the 256 bytes: " a".." z", then " aa".." zz", ... (one more
    letter per tier, each built by merging its prefix with one letter), filling `vocab_size - 2`
    (two special tokens) in all. Returns (tokens, merges)."""
    space = _byte_chars()[ord(" ")]
    room = vocab_size - 2 - 256
    tokens, merges, tier = [], [], [space]
    while room > 0:
        nxt = []
        for prefix in tier:
            for c in LETTERS:
                if room == 0:
                    break
                nxt.append(prefix + c)
                merges.append((prefix, c))
                room -= 1
        tokens += nxt
        tier = nxt
    return tokens, merges


def write_tokenizer(vocab_size: int, directory: Path) -> None:
    """A Qwen2-style byte-level BPE of exactly `vocab_size` tokens (256 bytes, " a".." zzzz"
    words, <|endoftext|>, <|im_end|>), built with `tokenizers`; nothing is downloaded. transformers
    5 loads any qwen2 model's tokenizer as Qwen2Tokenizer (vocab + merges), so it has to be a BPE."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

    byte_chars = _byte_chars()
    words, merges = word_tokens(vocab_size)
    vocab = {c: i for i, c in enumerate(byte_chars)}
    for w in words:
        vocab[w] = len(vocab)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, fuse_unk=False, byte_fallback=False))
    regex = (
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
        r"|\s*[\r\n]+|\s+(?!\S)|\s+"
    )
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(regex), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([EOS_TOKEN, IM_END])
    assert tok.get_vocab_size() == vocab_size, (tok.get_vocab_size(), vocab_size)
    tok.save(str(directory / "tokenizer.json"))
    (directory / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "tokenizer_class": "Qwen2Tokenizer",
                "eos_token": EOS_TOKEN,
                "pad_token": EOS_TOKEN,
                "unk_token": None,
                "bos_token": None,
                "model_max_length": 1 << 20,
                "clean_up_tokenization_spaces": False,
            },
            indent=2,
        )
    )


def build_model_dir(m: dict[str, Any], directory: Path) -> Path:
    """Random-weight Qwen2 in Hugging Face layout, loadable by both `mlx_lm.load` and
    `transformers`. Uses transformers (torch) when importable, else mlx_lm's qwen2 class."""
    directory.mkdir(parents=True, exist_ok=True)
    if (directory / "config.json").exists() and any(directory.glob("*.safetensors")):
        return directory
    write_tokenizer(m["vocab_size"], directory)
    cfg = hf_config(m)
    try:
        import torch
        from transformers import Qwen2Config, Qwen2ForCausalLM
    except ImportError:
        torch = None
    if torch is not None:
        torch.manual_seed(m["init_seed"])
        kwargs = {
            k: v for k, v in cfg.items() if k not in ("architectures", "model_type", "torch_dtype")
        }
        with torch.device("cuda" if torch.cuda.is_available() else "cpu"):
            model = Qwen2ForCausalLM(Qwen2Config(**kwargs)).to(getattr(torch, m["dtype"]))
        model.save_pretrained(directory, safe_serialization=True)
    else:
        import mlx.core as mx
        from mlx.utils import tree_flatten
        from mlx_lm.models import qwen2

        mx.random.seed(m["init_seed"])
        model = qwen2.Model(qwen2.ModelArgs.from_dict(cfg))
        model.set_dtype(getattr(mx, m["dtype"]))
        mx.eval(model.parameters())
        mx.save_safetensors(
            str(directory / "model.safetensors"),
            dict(tree_flatten(model.parameters())),
            metadata={"format": "pt"},
        )
    (directory / "config.json").write_text(json.dumps(cfg, indent=2))
    return directory


def prompts(g: dict[str, Any], vocab_size: int) -> list[str]:
    """`groups_per_batch` prompts of exactly `prompt_tokens` tokens each (deterministic)."""
    words, _ = word_tokens(vocab_size)
    space = _byte_chars()[ord(" ")]
    longest = max(len(w) for w in words)
    pool = [w[len(space) :] for w in words if len(w) == longest]
    out = []
    for p in range(g["groups_per_batch"]):
        picks = [pool[(p * 7919 + j * 104729 + 13) % len(pool)] for j in range(g["prompt_tokens"])]
        out.append("".join(" " + w for w in picks))
    return out


def reward(text: str) -> float:
    """A deterministic pseudo-reward in [0, 1): every group has reward variance, so no group is
    dropped and both sides train on all 256 sequences."""
    return (zlib.crc32(text.encode()) % 1000) / 1000.0


def flop_params(m: dict[str, Any]) -> int:
    """Parameters that take part in matrix products per token: every linear layer, plus the
    (tied) LM head once; the embedding lookup, norms and biases are left out."""
    d, layers, inter = m["hidden_size"], m["num_hidden_layers"], m["intermediate_size"]
    kv = m["num_key_value_heads"] * (d // m["num_attention_heads"])
    per_layer = 2 * d * d + 2 * d * kv + 3 * d * inter
    return layers * per_layer + m["vocab_size"] * d


def total_params(m: dict[str, Any]) -> int:
    d, layers = m["hidden_size"], m["num_hidden_layers"]
    kv = m["num_key_value_heads"] * (d // m["num_attention_heads"])
    biases = d + 2 * kv
    norms = 2 * d
    return flop_params(m) + layers * (biases + norms) + d


def figures(
    m: dict[str, Any],
    bench: dict[str, Any],
    sample_tokens: float,
    train_tokens: float,
    sample_s: float,
    train_s: float,
    step_s: float,
) -> dict[str, float]:
    """Throughputs and MFU of one (median) step.

    model FLOPs = 6 N train_tokens + 2 N sample_tokens, N = flop_params (attention's T^2 term,
    the reference model's forward and any extra metric forward are not counted);
    MFU = model FLOPs / step_s / peak.
    """
    n = flop_params(m)
    peak = bench["peak_tflops"] * 1e12
    train_flops = 6 * n * train_tokens
    sample_flops = 2 * n * sample_tokens
    return {
        "sample_tokens_per_s": sample_tokens / sample_s,
        "train_tokens_per_s": train_tokens / train_s,
        "mfu": (train_flops + sample_flops) / step_s / peak,
        "train_mfu": train_flops / train_s / peak,
        "sample_mfu": sample_flops / sample_s / peak,
    }


def limits(
    m: dict[str, Any],
    bench: dict[str, Any],
    g: dict[str, Any],
    sample_s: float,
    train_tokens: float,
) -> dict[str, float]:
    """How far a (median) step is from the card's limits. Decoding: each decode step reads every
    weight once (bf16: 2 bytes a parameter; the KV cache, < 1 GB at this shape, left out), so
    `decode_floor_ms` = weight bytes / `peak_tb_s`, against `decode_step_ms` = sampling seconds
    per generated position. Training: `train_floor_s` = 6 N x trained tokens / `peak_tflops`."""
    weight_bytes = total_params(m) * (2 if m["dtype"] in ("bfloat16", "float16") else 4)
    return {
        "decode_step_ms": 1e3 * sample_s / g["max_tokens"],
        "decode_floor_ms": 1e3 * weight_bytes / (bench["peak_tb_s"] * 1e12),
        "train_floor_s": 6 * flop_params(m) * train_tokens / (bench["peak_tflops"] * 1e12),
    }


def median(xs: list[float]) -> float:
    s = sorted(xs)
    k = len(s) // 2
    return s[k] if len(s) % 2 else 0.5 * (s[k - 1] + s[k])
