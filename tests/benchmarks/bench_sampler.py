"""The eager decode loop against the compiled one (`sampling.compiled_decode`), on this machine.

Four models: the quickstart's embedded llama (437k parameters; 256 sequences, 6-token prompts),
the GPU benchmark's tiny Qwen2 profile (configs/gpu_bench.toml [tiny]), a mid-size Qwen2
(hidden 256, 4 layers, vocab 32k; 64 sequences x 64 new tokens) and a Qwen2 of Qwen2.5-0.5B's
depth and head layout at a small width (24 layers, 14 heads / 2 KV heads, hidden 224): its host
build time is the 0.5B model's, whose compute a CPU cannot run in reasonable time. Random weights
and no EOS, so every sequence decodes exactly `new_tokens` tokens. Per mode:

- tokens/s of `generate_tokens` (prefill included), wall and process CPU time (all threads);
- per decode step: (time of `new_tokens` tokens - time of 1 token) / (new_tokens - 1);
- host build time per decode step: the Python time to build one step's lazy graph (eager: the
  model's forward + `pick_next`; compiled: one call of the compiled step), each step evaluated
  before the next is timed. This is the part the compiled step removes from the critical path
  of a GPU, where the device waits on it.

    .venv/bin/python tests/benchmarks/bench_sampler.py [--repeats 5] [--only quickstart,...]

Modes: eager, compiled (one masked step per length bucket), per_position (one step per cache
position, no mask: `sampling.compiled_decode_per_position`).

Last line: one JSON object {model: {mode: figures}} with ratios to eager.
"""

from __future__ import annotations  # noqa: I001  (stages.training loads OpenBLAS before mlx)

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import stages.training  # noqa: F401
import mlx.core as mx
import numpy as np
from mlx_lm.models import qwen2
from mlx_lm.models.cache import make_prompt_cache

from stages.training import static_decode
from stages.training.config import ModelConfig
from stages.training.model import prepare_model
from stages.training.sampling import KeyedSampler, generate_tokens, pick_next


def qwen2_model(hidden: int, layers: int, heads: int, kv_heads: int, inter: int, vocab: int):
    mx.random.seed(0)
    args = qwen2.ModelArgs(
        model_type="qwen2", hidden_size=hidden, num_hidden_layers=layers,
        intermediate_size=inter, num_attention_heads=heads, num_key_value_heads=kv_heads,
        rms_norm_eps=1e-6, vocab_size=vocab, tie_word_embeddings=True,
    )  # fmt: skip
    model = qwen2.Model(args)
    mx.eval(model.parameters())
    return model


def cases(only: set[str]) -> list[tuple[str, object, int, int, int, int]]:
    """(name, model, vocab, sequences, prompt tokens, new tokens)."""
    out = []
    if "quickstart" in only:
        with tempfile.TemporaryDirectory(prefix="bench-sampler-") as tmp:
            model, tokenizer, _ = prepare_model(ModelConfig(), Path(tmp) / "base")
        out.append(("quickstart", model, len(tokenizer.vocab), 256, 6, 6))
    if "qwen2_tiny" in only:
        out.append(("qwen2_tiny", qwen2_model(64, 2, 4, 2, 128, 512), 512, 16, 6, 8))
    if "qwen2_mid" in only:
        out.append(("qwen2_mid", qwen2_model(256, 4, 4, 2, 1024, 32000), 32000, 64, 32, 64))
    if "qwen2_24_layers" in only:
        # Qwen2.5-0.5B's depth (24 layers, 14 heads over 2 KV heads) at a width a CPU runs:
        # the graph the host builds per step has the 0.5B model's op count
        out.append(("qwen2_24_layers", qwen2_model(224, 24, 14, 2, 448, 4096), 4096, 32, 16, 16))
    return out


def timed_generate(model, prompts, new_tokens, compiled, lookahead, repeats, per_position=False):
    def once():
        sampler = KeyedSampler(0, 1.0)
        c, w = time.process_time(), time.perf_counter()
        generate_tokens(
            model, prompts, [], new_tokens, sampler, len(prompts), compiled, lookahead, per_position
        )
        return time.perf_counter() - w, time.process_time() - c

    once()  # warm-up (and the compiled step's trace)
    runs = [once() for _ in range(repeats)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def build_time_per_step(model, prompts, new_tokens, compiled, steps, per_position=False):
    """Median Python time to build one decode step's graph, each step evaluated untimed."""
    cache = make_prompt_cache(model)
    sampler = KeyedSampler(0, 1.0)
    token_b, _ = pick_next(model(mx.array(prompts), cache=cache)[:, -1, :], sampler)
    mx.eval(token_b)
    if compiled:
        step = static_decode.compiled_step(model, sampler)
        kv, offset = static_decode.to_static(
            cache, static_decode.capacity_for(len(prompts[0]), new_tokens + steps)
        )
        rng = sampler.state
    times = []
    for i in range(steps):
        if per_position:  # that position's step, traced before the timing starts
            step = static_decode.compiled_step(model, sampler, len(prompts[0]) + i)
            step(token_b, offset, rng, *kv)
        t = time.perf_counter()
        if compiled:
            token_b, logprob_b, offset, rng, *kv = step(token_b, offset, rng, *kv)
        else:
            token_b, logprob_b = pick_next(model(token_b[:, None], cache=cache)[:, -1, :], sampler)
        times.append(time.perf_counter() - t)
        mx.eval(token_b, logprob_b)
    return statistics.median(times[2:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default="quickstart,qwen2_tiny,qwen2_mid,qwen2_24_layers")
    parser.add_argument("--lookahead", type=int, default=1)
    args = parser.parse_args()
    result: dict[str, dict] = {}
    for name, model, vocab, n_seq, prompt_len, new_tokens in cases(set(args.only.split(","))):
        rng = np.random.default_rng(0)
        prompts = rng.integers(2, vocab, (n_seq, prompt_len)).tolist()
        figures: dict[str, dict] = {}
        modes = (("eager", False, False), ("compiled", True, False), ("per_position", True, True))
        for mode, compiled, per_position in modes:
            wall, cpu = timed_generate(
                model, prompts, new_tokens, compiled, args.lookahead, args.repeats, per_position
            )
            wall1, cpu1 = timed_generate(model, prompts, 1, compiled, 1, args.repeats)
            build = build_time_per_step(model, prompts, new_tokens, compiled, 20, per_position)
            figures[mode] = {
                "tokens_per_s": n_seq * new_tokens / wall,
                "wall_ms": 1000 * wall,
                "cpu_ms": 1000 * cpu,
                "step_wall_ms": 1000 * (wall - wall1) / (new_tokens - 1),
                "step_cpu_ms": 1000 * (cpu - cpu1) / (new_tokens - 1),
                "step_build_ms": 1000 * build,
            }
            f = figures[mode]
            print(
                f"{name:11} {mode:12} {f['tokens_per_s']:9.0f} tok/s  wall {f['wall_ms']:8.1f} ms"
                f"  cpu {f['cpu_ms']:8.1f} ms  per step: wall {f['step_wall_ms']:6.2f} ms"
                f"  cpu {f['step_cpu_ms']:6.2f} ms  python build {f['step_build_ms']:6.3f} ms",
                flush=True,
            )
        eager = figures["eager"]
        for mode in ("compiled", "per_position"):
            comp = figures[mode]
            figures[f"ratios_{mode}"] = {
                "tokens_per_s": comp["tokens_per_s"] / eager["tokens_per_s"],
                "step_build": comp["step_build_ms"] / eager["step_build_ms"],
                "step_cpu": comp["step_cpu_ms"] / max(eager["step_cpu_ms"], 1e-9),
                "cpu": comp["cpu_ms"] / eager["cpu_ms"],
            }
            ratios = json.dumps(figures[f"ratios_{mode}"])
            print(f"{name:11} ratios {mode}/eager {ratios}", flush=True)
        figures["shape"] = {
            "sequences": n_seq,
            "prompt_tokens": prompt_len,
            "new_tokens": new_tokens,
        }
        result[name] = figures
    result["lookahead"] = args.lookahead
    print(json.dumps(result))


if __name__ == "__main__":
    main()
