"""GRPO on mlx: sample a group of completions per prompt, score them outside, update the policy.

Per completion token t of rollout i in group g (mask over completion tokens, EOS included):

    A_i      = (r_i - mean_g(r)) / scale        scale: group std | batch std | 1  (`scale_rewards`)
    ratio_t  = exp(logp_t - old_t)
    pg_t     = -min(ratio_t * A_i, clip(ratio_t, 1 - eps_low, 1 + eps_high) * A_i)
    kl_t     = exp(ref_t - logp_t) - (ref_t - logp_t) - 1          (k3 estimator, Schulman 2020)
    loss     = agg(pg_t + kl_coef * kl_t - entropy_coef * H_t)

Where it departs from plain GRPO (DeepSeekMath):
- `loss_agg="token-mean"` (default) averages over every completion token of the batch (DAPO /
  Dr. GRPO) instead of per sequence first; "sequence-mean" gives the original.
- With `num_substeps == 1` `old_t = stop_gradient(logp_t)`: the ratio is exactly 1 and nothing is
  clipped (on-policy). With `num_substeps > 1` the groups are split into that many minibatches,
  one optimizer step each, and `old_t` is the sampler's log-prob, so later minibatches are
  importance-weighted and clipped with separate low/high epsilons (clip-higher, DAPO).
- Groups whose rewards are all equal carry no signal and are left out by default.
- The KL coefficient can follow an adaptive controller (Ziegler et al. 2019) towards `kl_target`.
- Log-probs are of the temperature-1 policy whatever the sampling temperature.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from typing import Any

import mlx.core as mx
import mlx.nn as nn
import mlx.optimizers as optim
import numpy as np

from stages.training.config import GRPOConfig
from stages.training.logprobs import pad_batch, token_logprobs
from stages.training.sampling import default_prompt_text, sample_groups
from stages.training.schedule import derive_seed, lr_multiplier
from stages.training.types import RewardFn, RolloutGroup, StepFn, StepMetrics, TrainerState


def new_trainer_state(
    model: nn.Module, tokenizer: Any, config: GRPOConfig, reference: nn.Module | None = None
) -> TrainerState:
    """State for GRPO on `model` (made trainable beforehand); the reference defaults to a frozen
    copy of the model as it is now."""
    if reference is None:
        reference = copy.deepcopy(model)
    reference.freeze()
    reference.eval()
    optimizer = optim.AdamW(learning_rate=config.learning_rate, weight_decay=config.weight_decay)
    return TrainerState(
        model=model,
        tokenizer=tokenizer,
        reference=reference,
        optimizer=optimizer,
        step=0,
        learning_rate=config.learning_rate,
        kl_coef=config.kl_penalty_coef,
    )


def step_seed(config: GRPOConfig, step: int, attempt: int = 0) -> int:
    """The one seed every random choice of (step, attempt) derives from."""
    return derive_seed(config.seed, "grpo", step, attempt)


def advantages(rewards_GN: np.ndarray, scale_rewards: str, eps: float = 1e-6) -> np.ndarray:
    """Group-relative advantages `A_GN` (see the module docstring)."""
    if rewards_GN.ndim != 2:
        raise ValueError(f"rewards must be [groups, group_size], got shape {rewards_GN.shape}")
    centred_GN = rewards_GN - rewards_GN.mean(axis=1, keepdims=True)
    if scale_rewards == "group":
        return centred_GN / (rewards_GN.std(axis=1, keepdims=True) + eps)
    if scale_rewards == "batch":
        return centred_GN / (rewards_GN.std() + eps)
    if scale_rewards == "none":
        return centred_GN
    raise ValueError(f"unknown scale_rewards {scale_rewards!r}: use group, batch or none")


def k3(ref_BT: mx.array, logp_BT: mx.array) -> mx.array:
    """Per-token k3 estimate of KL(policy || reference); >= 0, 0 when the two agree."""
    log_ratio_BT = ref_BT - logp_BT
    return mx.exp(log_ratio_BT) - log_ratio_BT - 1.0


def _aggregate(values_BT: mx.array, mask_BT: mx.array, loss_agg: str) -> mx.array:
    if loss_agg == "token-mean":
        return (values_BT * mask_BT).sum() / mx.maximum(mask_BT.sum(), 1.0)
    if loss_agg == "sequence-mean":
        per_seq_B = (values_BT * mask_BT).sum(axis=1) / mx.maximum(mask_BT.sum(axis=1), 1.0)
        return per_seq_B.mean()
    raise ValueError(f"unknown loss_agg {loss_agg!r}: use token-mean or sequence-mean")


def grpo_loss(
    model: nn.Module,
    tokens_BT: mx.array,
    mask_BT: mx.array,
    adv_B: mx.array,
    ref_BT: mx.array,
    old_BT: mx.array | None,
    kl_coef: float,
    config: GRPOConfig,
) -> tuple[mx.array, mx.array]:
    """The loss of the module docstring and the fraction of completion tokens that were clipped."""
    logp_BT, entropy_BT = token_logprobs(model, tokens_BT, with_entropy=config.entropy_coef > 0)
    old_BT = mx.stop_gradient(logp_BT) if old_BT is None else old_BT
    ratio_BT = mx.exp(logp_BT - old_BT)
    unclipped_BT = ratio_BT * adv_B[:, None]
    clipped_BT = (
        mx.clip(ratio_BT, 1.0 - config.clip_eps_low, 1.0 + config.clip_eps_high) * adv_B[:, None]
    )
    per_token_BT = -mx.minimum(unclipped_BT, clipped_BT)
    if kl_coef > 0:
        per_token_BT = per_token_BT + kl_coef * k3(ref_BT, logp_BT)
    if entropy_BT is not None:
        per_token_BT = per_token_BT - config.entropy_coef * entropy_BT
    clip_frac = ((clipped_BT < unclipped_BT) * mask_BT).sum() / mx.maximum(mask_BT.sum(), 1.0)
    return _aggregate(per_token_BT, mask_BT, config.loss_agg), clip_frac


def _pad_logprobs(
    rows_B: Sequence[Sequence[float]], starts_B: Sequence[int], width: int
) -> mx.array:
    out_BT = np.zeros((len(rows_B), width), dtype=np.float32)
    for b, (row, start) in enumerate(zip(rows_B, starts_B, strict=True)):
        out_BT[b, start : start + len(row)] = row
    return mx.array(out_BT)


def train_step(
    state: TrainerState,
    groups_G: Sequence[RolloutGroup],
    rewards_GN: Sequence[Sequence[float]] | np.ndarray,
    config: GRPOConfig,
    attempt: int = 0,
    sample_stats: dict[str, float] | None = None,
) -> StepMetrics:
    """One GRPO update of `state.model` from scored groups; advances `state.step` (and the KL
    coefficient under the adaptive controller). Deterministic given its inputs."""
    start = time.perf_counter()
    rewards = np.asarray(rewards_GN, dtype=np.float64)
    sizes = {len(g.rollouts_N) for g in groups_G}
    if rewards.shape != (len(groups_G), *sizes) or len(sizes) != 1:
        raise ValueError(
            f"rewards shape {rewards.shape} does not match {len(groups_G)} groups of sizes {sizes}"
        )
    mx.random.seed(derive_seed(config.seed, "train", state.step, attempt))
    adv_GN = advantages(rewards, config.scale_rewards)
    varied_G = np.ptp(rewards, axis=1) > 0
    keep_G = varied_G if config.drop_zero_variance_groups else np.ones_like(varied_G)
    rollouts = [r for g in groups_G for r in g.rollouts_N]
    prompts_B = [r.prompt_tokens for r in rollouts]
    tokens_BT, mask_BT = pad_batch(prompts_B, [r.tokens for r in rollouts])

    # Policy and reference over every rollout: KL and entropy metrics cover the whole batch.
    ref_BT, _ = token_logprobs(state.reference, tokens_BT)
    logp_BT, entropy_BT = token_logprobs(state.model, tokens_BT, with_entropy=True)
    kl = _aggregate(k3(ref_BT, logp_BT), mask_BT, "token-mean")
    entropy = _aggregate(entropy_BT, mask_BT, "token-mean")
    mx.eval(ref_BT, kl, entropy)

    lr = state.learning_rate * lr_multiplier(
        state.step, config.lr_schedule, config.warmup_steps, config.total_steps, config.min_lr_ratio
    )
    state.optimizer.learning_rate = lr
    kl_coef = state.kl_coef
    kept = [int(g) for g in np.flatnonzero(keep_G)]
    n = rewards.shape[1]
    chunks = [c for c in np.array_split(np.array(kept, dtype=int), config.num_substeps) if len(c)]
    loss_and_grad = nn.value_and_grad(state.model, grpo_loss)
    losses, clip_fracs, grad_norms, trained_tokens = [], [], [], 0
    for chunk in chunks:
        rows = np.array([g * n + i for g in chunk for i in range(n)])
        rows_mx = mx.array(rows)
        sub_tokens_BT, sub_mask_BT = tokens_BT[rows_mx], mask_BT[rows_mx]
        old_BT = None
        if config.num_substeps > 1:
            starts = [len(prompts_B[r]) - 1 for r in rows]
            old_BT = _pad_logprobs([rollouts[r].logprobs for r in rows], starts, mask_BT.shape[1])
        adv_B = mx.array(adv_GN.reshape(-1)[rows].astype(np.float32))
        (loss, clip_frac), grads = loss_and_grad(
            state.model, sub_tokens_BT, sub_mask_BT, adv_B, ref_BT[rows_mx], old_BT, kl_coef, config
        )
        if config.max_grad_norm > 0:
            grads, grad_norm = optim.clip_grad_norm(grads, config.max_grad_norm)
        else:
            grad_norm = optim.clip_grad_norm(grads, float("inf"))[1]
        state.optimizer.update(state.model, grads)
        mx.eval(loss, clip_frac, grad_norm, state.model.parameters(), state.optimizer.state)
        losses.append(loss.item())
        clip_fracs.append(clip_frac.item())
        grad_norms.append(grad_norm.item())
        trained_tokens += sum(len(prompts_B[r]) + len(rollouts[r].tokens) for r in rows)

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
        clip_frac=float(np.mean(clip_fracs)) if clip_fracs else 0.0,
        grad_norm=float(np.mean(grad_norms)) if grad_norms else 0.0,
        learning_rate=lr,
        kl_coef=kl_coef,
        loss=float(np.mean(losses)) if losses else 0.0,
        response_len=float(np.mean(lengths)),
        truncation_rate=float(np.mean([r.truncated for r in rollouts])),
        trained_groups=len(kept),
        sample_tokens_per_s=float(sample.get("sample_tokens_per_s", 0.0)),
        train_tokens_per_s=trained_tokens / max(train_s, 1e-9),
        sample_s=float(sample.get("sample_s", 0.0)),
        train_s=train_s,
        step_s=train_s + float(sample.get("sample_s", 0.0)),
    )


def score_groups(groups_G: Sequence[RolloutGroup], reward_fn: RewardFn) -> list[list[float]]:
    """Call `reward_fn(records, texts)` once over the whole batch; return `rewards_GN`."""
    records = [g.prompt for g in groups_G for _ in g.rollouts_N]
    texts = [r.text for g in groups_G for r in g.rollouts_N]
    flat = list(reward_fn(records, texts))
    if len(flat) != len(texts):
        raise ValueError(f"reward_fn returned {len(flat)} rewards for {len(texts)} completions")
    out, k = [], 0
    for g in groups_G:
        out.append([float(x) for x in flat[k : k + len(g.rollouts_N)]])
        k += len(g.rollouts_N)
    return out


def grpo_step(
    state: TrainerState,
    prompts_P: Sequence[Any],
    reward_fn: RewardFn,
    config: GRPOConfig,
    attempt: int = 0,
    prompt_text: Callable[[Any], str] | None = None,
) -> tuple[list[RolloutGroup], list[list[float]], StepMetrics]:
    """Sample, score and train one step: (groups, rewards_GN, metrics)."""
    sample_start = time.perf_counter()
    groups, stats = sample_groups(
        state.model,
        state.tokenizer,
        prompts_P,
        config.sampling,
        config.group_size,
        step_seed(config, state.step, attempt),
        prompt_text or default_prompt_text,
    )
    rewards_GN = score_groups(groups, reward_fn)
    stats = dict(stats, sample_s=time.perf_counter() - sample_start)
    return groups, rewards_GN, train_step(state, groups, rewards_GN, config, attempt, stats)


def train_grpo(
    state: TrainerState,
    prompt_batches: Callable[[int], Sequence[Any]],
    reward_fn: RewardFn,
    config: GRPOConfig,
    steps: int,
    on_step: StepFn | None = None,
    prompt_text: Callable[[Any], str] | None = None,
) -> list[StepMetrics]:
    """Run `steps` GRPO steps from `state.step`; `prompt_batches(step)` gives each step's records."""
    history = []
    for _ in range(steps):
        prompts = prompt_batches(state.step)
        _, _, metrics = grpo_step(state, prompts, reward_fn, config, 0, prompt_text)
        history.append(metrics)
        if on_step is not None:
            on_step(metrics)
    return history
