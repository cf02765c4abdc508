"""A run's log built in memory, event by event, the way the GRPO stage and the runner append it."""

from __future__ import annotations

import pytest

from policies.config import PolicyConfig
from policies.engine import decide_all, with_decisions
from policies.types import Decision
from store.events import (
    BaselineRecorded,
    CheckpointSaved,
    EvalRecorded,
    Event,
    HyperparametersChanged,
    MetricsRecorded,
    RolledBack,
    RunStarted,
    StateChanged,
)
from store.log import StoredEvent, canonical_json
from store.projections import RunState, fold

BASELINE_CKPT = "b" * 64
HYPERPARAMETERS = {
    "learning_rate": 1e-4,
    "kl_penalty_coef": 0.01,
    "temperature": 1.0,
    "entropy_coef": 0.0,
    "group_size": 8,
}


# The shape RunStarted records (RunConfig's dump); the fold reads the starting knobs from it.
RECORDED_CONFIG = {
    "grpo": {
        "learning_rate": HYPERPARAMETERS["learning_rate"],
        "kl_penalty_coef": HYPERPARAMETERS["kl_penalty_coef"],
        "entropy_coef": HYPERPARAMETERS["entropy_coef"],
        "group_size": HYPERPARAMETERS["group_size"],
        "sampling": {"temperature": HYPERPARAMETERS["temperature"]},
    }
}


# The tests read one step at a time: KL smoothing (kl.window, default 5) has its own tests.
STEPWISE = PolicyConfig.model_validate({"kl": {"window": 1}})


def ckpt(step: int) -> str:
    return f"{step:064x}"


class PolicyRun:
    def __init__(self) -> None:
        self.stored: list[StoredEvent] = []
        self.state = RunState()

    def append(self, *events: Event) -> StoredEvent:
        for event in events:
            stored = StoredEvent(
                "r", self.state.last_seq + 1, event.type_name(), event.schema_version, "", "", "",
                canonical_json(event.model_dump()),
            )  # fmt: skip
            self.state = fold(self.state, stored)
            self.stored.append(stored)
        return self.stored[-1]

    def start(self, capability: float = 1.0, baseline_checkpoint: bool = True) -> PolicyRun:
        self.append(
            RunStarted(
                config=RECORDED_CONFIG, config_hash="h" * 64, hyperparameters=HYPERPARAMETERS
            ),
            StateChanged(trigger="start", source="created", dest="sft_preparation"),
            BaselineRecorded(
                verify_rate=0.5,
                capability={"reverse": capability, "copy": 1.0},
                n_heldout=100,
                checkpoint=BASELINE_CKPT if baseline_checkpoint else None,
            ),
            StateChanged(trigger="advance", source="data_generation", dest="rlvr_optimization"),
        )
        return self

    def metrics(self, step: int, **metrics: float | None) -> StoredEvent:
        values = {"kl": 0.02, "entropy": 1.0, "zero_variance_frac": 0.1, "loss": 0.1}
        return self.append(MetricsRecorded(step=step, metrics={**values, **metrics}))

    def checkpoint(self, step: int, reverse: float | None = None) -> StoredEvent:
        """A checkpoint, and its eval when `reverse` (the capability score) is given."""
        last = self.append(CheckpointSaved(step=step, checkpoint=ckpt(step)))
        if reverse is not None:
            last = self.append(
                EvalRecorded(
                    step=step,
                    verify_rate=0.6,
                    capability={"reverse": reverse, "copy": 1.0},
                    checkpoint=ckpt(step),
                )
            )
        return last

    @staticmethod
    def keys(decisions: list[Decision]) -> list[str]:
        return [f"{d.policy}:{d.action}" for d in decisions]

    def decide(self, config: PolicyConfig | None = None) -> list[Decision]:
        return decide_all(self.state, self.stored[-1], config or STEPWISE)

    def step(self, events: list[Event], config: PolicyConfig | None = None) -> list[Decision]:
        """Append a step's events with their decisions, then act on them as the runner would."""
        batch, decisions = with_decisions(self.state, events, config or STEPWISE)
        self.append(*batch)
        for d in decisions:
            if d.action == "rollback":
                self.append(
                    RolledBack(
                        from_step=d.parameters["from_step"],
                        to_step=d.parameters["to_step"],
                        checkpoint=d.parameters["checkpoint"],
                        reason=d.reason,
                    )
                )
            elif d.action == "adjust_hyperparameters":
                self.append(HyperparametersChanged(changes=d.parameters, reason=d.reason))
        return decisions


@pytest.fixture
def run() -> PolicyRun:
    """A run in `rlvr_optimization` with a baseline (capability 1.0) and a baseline checkpoint."""
    return PolicyRun().start()


@pytest.fixture
def new_run() -> type[PolicyRun]:
    return PolicyRun
