"""Our side of the GPU benchmark: GRPO steps with stages.training on mlx (CUDA backend on the GPU).

    python -m tests.benchmarks.gpu.ours --config C --model-dir D --result R.json
        [--micro-batches N] [--legacy-logits] [--compile-loss] [--sync-sampler] [--check]

Each step is `stages.rl.step.rl_step`, the step the orchestrator runs, with
`GRPOConfig.micro_batches` = sequences per step / `micro_batch_rows` of the config (the product's
gradient accumulation: ONE optimizer update per step, as TRL's gradient_accumulation_steps), or
`--micro-batches`. `--legacy-logits` swaps in the previous log-prob path (autograd through an
fp32 log-softmax over the whole vocabulary) to measure what the fused path saves, same call.
`--compile-loss` / `--eager-loss` set `GRPOConfig.compile_loss` on / off; `--sync-sampler` swaps in the decode loop that
evaluates each step before building the next (the sampler before the pipelined one);
`--eager-decode` turns `SamplingConfig.compiled_decode` off (the decode loop that builds each
token step's ops in Python); `--full-head` turns off the chunked LM head (stages/training/logprobs.py: `head_logprobs`), so
the logits of a whole micro-batch are built at once, as before it.

Fixed length: the tokenizer's EOS set is emptied, so every completion is exactly `max_tokens`.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import sys
import time
from pathlib import Path

import mlx.core as mx
import mlx.optimizers as optim
import numpy as np

import stages.training  # noqa: F401  (BLAS setup before mlx, as the orchestrator does)
import stages.training.logprobs as logprobs
import stages.training.sampling as sampling
from stages.rl.async_sampler import AsyncRollouts, stale_draw
from stages.rl.step import Rank, rl_step
from stages.training.config import GRPOConfig, ModelConfig, SamplingConfig
from stages.training.grpo import new_trainer_state, train_step
from stages.training.model import load_model, make_trainable
from stages.training.sampling import batched, sample_groups
from stages.training.types import TrainerState
from tests.benchmarks.gpu import common
from tests.benchmarks.grpo_recipe import rewards_as_verdicts, score_groups


def legacy_logits_logprobs(logits_BTV, targets_BT, with_entropy=False, entropy_grad=True):
    """The log-prob path before the fused one: autograd through fp32 log-softmax and exp."""
    x_BTV = logits_BTV.astype(mx.float32)
    logz_BT = mx.logsumexp(x_BTV, axis=-1)
    logp_BT = mx.take_along_axis(x_BTV, targets_BT[..., None], axis=-1)[..., 0] - logz_BT
    if not with_entropy:
        return logp_BT, None
    logprobs_BTV = x_BTV - logz_BT[..., None]
    return logp_BT, -(mx.exp(logprobs_BTV) * logprobs_BTV).sum(axis=-1)


def sync_decode_bucket(model, prompts_b, eos, max_tokens, sampler):
    """The decode loop before the pipelined one: each step evaluated before the next is built."""
    from mlx_lm.models.cache import make_prompt_cache

    cache = make_prompt_cache(model)
    logits_bV = model(mx.array(prompts_b), cache=cache)[:, -1, :]
    steps_tokens, steps_logprobs, done_b = [], [], np.zeros(len(prompts_b), dtype=bool)
    for _ in range(max_tokens):
        token_b, logprob_b = sampling.pick_next(logits_bV, sampler)
        mx.eval(token_b, logprob_b)
        steps_tokens.append(np.array(token_b))
        steps_logprobs.append(np.array(logprob_b))
        done_b |= np.isin(steps_tokens[-1], eos)
        if done_b.all():
            break
        logits_bV = model(token_b[:, None], cache=cache)[:, -1, :]
    return sampling.cut_at_eos(np.stack(steps_tokens), np.stack(steps_logprobs), eos)


def grpo_config(g: dict, micro_batches: int | None = None) -> GRPOConfig:
    n_seq = g["groups_per_batch"] * g["group_size"]
    return GRPOConfig(
        group_size=g["group_size"],
        groups_per_batch=g["groups_per_batch"],
        learning_rate=g["learning_rate"],
        kl_penalty_coef=g["kl_penalty_coef"],
        max_grad_norm=g["max_grad_norm"],
        drop_zero_variance_groups=False,
        micro_batches=micro_batches or max(1, n_seq // g["micro_batch_rows"]),
        compile_loss=g.get("compile_loss", False),
        max_staleness=g.get("max_staleness", 0),
        sampling=SamplingConfig(
            max_tokens=g["max_tokens"],
            temperature=g["temperature"],
            top_p=g["top_p"],
            use_chat_template=False,
            batch_size=n_seq,
            compiled_decode=g.get("compiled_decode", False),
            decode_lookahead=g.get("decode_lookahead", 1),
        ),
    )


def reward_fn(records, texts):
    return [common.reward(t) for t in texts]


def setup(model_dir: Path, g: dict, micro_batches: int | None = None):
    model, tokenizer = load_model(model_dir)
    tokenizer.eos_token_ids = []  # fixed length: nothing stops a sequence before max_tokens
    make_trainable(model, ModelConfig(model_name=str(model_dir)))
    config = grpo_config(g, micro_batches)
    return new_trainer_state(model, tokenizer, config), config


def check_equivalence(model_dir: Path, g: dict) -> dict:
    """On this device: `train_step` with micro-batches, compiled or not, == without (loss, KL,
    entropy, grad norm, weights after two SGD updates), and the fused log-prob gradient ==
    autograd's."""
    from mlx.utils import tree_flatten

    state, config = setup(model_dir, g, 1)
    prompts = common.prompts(g, json.loads((model_dir / "config.json").read_text())["vocab_size"])
    groups, _ = sample_groups(
        state.model, state.tokenizer, prompts, config.sampling, config.group_size,
        batched(123, config.sampling),
    )  # fmt: skip
    rewards = score_groups(groups, reward_fn)
    out: dict = {}
    params = {}
    for k, compiled in ((1, False), (4, False), (4, True)):
        twin = TrainerState(
            model=copy.deepcopy(state.model),
            tokenizer=state.tokenizer,
            reference=state.reference,
            optimizer=optim.SGD(learning_rate=1e-2),
        )
        cfg = config.model_copy(
            update={"micro_batches": k, "compile_loss": compiled, "learning_rate": 1e-2}
        )
        alone = Rank.alone().world.sum_tree
        metrics = [train_step(twin, groups, rewards, cfg, alone) for _ in range(2)]
        k = f"{k}_compiled" if compiled else k
        out[f"micro_batches_{k}"] = [
            {key: getattr(m, key) for key in ("loss", "kl", "entropy", "grad_norm")}
            for m in metrics
        ]
        params[k] = dict(tree_flatten(twin.model.parameters()))
    for k in (4, "4_compiled"):
        out[f"max_param_diff_1_vs_{k}"] = max(
            float(mx.abs(params[1][n].astype(mx.float32) - v.astype(mx.float32)).max())
            for n, v in params[k].items()
        )
    mx.random.seed(0)
    logits = (3 * mx.random.normal((4, 16, 4096))).astype(mx.bfloat16)
    targets = mx.random.randint(0, 4096, (4, 16)).astype(mx.int32)
    w = mx.random.normal((4, 16))

    def objective(fn):
        return lambda x: sum((w * t).sum() for t in fn(x, targets, True))

    fused = mx.grad(objective(logprobs.logits_logprobs))(logits).astype(mx.float32)
    legacy = mx.grad(objective(legacy_logits_logprobs))(logits).astype(mx.float32)
    out["fused_vs_autograd_max_grad_diff_bf16"] = float(mx.abs(fused - legacy).max())
    return out


def device_info() -> dict:
    info = {"mlx": mx.__version__, "default_device": str(mx.default_device())}
    try:
        import importlib.metadata as md

        info["mlx_lm"] = md.version("mlx-lm")
        for dist in ("mlx-cuda-13", "mlx-cuda-12", "mlx-cpu"):
            with contextlib.suppress(md.PackageNotFoundError):
                info[dist] = md.version(dist)
    except Exception:  # metadata is informative only
        pass
    with contextlib.suppress(Exception):
        info["device_info"] = {k: str(v) for k, v in mx.device_info().items()}
    return info


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--profile", default=None)
    ap.add_argument("--model-dir", required=True, type=Path)
    ap.add_argument("--result", required=True, type=Path)
    ap.add_argument("--micro-batches", type=int, default=None)
    ap.add_argument("--legacy-logits", action="store_true")
    ap.add_argument("--compile-loss", action="store_true")
    ap.add_argument("--eager-loss", action="store_true", help="compile_loss off")
    ap.add_argument("--sync-sampler", action="store_true")
    ap.add_argument("--full-head", action="store_true", help="no chunked LM head")
    ap.add_argument("--eager-decode", action="store_true", help="compiled_decode off")
    ap.add_argument("--check", action="store_true", help="only the equivalence checks")
    ap.add_argument(
        "--max-staleness",
        type=int,
        default=None,
        help="asynchronous rollouts (GRPOConfig.max_staleness; default: the config's)",
    )
    args = ap.parse_args()
    cfg = common.load_config(args.config, args.profile)
    m, g, bench = cfg["model"], cfg["grpo"], cfg["bench"]
    if args.legacy_logits:
        logprobs.logits_logprobs = legacy_logits_logprobs
    if args.sync_sampler:
        sampling._decode_bucket = sync_decode_bucket
    if args.full_head:
        logprobs.split_head = lambda model: None
    if args.compile_loss or args.eager_loss:
        g["compile_loss"] = args.compile_loss
    if args.eager_decode:
        g["compiled_decode"] = False
    if args.max_staleness is not None:
        g["max_staleness"] = args.max_staleness
    out: dict = {
        "side": "ours",
        "legacy_logits": args.legacy_logits,
        "sync_sampler": args.sync_sampler,
        "compile_loss": g.get("compile_loss", False),
        "full_head": args.full_head,
        "compiled_decode": g.get("compiled_decode", False),
        **device_info(),
    }
    print(f"[ours] {json.dumps(out)}", flush=True)
    if args.check:
        out["check"] = check_equivalence(args.model_dir, g)
        print(f"[ours] check {json.dumps(out['check'])}", flush=True)
        args.result.write_text(json.dumps(out, indent=2))
        return
    t0 = time.perf_counter()
    state, config = setup(args.model_dir, g, args.micro_batches)
    mx.eval(state.model.parameters(), state.reference.parameters())
    out["load_s"] = time.perf_counter() - t0
    out["micro_batches"] = config.micro_batches
    # the sampler and loss settings, as `rlvr run` logs them in its RunStarted config
    out["grpo_config"] = config.model_dump(mode="json")
    print(f"[ours] grpo config {json.dumps(out['grpo_config'])}", flush=True)
    out["param_dtype"] = str(state.model.model.embed_tokens.weight.dtype)
    print(f"[ours] micro_batches={config.micro_batches} dtype={out['param_dtype']}", flush=True)
    prompts = common.prompts(g, m["vocab_size"])
    steps = []
    score = rewards_as_verdicts(reward_fn, config.verified_threshold)
    settings, rank = config.start_settings(), Rank.alone()
    n_seq = g["groups_per_batch"] * g["group_size"]
    out["max_staleness"] = config.max_staleness
    rollouts = None
    if config.max_staleness:  # the product's sampler process, the same fixed-length tokenizer
        rollouts = AsyncRollouts(
            config.max_staleness, args.model_dir, ModelConfig(model_name=str(args.model_dir)), 0,
            batched, eos_token_ids=[],
        )  # fmt: skip
    for i in range(bench["warmup_steps"] + bench["steps"]):
        mx.synchronize()
        t = time.perf_counter()
        draw = None
        if rollouts is not None:
            draw, _ = stale_draw(rollouts, state, config, lambda s: prompts)
        met = rl_step(state, prompts, config, settings, score, rank, draw=draw).metrics
        mx.synchronize()
        row = {
            "step": i,
            "warmup": i < bench["warmup_steps"],
            "wall_s": time.perf_counter() - t,
            "sample_s": met["sample_s"],
            "train_s": met["train_s"],
            "step_s": met["step_s"],
            "sample_tokens": met["response_len"] * n_seq,
            "train_tokens": met["train_tokens_per_s"] * met["train_s"],
            "response_len": met["response_len"],
            "truncation_rate": met["truncation_rate"],
            "loss": met["loss"],
            "kl": met["kl"],
            "entropy": met["entropy"],
            "grad_norm": met["grad_norm"],
            "peak_mem_gb": mx.get_peak_memory() / 1e9,
        }
        steps.append(row)
        print(f"[ours] step {json.dumps(row)}", flush=True)
    out["steps"] = steps
    args.result.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    sys.exit(main())
