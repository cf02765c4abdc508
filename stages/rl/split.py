"""How a step's groups are split over the ranks: measured at a distributed run's first step
(`ThroughputCalibrated`), or the manual split of the config, and re-measured when the ranks'
shares drift. A world of one has nothing to split and logs none of this."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stages.distributed import World, apportion
from stages.rl.sampling import sample_groups_keyed
from stages.rl.step import throttle
from stages.rl.throughput import measure_throughput
from stages.training.config import GRPOConfig
from stages.training.types import TrainerState
from store.events import Event, ThroughputCalibrated


def calibrate(
    world: World, trainer: TrainerState, config: GRPOConfig, prompts: Sequence[Any]
) -> list[dict]:
    """Each rank measures itself on the same few groups; every rank gets every rank's figures."""
    few = list(prompts[: world.config.calibration_groups])
    sample_groups_keyed(
        trainer.model, trainer.tokenizer, few[:1], 0, config.sampling, 2, 0
    )  # warm-up
    measured = measure_throughput(trainer.model, trainer.tokenizer, few, config)
    sample_s = throttle(world, measured.sample_s)
    train_s = throttle(world, measured.train_s)
    mine = {
        "rank": world.rank,
        "samples_per_s": measured.sequences / max(sample_s, 1e-9),
        "sample_tokens_per_s": measured.sample_tokens / max(sample_s, 1e-9),
        "train_tokens_per_s": measured.train_tokens / max(train_s, 1e-9),
        "groups_per_s": len(few) / max(sample_s + train_s, 1e-9),
    }
    return world.gather_json(mine, "calibration")


def plan_split(
    world: World, trainer: TrainerState, config: GRPOConfig, prompts: Sequence[Any]
) -> Event | None:
    """Before a distributed run's first step: measure the ranks (split "auto") or announce the
    manual split. The event to log, once."""
    if world.size == 1 or world.announced:
        return None
    world.announced = True
    if world.weights is None:
        per_rank = calibrate(world, trainer, config, prompts)
        return resplit(world, per_rank, len(prompts), trainer.step, "calibration at start")
    return ThroughputCalibrated(
        step=trainer.step, per_rank=[], reason="manual split (distributed.split)",
        split=apportion(len(prompts), world.weights),
    )  # fmt: skip


def resplit(world: World, per_rank: list[dict], groups: int, step: int, reason: str) -> Event:
    rates = [float(r["groups_per_s"]) for r in per_rank]
    world.weights, world.calibrated, world.recent = rates, rates, []
    return ThroughputCalibrated(
        step=step, per_rank=per_rank, split=apportion(groups, rates), reason=reason
    )


def drift(world: World, measured: list[float], groups: int, step: int) -> Event | None:
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
    return resplit(world, per_rank, groups, step, f"drift: {reason}")
