"""The RL step's contracts: what each phase of the step returns (stages/rl/step.py), and what the
log holds of a step a catch-up replays. Shapes in names: `_G` groups, `_N` samples of a group."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from stages.training.types import RolloutGroup, UpdateMetrics
from stages.verifiers.types import Verdict

Rows = list[list[float | None]]
"""rewards_GN: one row per group, one reward per rollout; None where it was excluded."""

Score = Callable[[list[Any], list[str]], Sequence[Verdict]]
"""verdicts = score(prompt_records, completion_texts); one verdict per completion, same order."""

Draw = Callable[[list[Any], int], tuple[list[RolloutGroup], dict[str, float]]]
"""(groups, {"sample_tokens", ...}) = draw(prompt_records, seed): where the sample phase (and
dynamic sampling's rounds) get their rollouts. The step's own samples the live policy with its
injected sampler; an asynchronous sampler can stand in for it."""


@dataclass(frozen=True)
class Logged:
    """What the log holds of a step a catch-up replays: every rank's rewards (None: excluded),
    their reward components, and whether it ran dynamic sampling (a branch may have turned it on
    or off since) with which rounds. The verifier is not asked again."""

    rewards_GN: Rows
    components: dict[str, Rows] = field(default_factory=dict)
    refilled: bool = False
    refills: Sequence[dict] = ()


@dataclass(frozen=True)
class Sampled:
    """Phase 1, sample: this rank's groups of completions."""

    first_index: int  # this rank's first prompt in the step's prompt list
    groups: list[RolloutGroup]
    sample_tokens: float


@dataclass(frozen=True)
class Scored:
    """Phase 2, score: each of this rank's rollouts' reward, from the verifier or the log."""

    rewards_GN: Rows
    components: dict[str, Rows]
    verdicts: Sequence[Verdict] = ()  # none when the rewards came from the log


@dataclass(frozen=True)
class Round:
    """One extra round of dynamic sampling, as `BatchRefilled` logs it."""

    round: int
    task_ids: list[str]
    rewards: Rows
    n_varied: int


@dataclass(frozen=True)
class Refilled:
    """Phase 3, refill: what the update trains on."""

    groups: list[RolloutGroup]
    rewards_GN: Rows
    rounds: list[Round]  # dynamic sampling's extra rounds (a world of one)
    sample_tokens: float  # the extra rounds'


@dataclass(frozen=True)
class Updated:
    """Phase 4, update: what `train_step` reported on this rank, and this rank's timings."""

    metrics: UpdateMetrics
    sample_s: float  # from the first draw to the update (scoring and refills too)
    train_s: float  # less the time spent waiting in collectives


@dataclass(frozen=True)
class StepFigures:
    """Phase 5, figures: the step across ranks, the same on every rank."""

    rewards_GN: Rows  # every rank's, in prompt order
    components: dict[str, Rows]  # every rank's, by reward component
    metrics: dict[str, float | None]  # finite, or None plus a `nonfinite_<name>` flag
    samples: list[dict]  # the first `keep_samples` groups, for the log
    verdicts: list[dict]  # their verdicts (none when the rewards came from the log)
    n_passed: int
    n_errors: int
    n_total: int
    groups_per_s: list[float]  # each rank's measured throughput, for the split's drift check


@dataclass(frozen=True)
class StepResult:
    """Each phase's result on this rank, and the step's figures across ranks."""

    sampled: Sampled
    scored: Scored
    refilled: Refilled
    updated: Updated
    figures: StepFigures

    @property
    def metrics(self) -> dict[str, float | None]:
        return self.figures.metrics
