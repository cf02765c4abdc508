"""One GRPO step across the ranks of a `World`, and the throughput calibration that splits it.

Per step: the prompt list is the one a single rank would draw for (seed, step); rank r takes a
contiguous slice of it, sized by the split in force. Where it departs from the one-rank loop:

- Sampling is split-invariant: completion i of global prompt p draws its noise from its own key,
  derived from (step seed, p, i), by the Gumbel-max trick. So the rollouts (and the update) do not
  depend on how many ranks there are or how the groups were split, and a run resumed on fewer
  ranks replays the same rollouts.
- Gradients, loss, KL and entropy are token-weighted sums over ranks (`train_step(reduce=...)`);
  the rest of the step's figures are computed from what every rank gathers, so every rank builds
  the same events. Per-rank timings go into the metrics as `rank{r}_*_s`.
- `scale_rewards = "batch"` (a std over the whole batch) is not supported across ranks.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx_lm.sample_utils import apply_top_p

from stages.distributed import World, apportion, offsets
from stages.training.config import SamplingConfig
from stages.training.model import encode_prompt
from stages.training.sampling import generate_tokens
from stages.training.schedule import derive_seed
from stages.training.types import Rollout, RolloutGroup
from stages.types import StageError
from store.events import Event, MetricsRecorded, RolloutsSampled, ThroughputCalibrated

# --- split-invariant sampling -------------------------------------------------------------------


class RowKeyedSampler:
    """Temperature / top-p sampling where row b of the batch draws from its own key."""

    def __init__(self, seeds_b: Sequence[int], temperature: float, top_p: float = 1.0) -> None:
        self.keys_b2 = mx.stack([mx.random.key(s) for s in seeds_b])
        self.temperature = temperature
        self.top_p = top_p

    def __call__(self, logprobs_bV: mx.array) -> mx.array:
        if self.temperature == 0:
            return mx.argmax(logprobs_bV, axis=-1)
        pairs_b22 = mx.vmap(mx.random.split)(self.keys_b2)
        self.keys_b2, sub_b2 = pairs_b22[:, 0], pairs_b22[:, 1]
        if self.top_p < 1.0:
            logprobs_bV = apply_top_p(logprobs_bV, self.top_p)
        width = logprobs_bV.shape[-1]
        gumbel_bV = mx.vmap(lambda k: mx.random.gumbel(shape=(width,), key=k))(sub_b2)
        return mx.argmax(logprobs_bV * (1.0 / self.temperature) + gumbel_bV, axis=-1)


def sample_groups_keyed(
    model: nn.Module,
    tokenizer: Any,
    prompts_P: Sequence[Any],
    first_index: int,
    config: SamplingConfig,
    group_size: int,
    seed: int,
) -> tuple[list[RolloutGroup], dict[str, float]]:
    """`sample_groups` with one key per completion: prompt `prompts_P[p]` is global prompt
    `first_index + p` of the step."""
    texts_P = [p.prompt if hasattr(p, "prompt") else str(p) for p in prompts_P]
    ids_P = [encode_prompt(tokenizer, t, config.use_chat_template) for t in texts_P]
    rows = [(p, i) for p in range(len(prompts_P)) for i in range(group_size)]
    seeds = [derive_seed(seed, "rollout", first_index + p, i) for p, i in rows]
    by_length: dict[int, list[int]] = {}
    for b, (p, _) in enumerate(rows):
        by_length.setdefault(len(ids_P[p]), []).append(b)
    tokens_B: list[list[int]] = [[] for _ in rows]
    logprobs_B: list[list[float]] = [[] for _ in rows]
    truncated_B = [False] * len(rows)
    eos = set(tokenizer.eos_token_ids)
    start = time.perf_counter()
    for members in by_length.values():
        for lo in range(0, len(members), config.batch_size):
            chunk = members[lo : lo + config.batch_size]
            sampler = RowKeyedSampler([seeds[b] for b in chunk], config.temperature, config.top_p)
            toks, lps, truncs, _ = generate_tokens(
                model, [ids_P[rows[b][0]] for b in chunk], sorted(eos), config.max_tokens,
                sampler, len(chunk),
            )  # fmt: skip
            for b, t, lp, tr in zip(chunk, toks, lps, truncs, strict=True):
                tokens_B[b], logprobs_B[b], truncated_B[b] = t, lp, tr
    seconds = time.perf_counter() - start
    groups = []
    for p, record in enumerate(prompts_P):
        rollouts_N = [
            Rollout(
                prompt_tokens=list(ids_P[p]), tokens=tokens_B[b], logprobs=logprobs_B[b],
                text=tokenizer.decode([t for t in tokens_B[b] if t not in eos]),
                truncated=truncated_B[b],
            )
            for b in range(p * group_size, (p + 1) * group_size)
        ]  # fmt: skip
        groups.append(RolloutGroup(prompt=record, prompt_text=texts_P[p], rollouts_N=rollouts_N))
    generated = sum(len(t) for t in tokens_B)
    stats = {"sample_s": seconds, "sample_tokens": float(generated),
             "sample_tokens_per_s": generated / max(seconds, 1e-9)}  # fmt: skip
    return groups, stats


def _throttle(world: World, seconds: float) -> float:
    """Benchmarks: make a rank `throttle` times slower by sleeping; the seconds it now took."""
    factor = world.slowdown()
    if factor > 1.0:
        time.sleep((factor - 1.0) * seconds)
    return seconds * max(factor, 1.0)


# --- calibration --------------------------------------------------------------------------------


def calibrate(world: World, trainer: Any, config: Any, prompts: Sequence[Any]) -> list[dict]:
    """Each rank samples and trains (forward + backward, no update) on the same few groups; every
    rank gets every rank's figures. Leaves the model and the RNG untouched."""
    from stages.training.grpo import grpo_loss
    from stages.training.logprobs import pad_batch

    few = list(prompts[: world.config.calibration_groups])
    sample_groups_keyed(
        trainer.model, trainer.tokenizer, few[:1], 0, config.sampling, 2, 0
    )  # warm-up
    start = time.perf_counter()
    groups, stats = sample_groups_keyed(
        trainer.model, trainer.tokenizer, few, 0, config.sampling, config.group_size, 0
    )
    sample_s = _throttle(world, time.perf_counter() - start)
    rollouts = [r for g in groups for r in g.rollouts_N]
    tokens_BT, mask_BT = pad_batch(
        [r.prompt_tokens for r in rollouts], [r.tokens for r in rollouts]
    )
    adv_B = mx.zeros((len(rollouts),))
    start = time.perf_counter()
    _, grads = nn.value_and_grad(trainer.model, grpo_loss)(
        trainer.model, tokens_BT, mask_BT, adv_B, mx.zeros(mask_BT.shape), None, 0.0, config
    )
    mx.eval(grads)
    train_s = _throttle(world, time.perf_counter() - start)
    tokens = int(sum(len(r.prompt_tokens) + len(r.tokens) for r in rollouts))
    mine = {
        "rank": world.rank,
        "samples_per_s": len(rollouts) / max(sample_s, 1e-9),
        "sample_tokens_per_s": stats["sample_tokens"] / max(sample_s, 1e-9),
        "train_tokens_per_s": tokens / max(train_s, 1e-9),
        "groups_per_s": len(few) / max(sample_s + train_s, 1e-9),
    }
    return world.gather_json(mine, "calibration")


def _resplit(world: World, per_rank: list[dict], groups: int, step: int, reason: str) -> Event:
    rates = [float(r["groups_per_s"]) for r in per_rank]
    world.weights, world.calibrated, world.recent = rates, rates, []
    return ThroughputCalibrated(
        step=step, per_rank=per_rank, split=apportion(groups, rates), reason=reason
    )


def _drift(world: World, measured: list[float], groups: int, step: int) -> Event | None:
    """A new split when, over the last `drift_patience` steps, some rank's share of the ranks'
    total groups/s moved more than `drift_tolerance` (relative) from its calibrated share. Shares,
    not rates: a machine that slows down as a whole needs no new split."""
    if world.config.split != "auto" or world.calibrated is None:
        return None
    world.recent = [*world.recent, measured][-world.config.drift_patience :]
    if len(world.recent) < world.config.drift_patience:
        return None
    mean = [sum(col) / len(col) for col in zip(*world.recent, strict=True)]
    share = [m / sum(mean) for m in mean]
    calibrated = [c / sum(world.calibrated) for c in world.calibrated]
    off = [r for r, (s, c) in enumerate(zip(share, calibrated, strict=True))
           if abs(s / c - 1.0) > world.config.drift_tolerance]  # fmt: skip
    if not off:
        return None
    reason = "; ".join(
        f"rank {r} ran at {mean[r]:.3g} groups/s ({share[r]:.0%} of the total), "
        f"calibrated {world.calibrated[r]:.3g} ({calibrated[r]:.0%})"
        for r in off
    )
    per_rank = [{"rank": r, "groups_per_s": m} for r, m in enumerate(mean)]
    return _resplit(world, per_rank, groups, step, f"drift: {reason}")


# --- the step -----------------------------------------------------------------------------------


def distributed_step(
    loop: Any, world: World, trainer: Any, tasks: Sequence[Any], attempt: int,
    logged_rewards: list | None = None,
) -> list[Event]:  # fmt: skip
    """`RLLoop._step` across ranks: the same events on every rank (rank 0 appends them)."""
    from stages.common import verifier
    from stages.training.grpo import step_seed, train_step
    from stages.verifiers.registry import verify_tasks

    config = loop.grpo_config()
    if config.scale_rewards == "batch" and world.size > 1:
        raise StageError("grpo.scale_rewards = 'batch' is not supported across ranks")
    step, n = trainer.step, config.group_size
    prompts = loop._prompts(tasks, step)
    out: list[Event] = list(world.pending)
    world.pending = []
    event: Event | None = None
    if world.weights is None:
        event = _resplit(world, calibrate(world, trainer, config, prompts), len(prompts), step,
                         "calibration at start")  # fmt: skip
    elif not world.announced:
        event = ThroughputCalibrated(step=step, per_rank=[], reason="manual split (distributed.split)",
                                     split=apportion(len(prompts), world.weights))  # fmt: skip
    world.announced = True
    if event is not None:  # catch-up appends nothing: log it with the next live step
        (out if logged_rewards is None else world.pending).append(event)
    counts = apportion(len(prompts), world.weights)
    lo = offsets(counts)[world.rank]
    mine = prompts[lo : lo + counts[world.rank]]
    comm_before, start = world.comm_s, time.perf_counter()
    groups, stats = sample_groups_keyed(
        trainer.model, trainer.tokenizer, mine, lo, config.sampling, n,
        step_seed(config, step, attempt),
    )  # fmt: skip
    verdicts: list = []
    if logged_rewards is None:
        flat = [g.prompt for g in groups for _ in g.rollouts_N]
        verdicts = verify_tasks(
            verifier(loop.ctx), flat, [r.text for g in groups for r in g.rollouts_N]
        )
        rewards_GN = [[None if v.excluded else v.reward for v in verdicts[g * n : (g + 1) * n]]
                      for g in range(len(groups))]  # fmt: skip
    else:
        rewards_GN = logged_rewards[lo : lo + len(groups)]
    sample_s = _throttle(world, time.perf_counter() - start)
    usable = [g for g, row in enumerate(rewards_GN) if None not in row]
    metrics = train_step(
        trainer, [groups[g] for g in usable], [rewards_GN[g] for g in usable], config, attempt,
        stats, reduce=world.sum_tree,
    )  # fmt: skip
    train_s = _throttle(world, metrics.train_s - (world.comm_s - comm_before))
    kept = loop.config.pipeline.sample_rollouts
    local = {
        "rewards": rewards_GN,
        "samples": [
            {"task_id": g.prompt.task_id, "prompt": g.prompt_text,
             "completions": [r.text for r in g.rollouts_N], "rewards": rewards_GN[i]}
            for i, g in enumerate(groups) if lo + i < kept
        ],
        "verdicts": [
            {"task_id": groups[j // n].prompt.task_id, "passed": v.passed, "status": v.status,
             "reason": v.reason[:80]}
            for j, v in enumerate(verdicts) if lo * n + j < kept * n
        ],
        "lengths": [len(r.tokens) for g in groups for r in g.rollouts_N],
        "truncated": sum(r.truncated for g in groups for r in g.rollouts_N),
        "verifier_errors": sum(v.status == "verifier_error" for v in verdicts),
        "sample_s": sample_s, "train_s": train_s, "sample_tokens": stats["sample_tokens"],
        "train_tokens": metrics.train_tokens_per_s * metrics.train_s,
    }  # fmt: skip
    ranks = world.gather_json(local, "step summary")
    out += _events(loop, config, metrics, ranks, step, attempt, logged_rewards is None)
    measured = [len(r["rewards"]) / max(r["sample_s"] + r["train_s"], 1e-9) for r in ranks]
    drifted = _drift(world, measured, len(prompts), step)
    if drifted is not None:
        (out if logged_rewards is None else world.pending).append(drifted)
    return out


def _events(
    loop: Any, config: Any, metrics: Any, ranks: list[dict], step: int, attempt: int, live: bool
) -> list[Event]:
    from stages.common import verifier
    from stages.rl_loop import _finite

    rewards_GN = [row for r in ranks for row in r["rewards"]]
    n = config.group_size
    scored = np.array([row for row in rewards_GN if None not in row], dtype=np.float64)
    errors = sum(row.count(None) for row in rewards_GN)
    broken = sum(r.get("verifier_errors", 0) for r in ranks)  # raised, not judged
    lengths = [x for r in ranks for x in r["lengths"]]
    values = _finite(metrics.model_dump(exclude={"step", "attempt"}))
    if len(scored):
        varied = np.ptp(scored, axis=1) > 0
        values.update(
            reward_mean=float(scored.mean()), reward_std=float(scored.std()),
            verify_rate=float((scored >= config.verified_threshold).mean()),
            zero_variance_frac=float(1.0 - varied.mean()),
            trained_groups=float(varied.sum() if config.drop_zero_variance_groups else len(scored)),
        )  # fmt: skip
    sample_s = max(r["sample_s"] for r in ranks)
    train_s = max(r["train_s"] for r in ranks)
    values.update(
        response_len=float(np.mean(lengths)),
        truncation_rate=sum(r["truncated"] for r in ranks) / max(len(lengths), 1),
        sample_s=sample_s, train_s=train_s, step_s=max(r["sample_s"] + r["train_s"] for r in ranks),
        sample_tokens_per_s=sum(r["sample_tokens"] for r in ranks) / max(sample_s, 1e-9),
        train_tokens_per_s=sum(r["train_tokens"] for r in ranks) / max(train_s, 1e-9),
        judge_error_rate=(errors - broken) / max(len(lengths), 1), attempt=float(attempt),
        verifier_error_rate=broken / max(len(lengths), 1),
        temperature=float(config.sampling.temperature), entropy_coef=float(config.entropy_coef),
        group_size=float(config.group_size),
    )  # fmt: skip
    for r, rank in enumerate(ranks):
        values[f"rank{r}_sample_s"], values[f"rank{r}_train_s"] = rank["sample_s"], rank["train_s"]
    n_passed = sum(1 for row in rewards_GN for x in row
                   if x is not None and x >= config.verified_threshold)  # fmt: skip
    from store.events import VerdictsRecorded

    return [
        RolloutsSampled(
            step=step, attempt=attempt, n_groups=len(rewards_GN), group_size=n,
            samples=[s for r in ranks for s in r["samples"]], rewards=rewards_GN,
        ),
        VerdictsRecorded(
            step=step, verifier=verifier(loop.ctx).name, n_passed=n_passed,
            n_total=len(lengths), n_errors=errors,
            verdicts=[v for r in ranks for v in r["verdicts"]] if live else [],
        ),
        MetricsRecorded(step=step, metrics=_finite(values)),
    ]  # fmt: skip
