"""How a step's groups are split over the ranks: measured at a distributed run's first step
(`ThroughputCalibrated`), or the manual split of the config, and re-measured when the ranks'
shares drift. The split in force is a `Split`, one per driver; a world of one has nothing to
split and logs none of this."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from stages.distributed import DistributedConfig, World, apportion, offsets
from stages.training.config import GRPOConfig
from stages.training.types import TrainerState
from store.events import Event, ThroughputCalibrated


@dataclass
class Split:
    """The split in force: per-rank weights (None: one each until measured), the calibrated
    groups/s, the recent measured ones, whether it has been logged, and a split decided during a
    catch-up (logged with the next live step)."""

    config: DistributedConfig
    size: int
    weights: list[float] | None = None
    calibrated: list[float] | None = None
    recent: list[list[float]] = field(default_factory=list)
    announced: bool = False
    pending: list[Event] = field(default_factory=list)

    @classmethod
    def of(cls, config: DistributedConfig, size: int) -> Split:
        """The config's manual split, unless it is for another number of ranks (a run resumed on
        fewer), which falls back to calibration."""
        manual = None if config.split == "auto" else [float(w) for w in config.split]
        return cls(
            config, size, weights=manual if manual is not None and len(manual) == size else None
        )

    def slice_of(self, rank: int, prompts: Sequence[Any]) -> tuple[int, list[Any]]:
        """Rank `rank`'s contiguous slice of the step's prompt list: where it starts, and it."""
        counts = apportion(len(prompts), self.weights or [1.0] * self.size)
        lo = offsets(counts)[rank]
        return lo, list(prompts[lo : lo + counts[rank]])

    def throttle(self, rank: int, seconds: float) -> float:
        """Benchmarks: make rank `rank` `throttle` times slower by sleeping; the seconds it took."""
        factor = float(self.config.throttle.get(str(rank), 1.0))
        if factor > 1.0:
            time.sleep((factor - 1.0) * seconds)
        return seconds * max(factor, 1.0)


def calibrate(
    world: World, split: Split, trainer: TrainerState, config: GRPOConfig, prompts: Sequence[Any]
) -> list[dict]:
    """Each rank measures itself on the same few groups; every rank gets every rank's figures."""
    from stages.rl.throughput import measure_throughput

    few = list(prompts[: split.config.calibration_groups])
    warm_up = config.model_copy(update={"group_size": 2})
    measure_throughput(trainer.model, trainer.tokenizer, few[:1], warm_up, train=False)
    measured = measure_throughput(trainer.model, trainer.tokenizer, few, config)
    sample_s = split.throttle(world.rank, measured.sample_s)
    train_s = split.throttle(world.rank, measured.train_s)
    mine = {
        "rank": world.rank,
        "samples_per_s": measured.sequences / max(sample_s, 1e-9),
        "sample_tokens_per_s": measured.sample_tokens / max(sample_s, 1e-9),
        "train_tokens_per_s": measured.train_tokens / max(train_s, 1e-9),
        "groups_per_s": len(few) / max(sample_s + train_s, 1e-9),
    }
    return world.gather_json(mine, "calibration")


def plan_split(
    world: World, split: Split, trainer: TrainerState, config: GRPOConfig, prompts: Sequence[Any]
) -> Event | None:
    """Before a distributed run's first step: measure the ranks (split "auto") or announce the
    manual split. The event to log, once."""
    if world.size == 1 or split.announced:
        return None
    split.announced = True
    if split.weights is None:
        per_rank = calibrate(world, split, trainer, config, prompts)
        return resplit(split, per_rank, len(prompts), trainer.step, "calibration at start")
    return ThroughputCalibrated(
        step=trainer.step, per_rank=[], reason="manual split (distributed.split)",
        split=apportion(len(prompts), split.weights),
    )  # fmt: skip


def resplit(split: Split, per_rank: list[dict], groups: int, step: int, reason: str) -> Event:
    rates = [float(r["groups_per_s"]) for r in per_rank]
    split.weights, split.calibrated, split.recent = rates, rates, []
    return ThroughputCalibrated(
        step=step, per_rank=per_rank, split=apportion(groups, rates), reason=reason
    )


def drift(split: Split, measured: list[float], groups: int, step: int) -> Event | None:
    """A new split when, over the last `drift_patience` steps, some rank's share of the ranks'
    total groups/s moved more than `drift_tolerance` (relative) from its calibrated share. Shares,
    not rates: a machine that slows down as a whole needs no new split."""
    config = split.config
    if config.split != "auto" or split.calibrated is None:
        return None
    split.recent = [*split.recent, measured][-config.drift_patience :]
    if len(split.recent) < config.drift_patience:
        return None
    mean = [sum(col) / len(col) for col in zip(*split.recent, strict=True)]
    share = [m / sum(mean) for m in mean]
    calibrated = [c / sum(split.calibrated) for c in split.calibrated]
    off = [r for r, (s, c) in enumerate(zip(share, calibrated, strict=True))
           if abs(s / c - 1.0) > config.drift_tolerance]  # fmt: skip
    if not off:
        return None
    reason = "; ".join(
        f"rank {r} ran at {mean[r]:.3g} groups/s ({share[r]:.0%} of the total), "
        f"calibrated {split.calibrated[r]:.3g} ({calibrated[r]:.0%})"
        for r in off
    )
    per_rank = [{"rank": r, "groups_per_s": m} for r, m in enumerate(mean)]
    return resplit(split, per_rank, groups, step, f"drift: {reason}")
