"""The GRPO loss of one micro-batch (the formula is in `stages/training/grpo.py`'s docstring):
group-relative advantages, the k3 KL estimate, token- or sequence-mean aggregation, and the loss
with its gradient, eager or as one `mx.compile` graph (`GRPOConfig.compile_loss`)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from stages.training.config import GRPOConfig
from stages.training.logprobs import token_logprobs
from stages.training.types import TrainerState


def advantages(
    rewards_GN: np.ndarray, scale_rewards: str, eps: float = 1e-6, std_estimator: str = "population"
) -> np.ndarray:
    """Group-relative advantages `A_GN` (see `grpo.py`'s docstring); `std_estimator` population
    divides the squared deviations by N, bessel by N - 1."""
    if rewards_GN.ndim != 2:
        raise ValueError(f"rewards must be [groups, group_size], got shape {rewards_GN.shape}")
    if std_estimator not in ("population", "bessel"):
        raise ValueError(f"unknown std_estimator {std_estimator!r}: use population or bessel")
    ddof = 1 if std_estimator == "bessel" else 0
    centred_GN = rewards_GN - rewards_GN.mean(axis=1, keepdims=True)
    if scale_rewards == "group":
        return centred_GN / (rewards_GN.std(axis=1, ddof=ddof, keepdims=True) + eps)
    if scale_rewards == "batch":
        return centred_GN / (rewards_GN.std(ddof=ddof) + eps)
    if scale_rewards == "none":
        return centred_GN
    raise ValueError(f"unknown scale_rewards {scale_rewards!r}: use group, batch or none")


def overlong_penalty(
    lengths_B: np.ndarray, max_tokens: int, buffer: int, factor: float
) -> np.ndarray:
    """DAPO's soft overlong punishment, <= 0, added to the rewards before advantages: 0 up to
    `max_tokens - buffer` tokens, then falling linearly to `-factor` at `max_tokens`."""
    if buffer == 0:
        return np.zeros(len(lengths_B))
    over_B = np.asarray(lengths_B, dtype=np.float64) - (max_tokens - buffer)
    return -factor * np.clip(over_B / buffer, 0.0, 1.0)


def k3(ref_BT: mx.array, logp_BT: mx.array, mask_BT: mx.array | None = None) -> mx.array:
    """Per-token k3 estimate of KL(policy || reference), >= 0 and 0 when the two agree (as a
    loss term its gradient follows KL(reference || policy): see `grpo.py`). Where `mask_BT` is
    0 the log-ratio is taken as 0 before the `exp`, so k3 and its gradient are 0 there,
    whatever a padded slot holds."""
    log_ratio_BT = ref_BT - logp_BT
    if mask_BT is not None:
        log_ratio_BT = mx.where(mask_BT > 0, log_ratio_BT, 0.0)
    return mx.exp(log_ratio_BT) - log_ratio_BT - 1.0


def _aggregate(values_BT: mx.array, mask_BT: mx.array, loss_agg: str, max_tokens: int) -> mx.array:
    # `where`, not a product: 0 * inf is NaN, and a padded slot may hold anything.
    masked_BT = mx.where(mask_BT > 0, values_BT, 0.0)
    if loss_agg == "token-mean":
        return masked_BT.sum() / mx.maximum(mask_BT.sum(), 1.0)
    if loss_agg == "sequence-mean":
        per_seq_B = masked_BT.sum(axis=1) / mx.maximum(mask_BT.sum(axis=1), 1.0)
        return per_seq_B.mean()
    if loss_agg == "dr-grpo":
        return masked_BT.sum() / (mask_BT.shape[0] * max_tokens)
    raise ValueError(f"unknown loss_agg {loss_agg!r}: use token-mean, sequence-mean or dr-grpo")


def grpo_loss(
    model: nn.Module,
    tokens_BT: mx.array,
    mask_BT: mx.array,
    adv_B: mx.array,
    ref_BT: mx.array,
    old_BT: mx.array | None,
    kl_penalty_coef: float,
    config: GRPOConfig,
) -> tuple[mx.array, mx.array]:
    """The loss of the module docstring and the fraction of completion tokens that were clipped."""
    loss, clipped, _, _, _ = _micro_loss(
        model, tokens_BT, mask_BT, adv_B, ref_BT, old_BT, kl_penalty_coef, config, 1.0, False
    )
    return loss, clipped / mx.maximum(mask_BT.sum(), 1.0)


def _micro_loss(
    model: nn.Module,
    tokens_BT: mx.array,
    mask_BT: mx.array,
    adv_B: mx.array,
    ref_BT: mx.array,
    old_BT: mx.array | None,
    kl_penalty_coef: float | mx.array,
    config: GRPOConfig,
    share: float | mx.array,
    with_metrics: bool,
) -> tuple[mx.array, mx.array, mx.array, mx.array, mx.array]:
    """`share` (of its substep's loss) times the loss of the module docstring over one
    micro-batch; its count of clipped tokens; with `with_metrics`, its sums of k3 KL, entropy and
    (with `old_BT`) |trainer - sampler| log-prob gap over completion tokens (from the same
    forward, not differentiated). `kl_penalty_coef` and `share` may be arrays (the compiled path:
    their values must not be looked at while tracing)."""
    bonus = config.entropy_coef > 0
    logp_BT, entropy_BT = token_logprobs(
        model, tokens_BT, with_entropy=bonus or with_metrics, entropy_grad=bonus
    )
    loss, clipped = loss_from_logprobs(
        logp_BT, entropy_BT, mask_BT, adv_B, ref_BT, old_BT, kl_penalty_coef, config
    )
    loss = loss * share if isinstance(share, mx.array) or share != 1.0 else loss
    kl_sum = entropy_sum = gap_sum = mx.array(0.0)
    if with_metrics:
        kl_sum = k3(ref_BT, mx.stop_gradient(logp_BT), mask_BT).sum()
        entropy_sum = mx.where(mask_BT > 0, mx.stop_gradient(entropy_BT), 0.0).sum()
        if old_BT is not None:
            gap_BT = mx.abs(mx.stop_gradient(logp_BT) - old_BT)
            gap_sum = mx.where(mask_BT > 0, gap_BT, 0.0).sum()
    return loss, clipped, kl_sum, entropy_sum, gap_sum


def loss_from_logprobs(
    logp_BT: mx.array,
    entropy_BT: mx.array,
    mask_BT: mx.array,
    adv_B: mx.array,
    ref_BT: mx.array,
    old_BT: mx.array | None,
    kl_penalty_coef: float | mx.array,
    config: GRPOConfig,
) -> tuple[mx.array, mx.array]:
    """The loss of the module docstring from the policy's per-token log-probs and entropies,
    and its count of clipped completion tokens. Padded slots (mask 0) never reach an `exp`:
    their log-ratios are set to 0 first, so neither the loss nor its gradient can be NaN."""
    on_BT = mask_BT > 0
    tis_BT = None
    if config.tis_cap is not None and old_BT is not None:
        # TIS (Yao et al. 2025): the sampler's tokens weighted by min(pi_trainer / pi_sampler,
        # cap), not differentiated; the ratio is then the trainer's own (value 1, one update).
        gap_BT = mx.where(on_BT, mx.stop_gradient(logp_BT) - old_BT, 0.0)
        tis_BT = mx.minimum(mx.exp(gap_BT), config.tis_cap)
        old_BT = None
    old_BT = mx.stop_gradient(logp_BT) if old_BT is None else old_BT
    log_ratio_BT = mx.where(on_BT, logp_BT - old_BT, 0.0)
    if config.importance_level == "sequence":  # GSPO: one ratio per completion, [B, 1]
        log_ratio_BT = log_ratio_BT.sum(axis=1, keepdims=True) / mx.maximum(
            mask_BT.sum(axis=1, keepdims=True), 1.0
        )
    ratio_BT = mx.exp(log_ratio_BT)
    bounded_BT = ratio_BT if config.delta is None else mx.minimum(ratio_BT, config.delta)
    unclipped_BT = bounded_BT * adv_B[:, None]
    clipped_BT = (
        mx.clip(ratio_BT, 1.0 - config.clip_eps_low, 1.0 + config.clip_eps_high) * adv_B[:, None]
    )
    per_token_BT = -mx.minimum(unclipped_BT, clipped_BT)
    if tis_BT is not None:
        per_token_BT = per_token_BT * tis_BT
    if isinstance(kl_penalty_coef, mx.array) or kl_penalty_coef > 0:
        kl_BT = k3(ref_BT, logp_BT, mask_BT)
        if config.kl_estimator == "k3-bias-corrected":
            kl_BT = kl_BT * ratio_BT  # its gradient makes the KL's the reverse KL's, ratio 1 or not
        per_token_BT = per_token_BT + kl_penalty_coef * kl_BT
    if config.entropy_coef > 0:
        per_token_BT = per_token_BT - config.entropy_coef * entropy_BT
    loss = _aggregate(per_token_BT, mask_BT, config.loss_agg, config.sampling.max_tokens)
    return loss, (on_BT & (clipped_BT < unclipped_BT)).astype(mx.float32).sum()


def micro_loss_and_grad(
    state: TrainerState,
    config: GRPOConfig,
    kl_penalty_coef: float,
    with_metrics: bool,
    has_old: bool,
) -> Callable[..., tuple[tuple[mx.array, ...], Any]]:
    """`f(tokens_BT, mask_BT, adv_B, ref_BT, old_BT, share)` -> ((loss, clipped, kl_sum,
    entropy_sum), grads) of `_micro_loss` for `state.model`, compiled with `config.compile_loss`.

    The compiled graph is kept in `state.extra` per (config, metrics, old log-probs, KL on),
    with the KL coefficient and the share as array inputs, so neither the adaptive KL
    controller nor the shares of the micro-batches force a new trace; mlx traces again per new
    input shape. The model's state is the graph's implicit input and output (as mlx_lm's
    trainer does): `nn.value_and_grad` swaps the parameters in while tracing."""
    value_and_grad = nn.value_and_grad(state.model, _micro_loss)
    if not config.compile_loss:
        return lambda tokens, mask, adv, ref, old, share: value_and_grad(
            state.model, tokens, mask, adv, ref, old, kl_penalty_coef, config, share, with_metrics
        )
    kl_on = kl_penalty_coef > 0
    key = ("compiled_micro_loss", config, with_metrics, has_old, kl_on)
    if key not in state.extra:
        model = state.model

        @partial(mx.compile, inputs=model.state, outputs=model.state)
        def compiled(tokens, mask, adv, ref, kl, share, *old):
            return value_and_grad(
                model, tokens, mask, adv, ref, old[0] if old else None, kl if kl_on else 0.0,
                config, share, with_metrics,
            )  # fmt: skip

        state.extra[key] = compiled
    compiled = state.extra[key]
    kl = mx.array(kl_penalty_coef, dtype=mx.float32)
    return lambda tokens, mask, adv, ref, old, share: compiled(
        tokens, mask, adv, ref, kl, mx.array(share, dtype=mx.float32),
        *(() if old is None else (old,)),
    )  # fmt: skip
