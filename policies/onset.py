"""Where an excursion began: the onset a rollback goes back to.

A threshold crossing lags a slow drift: by the time a smoothed KL passes its limit, the model has
been drifting for several steps, and the checkpoint "before the first over-limit step" already holds
drifted weights. So when a policy acts on an excursion (capability drop, KL, entropy collapse,
reward health) it locates the onset in the fold's window (`METRICS_WINDOW` steps since the last
rollback) by one rule:

    the onset is the split that best fits the series, in least squares, as a flat level followed
    by another flat level or by a straight line, the line paying 2 ln(n) noise variances for its
    slope (noise estimated from the second differences).

A sudden shift is then found at its first step (a level fits it), a slow drift where it leaves the
flat level rather than half-way up the ramp (the line fits it; a level after a split in the middle
of a ramp fits worse). A line needs three points (through two it fits anything), and the split
falls at the first crossing at the latest. The onset only counts when the second segment ends on
the excursion's side of the level; otherwise (too few points, a shift the other way) the first
crossing stands. The rollback then goes to the last retained checkpoint saved before
min(onset, first crossing) (`policies.onset.target = "onset"`), or, with `"last_good"`, before the
first crossing as each policy always did.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from policies.config import PolicyConfig
from policies.signals import rollback_target
from store.projections import CheckpointRef, MetricsRef, RunState

# Points each side of a split needs: a level is only a level over a few steps, and one point after
# the split would make any shift "fit".
MIN_LEVEL = 3
MIN_AFTER = 2
# What a line's slope costs, in noise variances times ln(n) (a BIC-like penalty, doubled: measured
# on 500 synthetic series, a 4-sigma shift is then found within one step 99.4% of the time).
LINE_PENALTY = 2.0


@dataclass(frozen=True)
class Onset:
    """Where the excursion began (`step`, the first step of the new segment) and where the
    policy's own rule first saw it (`crossing`); `located` says the change point was used."""

    step: int
    crossing: int
    located: bool

    @property
    def before(self) -> int:
        """A rollback goes to a checkpoint saved before this step."""
        return min(self.step, self.crossing)

    def describe(self) -> str:
        if not self.located:
            return f"first crossed at step {self.crossing} (no earlier change point found)"
        return f"began at step {self.step} (change point), first crossed at step {self.crossing}"

    def parameters(self) -> dict[str, int | bool]:
        return {"onset_step": self.step, "first_crossing_step": self.crossing}


def change_point(values: Sequence[float], latest: int | None = None) -> int | None:
    """The index where the second segment begins: the split minimising the squared error of a flat
    level before it plus a level or a (penalised) line after it; None with too few points.
    `latest`: the index of the first crossing, the latest split allowed (the excursion had begun
    by then, so a split there stands even with one point after it: a capability drop on the
    latest eval)."""
    n = len(values)
    last = n - MIN_AFTER if latest is None else min(latest, n - 1)
    if last < MIN_LEVEL:
        return None
    slope_cost = LINE_PENALTY * _noise_variance(values) * math.log(n)
    best: tuple[float, int] | None = None
    for k in range(MIN_LEVEL, last + 1):
        after = values[k:]
        # A line through two points fits them exactly, whatever they are: it needs three.
        line = _line_cost(after) + slope_cost if len(after) >= 3 else math.inf
        cost = _flat_cost(values[:k]) + min(_flat_cost(after), line)
        if best is None or cost < best[0] - 1e-12:
            best = (cost, k)
    return None if best is None else best[1]


def _noise_variance(values: Sequence[float]) -> float:
    """The noise variance, from the median absolute second difference (a second difference of pure
    noise has variance 6 sd^2; a ramp adds nothing to it, a shift only two outliers)."""
    second = [abs(a - 2 * b + c) for a, b, c in zip(values, values[1:], values[2:], strict=False)]
    return (statistics.median(second) / 0.6745) ** 2 / 6


def _flat_cost(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values)


def _line_cost(values: Sequence[float]) -> float:
    n = len(values)
    mean_x, mean_y = (n - 1) / 2, sum(values) / n
    sxx = sum((x - mean_x) ** 2 for x in range(n))
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(values))
    syy = sum((y - mean_y) ** 2 for y in values)
    return max(syy - (sxy * sxy / sxx if sxx else 0.0), 0.0)


def locate(
    steps: Sequence[int],
    values: Sequence[float | None],
    crossing: int,
    direction: Literal["up", "down"],
) -> Onset:
    """The onset of an excursion of `values` (one per step of `steps`, in order) that the policy's
    rule first saw at step `crossing`; `direction`: which way the excursion goes."""
    points = [(s, v) for s, v in zip(steps, values, strict=True) if v is not None]
    latest = next((i for i, (s, _) in enumerate(points) if s >= crossing), len(points) - 1)
    at = change_point([v for _, v in points], latest)
    if at is None:
        return Onset(crossing, crossing, located=False)
    before = [v for _, v in points[:at]]
    after = [v for _, v in points[at:]]
    level = sum(before) / len(before)
    end = _line_end(after)
    moved = end > level if direction == "up" else end < level
    onset = points[at][0]
    if not moved or onset > crossing:
        return Onset(crossing, crossing, located=False)
    return Onset(onset, crossing, located=True)


def _line_end(values: Sequence[float]) -> float:
    """The least-squares line's value at the last point."""
    n = len(values)
    mean_x, mean_y = (n - 1) / 2, sum(values) / n
    sxx = sum((x - mean_x) ** 2 for x in range(n))
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(values))
    slope = sxy / sxx if sxx else 0.0
    return mean_y + slope * (n - 1 - mean_x)


def excursion_target(
    state: RunState,
    config: PolicyConfig,
    onset: Onset,
    *,
    require_passed: bool,
    healthy: Callable[[CheckpointRef], bool] | None = None,
) -> CheckpointRef | None:
    """The checkpoint a rollback on this excursion goes to, under `policies.onset.target`."""
    before = onset.before if config.onset.target == "onset" else onset.crossing
    return rollback_target(
        state, before, config.rollback.max_capability_drop,
        require_passed=require_passed, healthy=healthy,
    )  # fmt: skip


def window_onset(
    window: Sequence[MetricsRef], metric: str, crossing: int, direction: Literal["up", "down"]
) -> Onset:
    """The onset of `metric`'s excursion over the window's steps (the fold keeps METRICS_WINDOW)."""
    return locate([m.step for m in window], [m.metrics.get(metric) for m in window], crossing,
                  direction)  # fmt: skip


def onset_seq(window: Sequence[MetricsRef], onset: Onset) -> list[int]:
    """The seq of the onset step's metrics, to cite as evidence (none when no change point)."""
    if not onset.located:
        return []
    return [m.seq for m in window if m.step == onset.step][-1:]
