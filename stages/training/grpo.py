"""GRPO on mlx: the update from scored groups of completions (the step that samples, scores and
calls it is stages/rl/step.py).

Per completion token t of rollout i in group g (mask over completion tokens, EOS included):

    A_i      = (r_i - mean_g(r)) / scale     scale: group std + 1e-6 | batch std + 1e-6 | 1
    ratio_t  = exp(logp_t - old_t)
    pg_t     = -min(ratio_t * A_i, clip(ratio_t, 1 - eps_low, 1 + eps_high) * A_i)
    kl_t     = exp(ref_t - logp_t) - (ref_t - logp_t) - 1          (k3 estimator, Schulman 2020)
    loss     = agg(pg_t + kl_penalty_coef * kl_t - entropy_coef * H_t)

kl_t's value estimates KL(pi || ref) on tokens sampled from pi, but as a term of the loss its
gradient, d kl_t / d logp_t = 1 - exp(ref_t - logp_t), is in expectation over pi the gradient of
the forward KL(ref || pi), not of KL(pi || ref) (Tang & Munos 2025; it is what DeepSeekMath and
TRL with `use_bias_correction_kl=False` do).

Where it departs from plain GRPO (DeepSeekMath):
- `loss_agg="token-mean"` (default) averages over every completion token of the batch (DAPO,
  TRL's `loss_type="dapo"`) instead of per sequence first; "sequence-mean" gives the original
  (TRL's "grpo"). (Dr. GRPO is neither: it divides by a constant.) The entropy bonus is
  aggregated as the loss is, so under "sequence-mean" it is a mean of per-sequence means.
- With `num_substeps == 1` `old_t = stop_gradient(logp_t)`: the ratio is exactly 1 and nothing is
  clipped (on-policy). With `num_substeps > 1` the groups are split into that many minibatches,
  one optimizer step each, each normalised by its own tokens (or sequences), and `old_t` is the
  sampler's log-prob, so later minibatches are importance-weighted and clipped with separate
  low/high epsilons (clip-higher, DAPO).
- The KL coefficient is the `kl_penalty_coef` in force (store/settings.py), changed only by the
  policies between steps: `config` is the run's with the settings in force.
- Log-probs are of the temperature-1 policy whatever the sampling temperature.

Options (the `[grpo]` fields; the README's table names each one's paper and TRL / verl setting):
- `loss_agg="dr-grpo"`: agg = sum over tokens / (completions x sampling.max_tokens) (Dr. GRPO).
- `importance_level="sequence"`: ratio_i = exp(mean_t(logp_t - old_t)), one per completion (GSPO).
- `delta`: the unclipped ratio is min(ratio_t, delta) (two-sided clipping, INTELLECT-2).
- `kl_estimator="k3-bias-corrected"`: kl_t * ratio_t; through the ratio's gradient (there even
  when its value is 1) the KL term's gradient becomes that of the reverse KL(pi || ref).
- `std_estimator` / `std_eps`: the std of `scale_rewards` (population or Bessel) and its eps.
- `num_iterations`: passes over one batch, each `num_substeps` minibatches; past the first
  update `old_t` is the sampler's log-prob, as with `num_substeps > 1`.
- `overlong_filter`: truncated completions are left out of the loss (their rows are not
  trained, so under sequence-mean or dr-grpo they leave the denominator too; TRL keeps them
  there with a zero mask: the two agree under token-mean).
- `dynamic_sampling` / `max_refill_rounds` (DAPO): the step (stages/rl/refill.py) replaces
  zero-variance groups with groups of fresh prompts before calling `train_step`, which then
  drops whatever still has no variance, as under `drop_zero_variance_groups`.
- `reward_weights`: the rewards `train_step` gets are already the weighted sum of the task
  family's components (stages/rl/rewards.py); nothing here changes.
- `overlong_buffer` / `overlong_penalty_factor`: DAPO's soft overlong punishment is added to the
  rewards before the advantages. Zero-variance groups are still judged by the verifier's rewards
  (as verl's DAPO filters on accuracy), and the step's metrics report those rewards.

Defaults, decided (issue 20) and not changed by it, so runs and their gates read as before:
- The advantage's std is the population std (divide by N) with eps 1e-6; TRL uses Bessel's
  (N - 1) with eps 1e-4. Ours are larger by sqrt(N / (N - 1)), x1.069 at the default group of
  8: one constant factor on the policy-gradient term, which AdamW's per-parameter scaling
  largely absorbs; what it moves is the balance against the KL and entropy terms, which the KL
  policy tunes anyway. Changing it would move every recorded quickstart number for no gain.
- Groups whose rewards are all equal (`drop_zero_variance_groups`, on) carry no policy-gradient
  signal: skipping them saves their gradient pass, the largest cost of a step. The price, on
  purpose: their KL and entropy terms leave that step's update too, and the normaliser counts
  only the kept groups' tokens, so the step is larger than TRL's (which keeps them, with zero
  advantage) by total tokens / kept tokens. The batch is not refilled unless
  `dynamic_sampling` is on (DAPO; stages/rl/refill.py, off by default: its extra rounds cost
  sampling time); otherwise the step simply trains on fewer groups (`trained_groups`).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import mlx.core as mx
import mlx.nn as nn
import mlx.optimizers as optim
import numpy as np
from mlx.utils import tree_map

from stages.training.config import GRPOConfig
from stages.training.grpo_loss import (
    advantages,
    grpo_loss,
    k3,
    micro_loss_and_grad,
    overlong_penalty,
)
from stages.training.logprobs import (
    pad_batch,
    pad_logprobs,
    split_rows,
    take_rows,
    token_logprobs,
)
from stages.training.schedule import derive_seed, lr_multiplier
from stages.training.types import Reduce, Rollout, RolloutGroup, TrainerState, UpdateMetrics

__all__ = ["advantages", "grpo_loss", "k3", "new_trainer_state", "step_seed", "train_step"]

# With `compile_loss`, micro-batches are padded (right, mask 0: the loss is unchanged) to a
# multiple of this many positions, so varying completion lengths reuse a few traces (one per
# rows x width bucket) instead of tracing the loss again for every new longest sequence.
COMPILE_WIDTH_MULTIPLE = 64


def new_trainer_state(
    model: nn.Module, tokenizer: Any, config: GRPOConfig, reference: nn.Module | None = None
) -> TrainerState:
    """State for GRPO on `model` (made trainable beforehand); the reference defaults to a frozen
    copy of the model as it is now. The learning rate and KL coefficient are not part of it:
    each step takes the settings in force (store/settings.py) with its config."""
    if reference is None:
        reference = copy.deepcopy(model)
    reference.freeze()
    reference.eval()
    optimizer = optim.AdamW(learning_rate=config.learning_rate, weight_decay=config.weight_decay)
    return TrainerState(model=model, tokenizer=tokenizer, reference=reference, optimizer=optimizer)


def step_seed(config: GRPOConfig, step: int, attempt: int = 0) -> int:
    """The one seed every random choice of (step, attempt) derives from."""
    return derive_seed(config.seed, "grpo", step, attempt)


@dataclass(frozen=True)
class _Batch:
    """One update's rollouts laid out as rows, and the rows each substep trains on."""

    rollouts: list[Rollout]
    prompts_B: list[list[int]]
    tokens_BT: mx.array
    mask_BT: mx.array
    ends_B: np.ndarray
    completion_B: np.ndarray  # completion tokens per row
    adv_GN: np.ndarray
    rows_C: list[np.ndarray]  # per substep chunk; kept even when empty (every rank reduces)
    trained_groups: int
    multiple: int

    @property
    def first(self) -> int | None:
        """The first chunk with rows here: its gradient pass also measures its rows' KL and
        entropy under the weights as sampled; every other row gets a no-grad pass."""
        return next((c for c, rows in enumerate(self.rows_C) if len(rows)), None)


def _checked(
    groups_G: Sequence[RolloutGroup], rewards_GN: Sequence[Sequence[float]] | np.ndarray
) -> np.ndarray:
    rewards = np.asarray(rewards_GN, dtype=np.float64)
    sizes = {len(g.rollouts_N) for g in groups_G}
    if rewards.shape != (len(groups_G), *sizes) or len(sizes) != 1:
        raise ValueError(
            f"rewards shape {rewards.shape} does not match {len(groups_G)} groups of sizes {sizes}"
        )
    return rewards


def _batch(groups_G: Sequence[RolloutGroup], rewards: np.ndarray, config: GRPOConfig) -> _Batch:
    lengths_GN = np.array([[len(r.tokens) for r in g.rollouts_N] for g in groups_G])
    shaped_GN = rewards + overlong_penalty(
        lengths_GN.reshape(-1), config.sampling.max_tokens, config.overlong_buffer,
        config.overlong_penalty_factor,
    ).reshape(rewards.shape)  # fmt: skip
    adv_GN = advantages(shaped_GN, config.scale_rewards, config.std_eps, config.std_estimator)
    varied_G = np.ptp(rewards, axis=1) > 0
    dropping = config.drop_zero_variance_groups or config.dynamic_sampling
    keep_G = varied_G if dropping else np.ones_like(varied_G)
    rollouts = [r for g in groups_G for r in g.rollouts_N]
    prompts_B = [r.prompt_tokens for r in rollouts]
    multiple = COMPILE_WIDTH_MULTIPLE if config.compile_loss else 1
    tokens_BT, mask_BT = pad_batch(prompts_B, [r.tokens for r in rollouts], multiple=multiple)
    ends_B = np.array([len(p) + len(r.tokens) for p, r in zip(prompts_B, rollouts, strict=True)])
    kept = [int(g) for g in np.flatnonzero(keep_G)]
    n = rewards.shape[1]
    chunks = np.array_split(np.array(kept, dtype=int), config.num_substeps)
    rows_C = [np.array([g * n + i for g in c for i in range(n)], dtype=int) for c in chunks]
    if config.overlong_filter:
        truncated_B = np.array([r.truncated for r in rollouts], dtype=bool)
        rows_C = [rows[~truncated_B[rows]] for rows in rows_C]
    return _Batch(
        rollouts=rollouts, prompts_B=prompts_B, tokens_BT=tokens_BT, mask_BT=mask_BT,
        ends_B=ends_B, completion_B=np.array([len(r.tokens) for r in rollouts], dtype=np.float64),
        adv_GN=adv_GN, rows_C=rows_C, trained_groups=len(kept), multiple=multiple,
    )  # fmt: skip


def _reference_pass(
    state: TrainerState, batch: _Batch, policy_rows: np.ndarray, micro_batches: int
) -> tuple[mx.array, mx.array, mx.array]:
    """No gradient, in micro-batches: the reference's log-probs of every row (`ref_BT`) and the
    policy's sums of k3 KL and entropy over the completion tokens of `policy_rows`."""
    tokens_BT, mask_BT, ends_B = batch.tokens_BT, batch.mask_BT, batch.ends_B
    ref_parts = []
    for rows in split_rows(np.arange(mask_BT.shape[0]), micro_batches):
        _, sub_tokens_BT, _, width = take_rows(tokens_BT, mask_BT, ends_B, rows)
        ref_bT, _ = token_logprobs(state.reference, sub_tokens_BT)
        ref_parts.append(mx.pad(ref_bT, [(0, 0), (0, mask_BT.shape[1] - (width - 1))]))
        mx.eval(ref_parts[-1])
    ref_BT = mx.concatenate(ref_parts, axis=0)
    kl_sum = entropy_sum = mx.array(0.0)
    for rows in split_rows(policy_rows, micro_batches):
        rows_mx, sub_tokens_BT, sub_mask_BT, width = take_rows(tokens_BT, mask_BT, ends_B, rows)
        logp_bT, entropy_bT = token_logprobs(state.model, sub_tokens_BT, with_entropy=True)
        kl_sum = kl_sum + k3(ref_BT[rows_mx][:, : width - 1], logp_bT, sub_mask_BT).sum()
        entropy_sum = entropy_sum + mx.where(sub_mask_BT > 0, entropy_bT, 0.0).sum()
        mx.eval(kl_sum, entropy_sum)
    return ref_BT, kl_sum, entropy_sum


def _shares(
    mask_BT: mx.array, rows: np.ndarray, reduce: Reduce, loss_agg: str
) -> tuple[float, float | None]:
    """This rank's share of `rows`' completion tokens and of the loss's denominator (tokens
    or sequences) across ranks; `None` for the latter when no rank has rows."""
    tokens = float(mask_BT[mx.array(rows)].sum().item()) if len(rows) else 0.0
    total_tokens, total_rows = reduce(mx.array([tokens, float(len(rows))]), 1.0).tolist()
    if total_rows == 0:
        return 0.0, None
    token_share = tokens / max(total_tokens, 1.0)
    return token_share, (token_share if loss_agg == "token-mean" else len(rows) / total_rows)


@dataclass
class _Sums:
    """What the substeps of one update add up."""

    kl: mx.array
    entropy: mx.array
    gap: mx.array = field(default_factory=lambda: mx.array(0.0))  # over the measured rows
    gap_tokens: float = 0.0
    losses: list[float] = field(default_factory=list)
    clip_fracs: list[float] = field(default_factory=list)
    grad_norms: list[float] = field(default_factory=list)
    trained_tokens: int = 0


def _accumulate(
    state: TrainerState, batch: _Batch, rows: np.ndarray, ref_BT: mx.array, config: GRPOConfig,
    with_metrics: bool, sums: _Sums,
) -> tuple[Any, mx.array, mx.array]:  # fmt: skip
    """One chunk's gradient, loss and clipped-token count, its micro-batches' gradients weighted
    by their share of the chunk's tokens (or rows) and summed: the one pass over the chunk."""
    chunk_tokens = max(float(batch.completion_B[rows].sum()), 1.0)
    parts = split_rows(rows, config.micro_batches)
    grads, loss, clipped = None, mx.array(0.0), mx.array(0.0)
    # past the first update the sampler's log-probs are the PPO ratio's base
    has_old = uses_sampler_logprobs(config)
    loss_and_grad = micro_loss_and_grad(
        state, config, config.kl_penalty_coef, with_metrics, has_old
    )
    for part in parts:
        rows_mx, sub_tokens_BT, sub_mask_BT, width = take_rows(
            batch.tokens_BT, batch.mask_BT, batch.ends_B, part, batch.multiple
        )
        old_BT = None
        if has_old:
            starts = [len(batch.prompts_B[r]) - 1 for r in part]
            old_BT = pad_logprobs([batch.rollouts[r].logprobs for r in part], starts, width - 1)
        adv_B = mx.array(batch.adv_GN.reshape(-1)[part].astype(np.float32))
        if config.loss_agg == "token-mean":
            share = float(batch.completion_B[part].sum()) / chunk_tokens
        else:
            share = len(part) / len(rows)
        (part_loss, part_clipped, part_kl, part_entropy, part_gap), part_grads = loss_and_grad(
            sub_tokens_BT, sub_mask_BT, adv_B, ref_BT[rows_mx][:, : width - 1], old_BT,
            share if len(parts) > 1 else 1.0,
        )  # fmt: skip
        grads = part_grads if grads is None else tree_map(mx.add, grads, part_grads)
        loss, clipped = loss + part_loss, clipped + part_clipped
        if with_metrics:
            sums.kl, sums.entropy = sums.kl + part_kl, sums.entropy + part_entropy
            sums.gap = sums.gap + part_gap
        if len(parts) > 1:
            mx.eval(grads, loss, clipped, sums.kl, sums.entropy, sums.gap)
    if len(parts) > 1:
        mx.clear_cache()  # the micro-batches' buffers, before the update allocates its own
    return grads, loss, clipped / chunk_tokens


def uses_sampler_logprobs(config: GRPOConfig) -> bool:
    """Whether the loss reads the sampler's log-probs: past the first update of a batch
    (substeps, iterations), for stale batches (`max_staleness`) and for TIS (`tis_cap`)."""
    return (
        config.num_substeps > 1 or config.num_iterations > 1 or config.max_staleness > 0
        or config.tis_cap is not None
    )  # fmt: skip


def _substep(
    state: TrainerState, batch: _Batch, rows: np.ndarray, ref_BT: mx.array, config: GRPOConfig,
    reduce: Reduce, with_metrics: bool, sums: _Sums,
) -> None:  # fmt: skip
    """One optimizer update from one chunk, its gradient summed over ranks."""
    token_share, loss_share = _shares(batch.mask_BT, rows, reduce, config.loss_agg)
    if loss_share is None:
        return  # no rank has rows in this chunk
    if with_metrics:
        sums.gap_tokens = float(batch.completion_B[rows].sum()) if len(rows) else 0.0
    rows = rows if len(rows) else np.array([0])  # nothing here: a stand-in, weighted 0
    grads, loss, clip_frac = _accumulate(state, batch, rows, ref_BT, config, with_metrics, sums)
    loss, clip_frac = reduce(loss, loss_share), reduce(clip_frac, token_share)
    grads = reduce(grads, loss_share)
    if config.max_grad_norm > 0:
        grads, grad_norm = optim.clip_grad_norm(grads, config.max_grad_norm)
    else:
        grad_norm = optim.clip_grad_norm(grads, float("inf"))[1]
    state.optimizer.update(state.model, grads)
    mx.eval(loss, clip_frac, grad_norm, state.model.parameters(), state.optimizer.state)
    sums.losses.append(loss.item())
    sums.clip_fracs.append(clip_frac.item())
    sums.grad_norms.append(grad_norm.item())
    sums.trained_tokens += int(batch.ends_B[rows].sum())


def _logprob_gap(sums: _Sums, reduce: Reduce) -> float:
    """Mean |trainer - sampler| log-prob over the measured tokens of every rank."""
    return reduce(sums.gap, 1.0).item() / max(reduce(mx.array(sums.gap_tokens), 1.0).item(), 1.0)


def train_step(
    state: TrainerState,
    groups_G: Sequence[RolloutGroup],
    rewards_GN: Sequence[Sequence[float]] | np.ndarray,
    config: GRPOConfig,
    reduce: Reduce,
    attempt: int = 0,
) -> UpdateMetrics:
    """One GRPO update of `state.model` from scored groups; advances `state.step`. `config` is
    the one in force (`GRPOConfig.in_force`): its learning rate, KL coefficient, entropy
    coefficient and micro-batches are the settings the log has in force. Deterministic given
    its inputs.

    Micro-batches (`config.micro_batches`): the reference pass and each substep's gradient pass
    run over that many slices of their rows; a slice's gradient is weighted by its share of the
    substep's completion tokens (token-mean) or rows (sequence-mean) and summed, then one clip
    and one optimizer update per substep: the update of one pass over the whole batch.

    `reduce(tree, weight)` is the world's (stages/distributed.py): the sum over ranks of
    `weight * tree`, `weight * tree` itself for one process (as mlx-lm's `average_gradients`).
    Each rank weights its gradients, loss and KL by its share of the batch's tokens (sequences
    for sequence-mean), so the update equals one rank's on the whole batch."""
    start = time.perf_counter()
    rewards = _checked(groups_G, rewards_GN)
    mx.random.seed(derive_seed(config.seed, "train", state.step, attempt))
    batch = _batch(groups_G, rewards, config)
    lr = config.learning_rate * lr_multiplier(
        state.step, config.lr_schedule, config.warmup_steps, config.total_steps, config.min_lr_ratio
    )
    state.optimizer.learning_rate = lr
    first = batch.first
    measured = batch.rows_C[first] if first is not None else np.array([], dtype=int)
    others = np.setdiff1d(np.arange(len(batch.rollouts)), measured)
    ref_BT, kl_sum, entropy_sum = _reference_pass(state, batch, others, config.micro_batches)
    sums = _Sums(kl=kl_sum, entropy=entropy_sum)
    # num_iterations passes over the same minibatches; only the first sees the sampled weights
    for c, rows in enumerate(batch.rows_C * config.num_iterations):
        _substep(state, batch, rows, ref_BT, config, reduce, c == first, sums)
    tokens = max(float(batch.completion_B.sum()), 1.0)
    token_share = _shares(batch.mask_BT, np.arange(batch.mask_BT.shape[0]), reduce, "token-mean")[0]
    kl = reduce(sums.kl / tokens, token_share)
    entropy = reduce(sums.entropy / tokens, token_share)
    state.step += 1
    return UpdateMetrics(
        logprob_gap=_logprob_gap(sums, reduce) if uses_sampler_logprobs(config) else None,
        step=state.step - 1,
        kl=kl.item(),
        entropy=entropy.item(),
        clip_frac=float(np.mean(sums.clip_fracs)) if sums.clip_fracs else 0.0,
        grad_norm=float(np.mean(sums.grad_norms)) if sums.grad_norms else 0.0,
        learning_rate_scheduled=lr,
        kl_penalty_coef=config.kl_penalty_coef,
        loss=float(np.mean(sums.losses)) if sums.losses else 0.0,
        trained_groups=batch.trained_groups,
        train_tokens=sums.trained_tokens,
        train_s=time.perf_counter() - start,
    )
