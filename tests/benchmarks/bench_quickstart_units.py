"""One of each of the quickstart's units of work on the embedded model, wall and CPU time.

After `--sft-steps` SFT steps (the quickstart's teacher and batch): one compiled and one eager SFT
step, one pass-rate batch (64 tasks x 16 samples, 6 new tokens, temperature 1), the same in one
256-task call, one greedy eval of the 400 held-out problems, one GRPO step (32 prompts x 8). Each
is called once to warm up, then `--repeats` times; figures are medians. CPU time is the process's
(`time.process_time()`, all threads): on a shared machine it moves less than wall time. See
tests/benchmarks/results/quickstart_profile.md for what the figures mean.

    .venv/bin/python tests/benchmarks/bench_quickstart_units.py [--repeats 3] [--sft-steps 300]

Last line: one JSON object, {unit: {"wall_ms", "cpu_ms"}} plus "blas".
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import stages.training  # noqa: E402, F401  (loads OpenBLAS before mlx)
from stages.training.blas import blas_status  # noqa: E402
from stages.training.config import GRPOConfig, ModelConfig, SamplingConfig, SFTConfig  # noqa: E402
from stages.training.grpo import new_trainer_state  # noqa: E402
from stages.training.model import prepare_model  # noqa: E402
from stages.training.sampling import batched, generate_greedy, sample_groups  # noqa: E402
from stages.training.sft import epoch_batches, sft  # noqa: E402
from tests.benchmarks.grpo_recipe import (  # noqa: E402
    arithmetic_problems,
    exact_answer_reward,
    forgets_the_carry,
    train_grpo,
)

SAMPLING = SamplingConfig(max_tokens=6, temperature=1.0)  # configs/quickstart.toml's
PASS_RATE_SAMPLES, GROUP, PROMPTS = 16, 8, 32


def timed(fn: Callable[[], object], repeats: int) -> dict[str, float]:
    fn()
    wall, cpu = [], []
    for _ in range(repeats):
        c, w = time.process_time(), time.perf_counter()
        fn()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return {"wall_ms": 1000 * statistics.median(wall), "cpu_ms": 1000 * statistics.median(cpu)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sft-steps", type=int, default=300)
    args = parser.parse_args()
    train, held_out = arithmetic_problems(0)
    with tempfile.TemporaryDirectory(prefix="bench-units-") as tmp:
        model, tokenizer, _ = prepare_model(ModelConfig(), Path(tmp) / "base")
    sft_config = SFTConfig(steps=args.sft_steps, weight_decay=0.1)
    sft(model, tokenizer, forgets_the_carry(train, 64), sft_config)
    one_step = sft_config.model_copy(update={"steps": 10, "warmup_steps": 0})
    prompts = [p.prompt for p in train]
    grpo_config = GRPOConfig(
        group_size=GROUP, groups_per_batch=PROMPTS, learning_rate=2.5e-5, kl_penalty_coef=0.05,
        sampling=SAMPLING,
    )  # fmt: skip
    grpo_state = new_trainer_state(model, tokenizer, grpo_config)
    grpo_batches = epoch_batches(train, PROMPTS)
    units = {
        # 10 steps per call (a step is too short to time alone); reported per step below
        "sft_step_compiled": lambda: sft(model, tokenizer, forgets_the_carry(train, 64), one_step),
        "sft_step_eager": lambda: sft(
            model, tokenizer, forgets_the_carry(train, 64), one_step, compiled=False
        ),
        "pass_rate_batch_64x16": lambda: sample_groups(
            model, tokenizer, prompts[:64], SAMPLING, PASS_RATE_SAMPLES, batched(0, SAMPLING)
        ),
        "pass_rate_256x16_one_call": lambda: sample_groups(
            model, tokenizer, prompts[:256], SAMPLING, PASS_RATE_SAMPLES, batched(0, SAMPLING)
        ),
        "eval_greedy_400": lambda: generate_greedy(
            model, tokenizer, [p.prompt for p in held_out], max_tokens=SAMPLING.max_tokens
        ),
        "grpo_step_32x8": lambda: train_grpo(
            grpo_state, grpo_batches, exact_answer_reward, grpo_config, 1
        ),
    }
    result: dict[str, object] = {}
    for name, fn in units.items():
        figures = timed(fn, args.repeats)
        if name.startswith("sft_step"):
            figures = {k: v / one_step.steps for k, v in figures.items()}
        result[name] = figures
        print(f"{name:28}wall {figures['wall_ms']:9.1f} ms   cpu {figures['cpu_ms']:9.1f} ms")
    result["blas"] = blas_status()["status"]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
