"""GRPO step speed on the embedded model, ours vs mlx-lm-lora's GRPO trainer, in one run.

Both start from the same SFT'd model files, the same arithmetic prompts (32 prompts x 8 samples),
temperature 1.0, no top-p/top-k, 6 new tokens, AdamW lr 1e-4, KL coefficient 0.01, full
fine-tuning. Each runs `--warmup` steps (mx.compile caches, allocator), then `--rounds` rounds of
`--steps` timed steps, the contenders alternating round by round; figures are medians of rounds. For the peer, sampling time is measured by wrapping its `generate_grpo`; its training time
is the rest of the step. Tokens: sampling counts generated tokens (EOS included), training counts
prompt + completion tokens of the sequences in the update.

    .venv/bin/python tests/benchmarks/bench_grpo.py [--steps 5] [--rounds 3] [--warmup 2] [--sft-steps 600]

Last line: one JSON object (step_s, peer_step_s, speedup, sample/train tokens per second,
sync_step_s, async_step_s, overlap = 1 - async / (sample + train), wall and CPU seconds, ...).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import stages.training  # noqa: E402, F401  (loads OpenBLAS before mlx)
from stages.rl.async_sampler import AsyncRollouts  # noqa: E402
from stages.training.blas import blas_status  # noqa: E402
from stages.training.config import GRPOConfig, ModelConfig, SamplingConfig, SFTConfig  # noqa: E402
from stages.training.grpo import new_trainer_state  # noqa: E402
from stages.training.model import (  # noqa: E402
    encode_prompt,
    load_model,
    prepare_model,
    save_model_dir,
)
from stages.training.sampling import batched  # noqa: E402
from stages.training.sft import epoch_batches, sft  # noqa: E402
from tests.benchmarks.grpo_recipe import (  # noqa: E402
    arithmetic_problems,
    exact_answer_reward,
    forgets_the_carry,
    train_grpo,
)

PROMPTS, GROUP, MAX_TOKENS, LR, KL = 32, 8, 6, 1e-4, 0.01


def build_model(directory: Path, sft_steps: int) -> Path:
    train, _ = arithmetic_problems(0)
    model, tokenizer, path = prepare_model(ModelConfig(), directory / "base")
    sft(model, tokenizer, forgets_the_carry(train, 64), SFTConfig(steps=sft_steps))
    return save_model_dir(model, path, directory / "sft")


def _cpu_s(pid: int | None = None) -> float:
    """CPU seconds (user + system) of this process, or of process `pid` (the sampler)."""
    if pid is None:
        return time.process_time()
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def make_ours(model_dir: Path, warmup: int, **overrides):
    train, _ = arithmetic_problems(0)
    model, tokenizer = load_model(model_dir)
    rollouts = None
    if overrides.get("max_staleness"):  # the product's sampler process, as a run starts it
        rollouts = AsyncRollouts(overrides["max_staleness"], model_dir, ModelConfig(), 0, batched)
    config = GRPOConfig(
        group_size=GROUP,
        groups_per_batch=PROMPTS,
        learning_rate=LR,
        kl_penalty_coef=KL,
        sampling=SamplingConfig(max_tokens=MAX_TOKENS, temperature=1.0, top_p=1.0),
        **overrides,
    )
    state = new_trainer_state(model, tokenizer, config)
    batches = epoch_batches(train, PROMPTS)
    train_grpo(state, batches, exact_answer_reward, config, warmup, rollouts=rollouts)
    sampler = rollouts.process.pid if rollouts else None

    def run(steps: int) -> dict:
        start, cpu = time.perf_counter(), _cpu_s() + (_cpu_s(sampler) if sampler else 0.0)
        history = train_grpo(state, batches, exact_answer_reward, config, steps, rollouts=rollouts)
        wall = time.perf_counter() - start
        cpu = _cpu_s() + (_cpu_s(sampler) if sampler else 0.0) - cpu
        sample_s = sum(m["sample_s"] for m in history)
        train_s = sum(m["train_s"] for m in history)
        sample_tokens = sum(m["sample_tokens_per_s"] * m["sample_s"] for m in history)
        train_tokens = sum(m["train_tokens_per_s"] * m["train_s"] for m in history)
        return {
            "step_s": wall / steps,
            "cpu_s": cpu / steps,
            "sample_s": sample_s / steps,
            "train_s": train_s / steps,
            "sample_tokens_per_s": sample_tokens / sample_s,
            "train_tokens_per_s": train_tokens / train_s,
        }

    return run


def make_peer(model_dir: Path, warmup: int, workdir: Path):
    import mlx.optimizers as optim
    from mlx_lm_lora.trainer import grpo_trainer
    from mlx_lm_lora.trainer.grpo_trainer import GRPOTrainingArgs

    train, _ = arithmetic_problems(0)
    model, tokenizer = load_model(model_dir)
    reference, _ = load_model(model_dir)
    dataset = [
        (encode_prompt(tokenizer, p.prompt), tokenizer.encode(p.answer), p.prompt, p.answer)
        for p in train
    ]

    def reward(prompts, completions, answer, types=None):
        return [float(c.strip() == a) for c, a in zip(completions, answer, strict=True)]

    timing = {"sample_s": 0.0, "sample_tokens": 0, "seqs": 0, "seq_tokens": 0}
    original = grpo_trainer.generate_grpo

    def timed_generate(*args, **kwargs):
        start = time.perf_counter()
        completions, texts, indices = original(*args, **kwargs)
        timing["sample_s"] += time.perf_counter() - start
        prompts = kwargs["prompt_tokens"]
        timing["sample_tokens"] += sum(int(c.size) for c in completions)
        timing["seq_tokens"] += sum(
            int(c.size) + len(prompts[i]) for c, i in zip(completions, indices, strict=True)
        )
        return completions, texts, indices

    optimizer = optim.AdamW(learning_rate=LR, weight_decay=0.0)

    def run(iters: int) -> float:
        args = GRPOTrainingArgs(
            batch_size=PROMPTS,
            group_size=GROUP,
            iters=iters,
            max_completion_length=MAX_TOKENS,
            beta=KL,
            epsilon=0.2,
            epsilon_high=0.28,
            temperature=1.0,
            top_p=1.0,
            top_k=0,
            min_p=0.0,
            steps_per_report=10**9,
            steps_per_eval=10**9,
            steps_per_save=10**9,
            max_seq_length=64,
            adapter_file=str(workdir / "peer_adapters.safetensors"),
        )
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            grpo_trainer.train_grpo(
                model=model,
                ref_model=reference,
                tokenizer=tokenizer,
                optimizer=optimizer,
                train_dataset=dataset,
                reward_funcs=[reward],
                args=args,
                end_answer_token="",
            )
        return time.perf_counter() - start

    def timed(steps: int) -> dict:
        for key in timing:
            timing[key] = 0
        grpo_trainer.generate_grpo = timed_generate
        try:
            wall = run(steps)
        finally:
            grpo_trainer.generate_grpo = original
        return {
            "step_s": wall / steps,
            "sample_tokens_per_s": timing["sample_tokens"] / timing["sample_s"],
            "train_tokens_per_s": timing["seq_tokens"] / (wall - timing["sample_s"]),
        }

    run(warmup)
    return timed


def median_of(rounds: list[dict]) -> dict:
    return {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5, help="timed steps per round")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (median)")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--sft-steps", type=int, default=600)
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-grpo-") as tmp:
        workdir = Path(tmp)
        model_dir = build_model(workdir, args.sft_steps)
        runners = {
            "ours": make_ours(model_dir, args.warmup),
            "ours_all": make_ours(model_dir, args.warmup, drop_zero_variance_groups=False),
            "ours_async": make_ours(model_dir, args.warmup, max_staleness=1),
        }
        peer_error = None
        try:
            runners["peer"] = make_peer(model_dir, args.warmup, workdir)
        except Exception as e:  # report why the peer could not run, keep our figures
            peer_error = f"{type(e).__name__}: {e}"
        # Alternate the contenders round by round: the cores are shared, load drifts.
        rounds: dict[str, list[dict]] = {name: [] for name in runners}
        for _ in range(args.rounds):
            for name, run in runners.items():
                rounds[name].append(run(args.steps))
        ours, ours_all = median_of(rounds["ours"]), median_of(rounds["ours_all"])
        ours_async = median_of(rounds["ours_async"])
        peer = median_of(rounds["peer"]) if "peer" in rounds else None
    print(f"{'':22}{'ours':>12}{'ours(all groups)':>18}{'mlx-lm-lora':>14}")
    for key in ("step_s", "sample_tokens_per_s", "train_tokens_per_s"):
        theirs = f"{peer[key]:14.2f}" if peer else f"{'n/a':>14}"
        print(f"{key:22}{ours[key]:12.2f}{ours_all[key]:18.2f}{theirs}")
    result = {
        "step_s": ours["step_s"],
        "peer_step_s": peer["step_s"] if peer else None,
        "speedup": peer["step_s"] / ours["step_s"] if peer else None,
        "speedup_all_groups": peer["step_s"] / ours_all["step_s"] if peer else None,
        "sample_tokens_per_s": ours["sample_tokens_per_s"],
        "train_tokens_per_s": ours["train_tokens_per_s"],
        "step_s_all_groups": ours_all["step_s"],
        # Asynchronous rollouts (grpo.max_staleness = 1): the next batch sampled by a second
        # process while this one trains. overlap: the share of sample + train time hidden.
        "sync_step_s": ours["step_s"],
        "async_step_s": ours_async["step_s"],
        "async_over_sync": ours_async["step_s"] / ours["step_s"],
        "overlap": 1 - ours_async["step_s"] / (ours["sample_s"] + ours["train_s"]),
        "sync_cpu_s": ours["cpu_s"],
        "async_cpu_s": ours_async["cpu_s"],
        "peer_sample_tokens_per_s": peer["sample_tokens_per_s"] if peer else None,
        "peer_train_tokens_per_s": peer["train_tokens_per_s"] if peer else None,
        "peer_error": peer_error,
        "prompts": PROMPTS,
        "group_size": GROUP,
        "max_tokens": MAX_TOKENS,
        "steps": args.steps,
        "rounds": args.rounds,
        "blas": blas_status()["status"],
    }
    line = json.dumps(result)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(line + "\n")
    print(line)


if __name__ == "__main__":
    main()
