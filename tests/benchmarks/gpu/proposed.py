"""Two changes proposed for stages/training, measured here before anyone edits that package.

1. Sampling (`stages/training/sampling.py: generate_tokens`): read the sampled tokens' log-probs
   with ONE gather per decoding step instead of `r.logprobs[r.token].item()` per sequence (256
   tiny GPU evaluations and host syncs per step at 256 sequences).
2. Training (`stages/training/grpo.py: train_step`): no separate no-grad policy forward for the
   KL / entropy metrics; they come out of the forward that the gradient needs (the parameters
   have not moved yet, so the values are the same), and the batch is micro-batched with one
   optimizer step (as tests/benchmarks/gpu/ours.py's train_step_accum).

Same math as the stock path; only where and how often things are evaluated differs.
"""

from __future__ import annotations

import time

import mlx.core as mx
import mlx.nn as nn
import mlx.optimizers as optim
import numpy as np
from mlx.utils import tree_map
from mlx_lm.generate import BatchGenerator

import stages.training.sampling as sampling
from stages.training.config import GRPOConfig
from stages.training.grpo import advantages, k3, score_groups, step_seed
from stages.training.logprobs import pad_batch, token_logprobs
from stages.training.schedule import derive_seed, lr_multiplier
from stages.training.types import StepMetrics, TrainerState


def generate_tokens(model, prompts_B, eos_ids, max_tokens, sampler, batch_size=512):
    """`stages.training.sampling.generate_tokens` with one log-prob gather per decoding step."""
    if max_tokens <= 0:
        raise ValueError(f"max_tokens must be positive, got {max_tokens}")
    if any(len(p) == 0 for p in prompts_B):
        raise ValueError("every prompt needs at least one token; got an empty prompt")
    width = max(1, min(batch_size, len(prompts_B)))
    gen = BatchGenerator(
        model,
        max_tokens=max_tokens,
        stop_tokens=[[t] for t in eos_ids],
        sampler=sampler,
        completion_batch_size=width,
        prefill_batch_size=width,
    )
    uids = gen.insert([list(p) for p in prompts_B], [max_tokens] * len(prompts_B))
    tokens = {u: [] for u in uids}
    logprobs = {u: [] for u in uids}
    truncated = dict.fromkeys(uids, False)
    generated = 0
    try:
        while responses := gen.next_generated():
            ids = [r.token for r in responses]
            rows = mx.stack([r.logprobs for r in responses])
            picked = mx.take_along_axis(rows, mx.array(ids)[:, None], axis=-1)[:, 0].tolist()
            for r, lp in zip(responses, picked, strict=True):
                tokens[r.uid].append(r.token)
                logprobs[r.uid].append(lp)
                generated += 1
                if r.finish_reason == "length":
                    truncated[r.uid] = True
    finally:
        gen.close()
    return (
        [tokens[u] for u in uids],
        [logprobs[u] for u in uids],
        [truncated[u] for u in uids],
        generated,
    )


def _loss_with_metrics(model, tokens_BT, mask_BT, adv_B, ref_BT, kl_coef, config: GRPOConfig):
    """grpo_loss (num_substeps == 1: ratio 1, old = stop_gradient(logp)) plus the KL and entropy
    sums over the mask as auxiliary outputs."""
    logp_BT, entropy_BT = token_logprobs(model, tokens_BT, with_entropy=True)
    old_BT = mx.stop_gradient(logp_BT)
    ratio_BT = mx.exp(logp_BT - old_BT)
    unclipped_BT = ratio_BT * adv_B[:, None]
    clipped_BT = (
        mx.clip(ratio_BT, 1.0 - config.clip_eps_low, 1.0 + config.clip_eps_high) * adv_B[:, None]
    )
    per_token_BT = -mx.minimum(unclipped_BT, clipped_BT)
    kl_BT = k3(ref_BT, logp_BT)
    if kl_coef > 0:
        per_token_BT = per_token_BT + kl_coef * kl_BT
    if config.entropy_coef > 0:
        per_token_BT = per_token_BT - config.entropy_coef * entropy_BT
    if config.loss_agg == "token-mean":
        loss = (per_token_BT * mask_BT).sum() / mx.maximum(mask_BT.sum(), 1.0)
    else:
        per_seq = (per_token_BT * mask_BT).sum(axis=1) / mx.maximum(mask_BT.sum(axis=1), 1.0)
        loss = per_seq.mean()
    clip_frac = ((clipped_BT < unclipped_BT) * mask_BT).sum() / mx.maximum(mask_BT.sum(), 1.0)
    kl_sum = mx.stop_gradient((kl_BT * mask_BT).sum())
    ent_sum = mx.stop_gradient((entropy_BT * mask_BT).sum())
    return loss, clip_frac, kl_sum, ent_sum


def train_step(
    state: TrainerState,
    groups_G,
    rewards_GN,
    config: GRPOConfig,
    micro_rows: int,
    attempt: int = 0,
    sample_stats: dict | None = None,
) -> StepMetrics:
    """One optimizer step; metrics from the gradient pass (all groups kept: the benchmark sets
    drop_zero_variance_groups=False, which this sketch requires)."""
    if config.num_substeps != 1 or config.drop_zero_variance_groups:
        raise ValueError("sketch: num_substeps == 1 and drop_zero_variance_groups=False only")
    start = time.perf_counter()
    rewards = np.asarray(rewards_GN, dtype=np.float64)
    mx.random.seed(derive_seed(config.seed, "train", state.step, attempt))
    adv_flat = advantages(rewards, config.scale_rewards).reshape(-1).astype(np.float32)
    varied_G = np.ptp(rewards, axis=1) > 0
    rollouts = [r for g in groups_G for r in g.rollouts_N]
    prompts_B = [r.prompt_tokens for r in rollouts]
    tokens_BT, mask_BT = pad_batch(prompts_B, [r.tokens for r in rollouts])
    mask_np = np.array(mask_BT)
    total_tok = max(float(mask_np.sum()), 1.0)
    lr = state.learning_rate * lr_multiplier(
        state.step, config.lr_schedule, config.warmup_steps, config.total_steps, config.min_lr_ratio
    )
    state.optimizer.learning_rate = lr
    kl_coef = state.kl_coef
    loss_and_grad = nn.value_and_grad(state.model, _loss_with_metrics)
    grads_acc = None
    loss_acc, clip_acc, kl_sum, ent_sum = (mx.array(0.0) for _ in range(4))
    n_rows = tokens_BT.shape[0]
    for s in range(0, n_rows, micro_rows):
        tok, msk = tokens_BT[s : s + micro_rows], mask_BT[s : s + micro_rows]
        rows = slice(s, s + micro_rows)
        if config.loss_agg == "token-mean":
            weight = float(mask_np[rows].sum()) / total_tok
        else:
            weight = tok.shape[0] / n_rows
        ref, _ = token_logprobs(state.reference, tok)
        ref = mx.stop_gradient(ref)
        (loss, clip, kls, ents), grads = loss_and_grad(
            state.model, tok, msk, mx.array(adv_flat[rows]), ref, kl_coef, config
        )
        grads = tree_map(lambda g, w=weight: g * w, grads)
        grads_acc = grads if grads_acc is None else tree_map(mx.add, grads_acc, grads)
        loss_acc, clip_acc = loss_acc + loss * weight, clip_acc + clip * weight
        kl_sum, ent_sum = kl_sum + kls, ent_sum + ents
        mx.eval(grads_acc, loss_acc, clip_acc, kl_sum, ent_sum)
    # The micro-batches' freed buffers sit in mlx's cache; without this the optimizer update's
    # CUDA graph failed to instantiate (out of memory) on an 80 GB H100.
    mx.clear_cache()
    if config.max_grad_norm > 0:
        grads_acc, grad_norm = optim.clip_grad_norm(grads_acc, config.max_grad_norm)
    else:
        grad_norm = optim.clip_grad_norm(grads_acc, float("inf"))[1]
    state.optimizer.update(state.model, grads_acc)
    mx.eval(state.model.parameters(), state.optimizer.state, grad_norm)
    kl_value = (kl_sum / total_tok).item()
    if config.kl_controller == "adaptive":
        error = float(np.clip(kl_value / config.kl_target - 1.0, -1.0, 1.0))
        state.kl_coef = kl_coef * (1.0 + config.kl_adapt_rate * error)
    state.step += 1
    train_s = time.perf_counter() - start
    sample = sample_stats or {}
    trained_tokens = sum(len(p) + len(r.tokens) for p, r in zip(prompts_B, rollouts, strict=True))
    return StepMetrics(
        step=state.step - 1,
        attempt=attempt,
        reward_mean=float(rewards.mean()),
        reward_std=float(rewards.std()),
        verify_rate=float((rewards >= config.verified_threshold).mean()),
        zero_variance_frac=float(1.0 - varied_G.mean()),
        kl=kl_value,
        entropy=(ent_sum / total_tok).item(),
        clip_frac=clip_acc.item(),
        grad_norm=grad_norm.item(),
        learning_rate=lr,
        kl_coef=kl_coef,
        loss=loss_acc.item(),
        response_len=float(np.mean([len(r.tokens) for r in rollouts])),
        truncation_rate=float(np.mean([r.truncated for r in rollouts])),
        trained_groups=len(groups_G),
        sample_tokens_per_s=float(sample.get("sample_tokens_per_s", 0.0)),
        train_tokens_per_s=trained_tokens / max(train_s, 1e-9),
        sample_s=float(sample.get("sample_s", 0.0)),
        train_s=train_s,
        step_s=train_s + float(sample.get("sample_s", 0.0)),
    )


def grpo_step(state, prompts_P, reward_fn, config, micro_rows):
    """Sampling with the batched log-prob gather, then the single-pass train step."""
    stock = sampling.generate_tokens
    sampling.generate_tokens = generate_tokens  # sample_groups looks it up at call time
    try:
        t0 = time.perf_counter()
        groups, stats = sampling.sample_groups(
            state.model,
            state.tokenizer,
            prompts_P,
            config.sampling,
            config.group_size,
            step_seed(config, state.step, 0),
        )
    finally:
        sampling.generate_tokens = stock
    rewards_GN = score_groups(groups, reward_fn)
    stats = dict(stats, sample_s=time.perf_counter() - t0)
    return groups, rewards_GN, train_step(state, groups, rewards_GN, config, micro_rows, 0, stats)
