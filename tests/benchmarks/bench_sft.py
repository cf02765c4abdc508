"""SFT steps per second on the embedded model: the compiled step against the eager one, in one run.

Three loops train copies of the same freshly built model on the same batches (the quickstart's,
from configs/quickstart.toml: 48 noisy-teacher arithmetic rows and 16 reversal rows, AdamW with
weight decay, cosine schedule):

- `compiled`: `stages.training.sft.sft` as the quickstart runs it (rows grouped by length, the
  groups' rows through each projection as one matmul, logits only at completion positions,
  SwiGLU with a fusable exp, compiled step, `mx.async_eval`, losses read back once per report);
- `eager_async`: the same loop with the step uncompiled (`sft(..., compiled=False)`);
- `eager_sync`: the loop before issue 21: one padded width, the full forward, the eager step,
  `mx.eval` and a `.item()` each step.

Rounds alternate between the loops (the cores are shared, load drifts); figures are medians of
rounds. Wall steps/s is the headline; steps per CPU-second (the process's CPU time, all threads) is
printed too: it moves less when other processes take the cores. Each round starts from the same
weights, so final weights are compared too: the compiled step must not change them
(`same_final_weights`: compiled vs eager_async); the old loop's differ in rounding only (its
loss sums the same terms in another order), and its final loss is printed beside the others.

    .venv/bin/python tests/benchmarks/bench_sft.py [--steps 200] [--rounds 3] [--warmup 20]

Last line: one JSON object (steps_per_s, eager_steps_per_s, speedup = compiled / eager_sync, ...).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import stages.training  # noqa: F401  (loads OpenBLAS before mlx)
from stages.training.blas import blas_status
from stages.training.config import ModelConfig, SFTConfig
from stages.training.model import load_model, prepare_model

QUICKSTART = Path(__file__).resolve().parents[2] / "configs" / "quickstart.toml"


def weights_digest(model) -> str:
    import numpy as np
    from mlx.utils import tree_flatten

    h = hashlib.sha256()
    for name, value in sorted(tree_flatten(model.parameters())):
        h.update(name.encode())
        h.update(np.array(value).tobytes())
    return h.hexdigest()[:16]


def eager_sync_sft(model, tokenizer, batch_fn, config: SFTConfig) -> list[float]:
    """The SFT loop as it was before issue 21: every row padded to the batch's longest, the full
    forward (logits at every position), the eager step, a host sync and `.item()` every step."""
    import mlx.core as mx
    import mlx.nn as nn
    import mlx.optimizers as optim

    from stages.training.logprobs import pad_batch, token_logprobs
    from stages.training.model import encode_completion, encode_prompt
    from stages.training.schedule import derive_seed, lr_multiplier

    def masked_ce(model, tokens_BT, mask_BT):
        logp_BT, _ = token_logprobs(model, tokens_BT)
        return -(logp_BT * mask_BT).sum() / mx.maximum(mask_BT.sum(), 1.0)

    optimizer = optim.AdamW(learning_rate=config.learning_rate, weight_decay=config.weight_decay)
    encode_p = lru_cache(maxsize=None)(lambda text: tuple(encode_prompt(tokenizer, text)))
    encode_c = lru_cache(maxsize=None)(lambda text: tuple(encode_completion(tokenizer, text)))
    model.train()
    optimizer.init(model.trainable_parameters())
    loss_and_grad = nn.value_and_grad(model, masked_ce)
    losses = []
    for step in range(config.steps):
        mx.random.seed(derive_seed(config.seed, "sft", step))
        pairs = batch_fn(step)
        tokens_BT, mask_BT = pad_batch(
            [encode_p(p) for p, _ in pairs], [encode_c(c) for _, c in pairs]
        )
        optimizer.learning_rate = config.learning_rate * lr_multiplier(
            step, config.lr_schedule, config.warmup_steps, config.steps, config.min_lr_ratio
        )
        loss, grads = loss_and_grad(model, tokens_BT, mask_BT)
        grads, _ = optim.clip_grad_norm(grads, config.max_grad_norm)
        optimizer.update(model, grads)
        mx.eval(loss, model.state, optimizer.state)
        losses.append(loss.item())
    model.eval()
    return losses


def make_loop(name: str, model_dir: Path, steps: int, warmup: int) -> Callable[[], dict]:
    from orchestrator.config import load_config
    from stages.services import task_suite
    from stages.sft_preparation import teacher_batches
    from stages.training.sft import sft

    quickstart = load_config(QUICKSTART)
    suite = task_suite(quickstart)
    config = quickstart.sft.model_copy(update={"warmup_steps": warmup})

    def train_once(n_steps: int) -> tuple[object, list[float]]:
        model, tokenizer = load_model(model_dir)
        batches = teacher_batches(suite, quickstart.teacher, config.batch_size, config.seed)
        run_config = config.model_copy(update={"steps": n_steps})
        if name == "eager_sync":
            return model, eager_sync_sft(model, tokenizer, batches, run_config)
        return model, sft(model, tokenizer, batches, run_config, compiled=name == "compiled")

    train_once(warmup)  # first-call costs (compiled kernels, allocator) stay out of the rounds

    def run() -> dict:
        cpu, wall = time.process_time(), time.perf_counter()
        model, losses = train_once(steps)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        return {
            "steps_per_s": steps / wall,
            "steps_per_cpu_s": steps / cpu,
            "final_loss": losses[-1],
            "digest": weights_digest(model),
        }

    return run


def main() -> None:
    from orchestrator.config import load_config

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="timed steps per round")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (median)")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args()
    names = ("compiled", "eager_async", "eager_sync")
    with tempfile.TemporaryDirectory(prefix="bench-sft-") as tmp:
        _, _, model_dir = prepare_model(ModelConfig(), Path(tmp) / "base")
        loops = {name: make_loop(name, model_dir, args.steps, args.warmup) for name in names}
        rounds: dict[str, list[dict]] = {name: [] for name in names}
        for _ in range(args.rounds):
            for name, run in loops.items():
                rounds[name].append(run())
    median = {
        name: {k: statistics.median(r[k] for r in rs) for k in ("steps_per_s", "steps_per_cpu_s")}
        for name, rs in rounds.items()
    }
    digests = {name: {r["digest"] for r in rs} for name, rs in rounds.items()}
    print(f"{'':18}{'compiled':>12}{'eager_async':>14}{'eager_sync':>13}")
    for key in ("steps_per_s", "steps_per_cpu_s"):
        print(
            f"{key:18}"
            + "".join(f"{median[n][key]:{w}.2f}" for n, w in zip(names, (12, 14, 13), strict=True))
        )
    print("final weights:", {name: sorted(d) for name, d in digests.items()})
    print(
        "final loss:", {name: sorted({r["final_loss"] for r in rs}) for name, rs in rounds.items()}
    )
    compiled, eager = median["compiled"], median["eager_sync"]
    result = {
        "steps_per_s": compiled["steps_per_s"],
        "eager_steps_per_s": eager["steps_per_s"],
        "speedup": compiled["steps_per_s"] / eager["steps_per_s"],
        "eager_async_steps_per_s": median["eager_async"]["steps_per_s"],
        "steps_per_cpu_s": compiled["steps_per_cpu_s"],
        "eager_steps_per_cpu_s": eager["steps_per_cpu_s"],
        "cpu_speedup": compiled["steps_per_cpu_s"] / eager["steps_per_cpu_s"],
        "same_final_weights": len(digests["compiled"] | digests["eager_async"]) == 1,
        "steps": args.steps,
        "rounds": args.rounds,
        "batch_size": load_config(QUICKSTART).sft.batch_size,
        "blas": blas_status()["status"],
    }
    if args.out:
        args.out.write_text(json.dumps(result) + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
