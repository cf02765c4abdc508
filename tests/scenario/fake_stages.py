"""Stand-in stages for scenario tests: they emit the events real stages emit, with chosen numbers,
so the real gates, state machine and driver can be exercised without a model."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from orchestrator.driver.machine import STAGES
from stages.types import StageContext, StageError, StageInterrupted
from store.events import (
    BaselineRecorded,
    CheckpointSaved,
    EvalRecorded,
    MetricsRecorded,
    TasksDesigned,
    TrainingSetBuilt,
    VerifierCalibrated,
)


@dataclass
class FakeStages:
    """Numbers each fake stage reports; change one to make its gate fail."""

    verifiable: int = 95
    false_positive_rate: float = 0.0
    kl: float = 0.05
    final_verify_rate: float = 0.8
    capability_after: float = 0.97
    raise_in: str | None = None
    on_step: Callable[[int], None] | None = None  # e.g. request a stop, or kill the process
    metrics_at: Callable[[int], dict] | None = None  # more metrics for a step (a judge failing)
    ran: list[str] = field(default_factory=list)

    def registry(self) -> dict:
        return {name: _Stage(name, self) for name in STAGES}


@dataclass
class _Stage:
    name: str
    numbers: FakeStages

    def run(self, ctx: StageContext) -> None:
        n = self.numbers
        n.ran.append(self.name)
        if n.raise_in == self.name:
            raise StageError("the model file is unreadable")
        if self.name == "sft_preparation":
            ctx.emit(
                [BaselineRecorded(verify_rate=0.5, capability={"reverse": 1.0}, n_heldout=100)]
            )
        elif self.name == "task_design":
            ctx.emit([TasksDesigned(n_tasks=100, n_verifiable=n.verifiable)])
        elif self.name == "verification":
            ctx.emit(
                [
                    VerifierCalibrated(
                        verifier="math", n_right=50, n_wrong=100,
                        false_positive_rate=n.false_positive_rate, false_negative_rate=0.02,
                        accepted_wrong=[{"task_id": "t1", "response": "3 or 4"}]
                        if n.false_positive_rate else [],
                    )
                ]
            )  # fmt: skip
        elif self.name == "data_generation":
            ctx.emit(
                [
                    TrainingSetBuilt(
                        n_candidates=100, n_kept=60, coverage={"carry": 30, "no_carry": 30}
                    )
                ]
            )
        elif self.name in ("rlvr_optimization", "iterative_training"):
            base = 10 if self.name == "rlvr_optimization" else 20
            for step in range(max(base, ctx.state().step) + 1, base + 11):
                if ctx.should_stop():
                    raise StageInterrupted
                extra = n.metrics_at(step) if n.metrics_at is not None else {}
                metrics = {"kl": n.kl, "reward_mean": 0.6, **extra}
                ctx.emit([MetricsRecorded(step=step, metrics=metrics)])
                if n.on_step is not None:
                    n.on_step(step)
            gain = 0.2 if self.name == "rlvr_optimization" else 0.3
            ctx.emit(
                [
                    CheckpointSaved(step=base + 10, checkpoint="a" * 64),
                    EvalRecorded(
                        step=base + 10, verify_rate=0.5 + gain, capability={"reverse": 0.99}
                    ),
                ]
            )
        elif self.name == "evaluation":
            ctx.emit(
                [
                    EvalRecorded(
                        step=30,
                        verify_rate=n.final_verify_rate,
                        capability={"reverse": n.capability_after},
                    )
                ]
            )
