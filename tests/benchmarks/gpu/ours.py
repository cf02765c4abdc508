"""Our side of the GPU benchmark: GRPO steps with stages.training on mlx (CUDA backend on the GPU).

    python -m tests.benchmarks.gpu.ours --config C --model-dir D --result R.json [--mode accum|stock]

mode "stock": `stages.training.grpo.grpo_step` exactly as the orchestrator calls it (one
forward/backward over the whole 256-sequence batch).
mode "accum": the same sampling (`sample_groups`) and the same loss (`grpo_loss`, `token_logprobs`,
`k3`, `advantages`), with the batch cut into micro-batches of `micro_batch_rows` sequences and the
gradients accumulated into ONE optimizer step (what TRL's gradient accumulation does). Its result is
`train_step`'s with `num_substeps=1` (checked by --check), but the logits of a 151936-token
vocabulary for 256 x 320 tokens (~50 GB in fp32) need not be held at once.

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
import mlx.nn as nn
import mlx.optimizers as optim
import numpy as np
from mlx.utils import tree_map

import stages.training  # noqa: F401  (BLAS setup before mlx, as the orchestrator does)
from stages.training.config import GRPOConfig, ModelConfig, SamplingConfig
from stages.training.grpo import (
    advantages,
    grpo_loss,
    grpo_step,
    k3,
    new_trainer_state,
    score_groups,
    step_seed,
    train_step,
)
from stages.training.logprobs import pad_batch, token_logprobs
from stages.training.model import load_model, make_trainable
from stages.training.sampling import sample_groups
from stages.training.schedule import derive_seed, lr_multiplier
from stages.training.types import StepMetrics, TrainerState
from tests.benchmarks.gpu import common


def train_step_accum(
    state: TrainerState,
    groups_G,
    rewards_GN,
    config: GRPOConfig,
    micro_rows: int,
    attempt: int = 0,
    sample_stats: dict | None = None,
) -> StepMetrics:
    """`stages.training.grpo.train_step` for num_substeps == 1, micro-batched (see module doc)."""
    if config.num_substeps != 1:
        raise ValueError("train_step_accum implements num_substeps == 1 only")
    start = time.perf_counter()
    rewards = np.asarray(rewards_GN, dtype=np.float64)
    mx.random.seed(derive_seed(config.seed, "train", state.step, attempt))
    adv_GN = advantages(rewards, config.scale_rewards)
    varied_G = np.ptp(rewards, axis=1) > 0
    keep_G = varied_G if config.drop_zero_variance_groups else np.ones_like(varied_G)
    rollouts = [r for g in groups_G for r in g.rollouts_N]
    prompts_B = [r.prompt_tokens for r in rollouts]
    tokens_BT, mask_BT = pad_batch(prompts_B, [r.tokens for r in rollouts])
    n_rows = tokens_BT.shape[0]

    # Metrics pass (reference + policy, no grad), micro-batched.
    ref_parts, kl_sum, ent_sum = [], mx.array(0.0), mx.array(0.0)
    for s in range(0, n_rows, micro_rows):
        tok, msk = tokens_BT[s : s + micro_rows], mask_BT[s : s + micro_rows]
        ref, _ = token_logprobs(state.reference, tok)
        logp, ent = token_logprobs(state.model, tok, with_entropy=True)
        kl_sum = kl_sum + (k3(ref, logp) * msk).sum()
        ent_sum = ent_sum + (ent * msk).sum()
        mx.eval(ref, kl_sum, ent_sum)
        ref_parts.append(ref)
    ref_BT = mx.concatenate(ref_parts, axis=0)
    n_tok = mx.maximum(mask_BT.sum(), 1.0)
    kl, entropy = kl_sum / n_tok, ent_sum / n_tok

    lr = state.learning_rate * lr_multiplier(
        state.step, config.lr_schedule, config.warmup_steps, config.total_steps, config.min_lr_ratio
    )
    state.optimizer.learning_rate = lr
    kl_coef = state.kl_coef
    kept = [int(g) for g in np.flatnonzero(keep_G)]
    n = rewards.shape[1]
    rows_all = np.array([g * n + i for g in kept for i in range(n)], dtype=int)
    mask_np = np.array(mask_BT)
    loss_and_grad = nn.value_and_grad(state.model, grpo_loss)
    grads_acc, loss_acc, clip_acc, trained_tokens = None, mx.array(0.0), mx.array(0.0), 0
    total_tok = max(float(mask_np[rows_all].sum()), 1.0) if len(rows_all) else 1.0
    for s in range(0, len(rows_all), micro_rows):
        rows = rows_all[s : s + micro_rows]
        rows_mx = mx.array(rows)
        if config.loss_agg == "token-mean":
            weight = float(mask_np[rows].sum()) / total_tok
        else:
            weight = len(rows) / len(rows_all)
        adv_B = mx.array(adv_GN.reshape(-1)[rows].astype(np.float32))
        (loss, clip_frac), grads = loss_and_grad(
            state.model,
            tokens_BT[rows_mx],
            mask_BT[rows_mx],
            adv_B,
            ref_BT[rows_mx],
            None,
            kl_coef,
            config,
        )
        grads = tree_map(lambda g, w=weight: g * w, grads)
        grads_acc = grads if grads_acc is None else tree_map(mx.add, grads_acc, grads)
        loss_acc = loss_acc + loss * weight
        clip_acc = clip_acc + clip_frac * weight
        mx.eval(grads_acc, loss_acc, clip_acc)
        trained_tokens += sum(len(prompts_B[r]) + len(rollouts[r].tokens) for r in rows)
    grad_norm = mx.array(0.0)
    if grads_acc is not None:
        if config.max_grad_norm > 0:
            grads_acc, grad_norm = optim.clip_grad_norm(grads_acc, config.max_grad_norm)
        else:
            grad_norm = optim.clip_grad_norm(grads_acc, float("inf"))[1]
        state.optimizer.update(state.model, grads_acc)
        mx.eval(state.model.parameters(), state.optimizer.state, grad_norm)

    kl_value = kl.item()
    if config.kl_controller == "adaptive":
        error = float(np.clip(kl_value / config.kl_target - 1.0, -1.0, 1.0))
        state.kl_coef = kl_coef * (1.0 + config.kl_adapt_rate * error)
    state.step += 1
    train_s = time.perf_counter() - start
    sample = sample_stats or {}
    lengths = [len(r.tokens) for r in rollouts]
    return StepMetrics(
        step=state.step - 1,
        attempt=attempt,
        reward_mean=float(rewards.mean()),
        reward_std=float(rewards.std()),
        verify_rate=float((rewards >= config.verified_threshold).mean()),
        zero_variance_frac=float(1.0 - varied_G.mean()),
        kl=kl_value,
        entropy=entropy.item(),
        clip_frac=clip_acc.item() if len(rows_all) else 0.0,
        grad_norm=grad_norm.item(),
        learning_rate=lr,
        kl_coef=kl_coef,
        loss=loss_acc.item() if len(rows_all) else 0.0,
        response_len=float(np.mean(lengths)),
        truncation_rate=float(np.mean([r.truncated for r in rollouts])),
        trained_groups=len(kept),
        sample_tokens_per_s=float(sample.get("sample_tokens_per_s", 0.0)),
        train_tokens_per_s=trained_tokens / max(train_s, 1e-9),
        sample_s=float(sample.get("sample_s", 0.0)),
        train_s=train_s,
        step_s=train_s + float(sample.get("sample_s", 0.0)),
    )


def grpo_step_accum(state, prompts_P, reward_fn, config, micro_rows):
    """`grpo_step` with `train_step_accum` in place of `train_step`."""
    t0 = time.perf_counter()
    groups, stats = sample_groups(
        state.model,
        state.tokenizer,
        prompts_P,
        config.sampling,
        config.group_size,
        step_seed(config, state.step, 0),
    )
    rewards_GN = score_groups(groups, reward_fn)
    stats = dict(stats, sample_s=time.perf_counter() - t0)
    return (
        groups,
        rewards_GN,
        train_step_accum(state, groups, rewards_GN, config, micro_rows, 0, stats),
    )


def grpo_config(g: dict) -> GRPOConfig:
    n_seq = g["groups_per_batch"] * g["group_size"]
    return GRPOConfig(
        group_size=g["group_size"],
        groups_per_batch=g["groups_per_batch"],
        learning_rate=g["learning_rate"],
        kl_penalty_coef=g["kl_penalty_coef"],
        max_grad_norm=g["max_grad_norm"],
        drop_zero_variance_groups=False,
        sampling=SamplingConfig(
            max_tokens=g["max_tokens"],
            temperature=g["temperature"],
            top_p=g["top_p"],
            use_chat_template=False,
            batch_size=n_seq,
        ),
    )


def reward_fn(records, texts):
    return [common.reward(t) for t in texts]


def setup(model_dir: Path, g: dict) -> tuple[TrainerState, GRPOConfig]:
    model, tokenizer = load_model(model_dir)
    tokenizer.eos_token_ids = []  # fixed length: nothing stops a sequence before max_tokens
    make_trainable(model, ModelConfig(model_name=str(model_dir)))
    config = grpo_config(g)
    return new_trainer_state(model, tokenizer, config), config


def check_equivalence(model_dir: Path, g: dict) -> dict:
    """train_step_accum and the proposed single-pass step vs stock train_step on the same groups
    (loss, KL, entropy, grad norm, parameters after the update), and the proposed sampler vs the
    stock one (same key: same tokens and log-probs)."""
    from mlx.utils import tree_flatten

    from tests.benchmarks.gpu import proposed

    state_a, config = setup(model_dir, g)

    def twin() -> TrainerState:
        return TrainerState(
            model=copy.deepcopy(state_a.model),
            tokenizer=state_a.tokenizer,
            reference=state_a.reference,
            optimizer=optim.AdamW(
                learning_rate=config.learning_rate, weight_decay=config.weight_decay
            ),
            learning_rate=state_a.learning_rate,
            kl_coef=state_a.kl_coef,
        )

    state_b, state_c = twin(), twin()
    prompts = common.prompts(g, g_vocab(model_dir))
    groups, stats = sample_groups(
        state_a.model, state_a.tokenizer, prompts, config.sampling, config.group_size, 123
    )
    stock_gen = stages.training.sampling.generate_tokens
    stages.training.sampling.generate_tokens = proposed.generate_tokens
    try:
        groups_p, _ = sample_groups(
            state_a.model, state_a.tokenizer, prompts, config.sampling, config.group_size, 123
        )
    finally:
        stages.training.sampling.generate_tokens = stock_gen
    flat = [r for gr in groups for r in gr.rollouts_N]
    flat_p = [r for gr in groups_p for r in gr.rollouts_N]
    sampler_same_tokens = all(a.tokens == b.tokens for a, b in zip(flat, flat_p, strict=True))
    sampler_lp_diff = max(
        abs(x - y)
        for a, b in zip(flat, flat_p, strict=True)
        for x, y in zip(a.logprobs, b.logprobs, strict=True)
    )
    rewards = score_groups(groups, reward_fn)
    half = max(1, g["micro_batch_rows"] // 2)
    ma = train_step(state_a, groups, rewards, config, 0, stats)
    mb = train_step_accum(state_b, groups, rewards, config, half, 0, stats)
    mc = proposed.train_step(state_c, groups, rewards, config, half, 0, stats)

    def pdiff(x: TrainerState, y) -> float:
        px = dict(tree_flatten(x.model.parameters()))
        return max(
            float(mx.abs(px[k].astype(mx.float32) - v.astype(mx.float32)).max())
            for k, v in tree_flatten(y.parameters())
        )

    return {
        "sampler_same_tokens": sampler_same_tokens,
        "sampler_max_logprob_diff": sampler_lp_diff,
        "max_param_update": pdiff(state_a, state_a.reference),
        "max_param_diff_accum": pdiff(state_b, state_a.model),
        "max_param_diff_proposed": pdiff(state_c, state_a.model),
        "loss": [ma.loss, mb.loss, mc.loss],
        "kl": [ma.kl, mb.kl, mc.kl],
        "grad_norm": [ma.grad_norm, mb.grad_norm, mc.grad_norm],
        "entropy": [ma.entropy, mb.entropy, mc.entropy],
    }


def g_vocab(model_dir: Path) -> int:
    return json.loads((model_dir / "config.json").read_text())["vocab_size"]


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
    ap.add_argument("--mode", choices=["accum", "stock", "proposed"], default="accum")
    ap.add_argument("--check", action="store_true", help="only the accum == stock check")
    args = ap.parse_args()
    cfg = common.load_config(args.config, args.profile)
    m, g, bench = cfg["model"], cfg["grpo"], cfg["bench"]
    out: dict = {"side": "ours", "mode": args.mode, **device_info()}
    print(f"[ours] {json.dumps(out)}", flush=True)
    if args.check:
        out["check"] = check_equivalence(args.model_dir, g)
        print(f"[ours] check {json.dumps(out['check'])}", flush=True)
        args.result.write_text(json.dumps(out, indent=2))
        return
    t0 = time.perf_counter()
    state, config = setup(args.model_dir, g)
    mx.eval(state.model.parameters(), state.reference.parameters())
    out["load_s"] = time.perf_counter() - t0
    out["param_dtype"] = str(state.model.model.embed_tokens.weight.dtype)
    prompts = common.prompts(g, m["vocab_size"])
    steps = []
    for i in range(bench["warmup_steps"] + bench["steps"]):
        mx.synchronize()
        t = time.perf_counter()
        if args.mode == "stock":
            _, _, met = grpo_step(state, prompts, reward_fn, config)
        elif args.mode == "proposed":
            from tests.benchmarks.gpu import proposed

            _, _, met = proposed.grpo_step(state, prompts, reward_fn, config, g["micro_batch_rows"])
        else:
            _, _, met = grpo_step_accum(state, prompts, reward_fn, config, g["micro_batch_rows"])
        mx.synchronize()
        wall = time.perf_counter() - t
        n_seq = g["groups_per_batch"] * g["group_size"]
        row = {
            "step": i,
            "warmup": i < bench["warmup_steps"],
            "wall_s": wall,
            "sample_s": met.sample_s,
            "train_s": met.train_s,
            "step_s": met.step_s,
            "sample_tokens": met.response_len * n_seq,
            "train_tokens": met.train_tokens_per_s * met.train_s,
            "response_len": met.response_len,
            "truncation_rate": met.truncation_rate,
            "loss": met.loss,
            "kl": met.kl,
            "entropy": met.entropy,
            "grad_norm": met.grad_norm,
            "peak_mem_gb": mx.get_peak_memory() / 1e9,
        }
        steps.append(row)
        print(f"[ours] step {json.dumps(row)}", flush=True)
    out["steps"] = steps
    args.result.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    sys.exit(main())
