"""The events of policies and of writers outside the driver (store/events.py re-exports
them, so importing it registers every event)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from store.event_base import JSON, CitesEvidence, Count, Event, Rate, Seq, Step

# --- policies ----------------------------------------------------------------------------------


class PolicyDecided(CitesEvidence):
    policy: str
    action: str
    trigger_metric: str
    value: float | None
    threshold: float | None
    parameters: JSON = Field(default_factory=dict)
    reason: str = ""


class TrainingStoppedEarly(Event):
    """Stage 6 stopped before its last round: the round did not beat the one before it."""

    round: Count
    verify_rate: Rate
    previous: Rate


class FaultInjected(Event):
    """A fault injected on purpose (chaos config) just before `step`."""

    kind: str
    step: Step
    parameters: JSON = Field(default_factory=dict)


class HyperparametersChanged(Event):
    changes: dict[str, float | int | str]
    reason: str = ""


class RolledBack(Event):
    """`fresh_optimizer`: the target's optimizer state was pruned (`checkpoints.
    keep_optimizer_last`), so its weights are restored with a fresh AdamW state (live and on a
    resume's catch-up alike)."""

    from_step: Step
    to_step: Step
    checkpoint: str
    reason: str = ""
    fresh_optimizer: bool = False


class CatchUpDiverged(Event):
    """A resume recomputed a logged step (restored checkpoint + the log's rewards and decisions)
    and got other figures than the log holds: the weights would not be the uninterrupted run's, so
    the run is paused rather than continued on them."""

    step: Step
    checkpoint: str | None  # the checkpoint the catch-up started from (None: the base model)
    metrics: JSON  # name -> {"logged": value, "recomputed": value}, for the figures that differ


class IsolationWaived(Event):
    """The run's config asked for untrusted code to run without a sandbox (verifier.sandbox =
    "unisolated"); recorded by each driver that builds such a verifier."""

    verifier: str
    reason: str


class ThroughputCalibrated(Event):
    """Data-parallel RL: each rank's measured throughput and the split of a step's groups over the
    ranks that follows from it (from `step` on), at start or after a rank's throughput drifted."""

    step: Step
    per_rank: list[JSON]
    split: list[Count]
    reason: str = ""


# --- written from outside the driver (orchestrator/driver/outside_writes.py) -------------------


class ModelExported(Event):
    """`rlvr export-model`: a checkpoint written out as a model folder `mlx_lm.load` opens.
    `which`: what was asked for ("best", "final" or a step); `layout`: "full" (the weights),
    "lora" (the base model in `model/` and the adapters in `adapters/`) or "lora-fused"."""

    checkpoint: str
    step: Step
    which: str
    out: str
    layout: Literal["full", "lora", "lora-fused"]


class PauseRequested(Event):
    """`rlvr pause` / the console's pause: a person asked the run to pause. Its driver, which
    appends the queued request with its next batch, pauses right after it (`RunPaused` names
    `by`); a run no driver holds is paused in the same transaction. The fold reads nothing of it."""

    by: str
    reason: str = ""

    def pause_reason(self) -> str:
        return f"paused at the request of {self.by}" + (f": {self.reason}" if self.reason else "")


class RunRescored(Event):
    """`rlvr rescore`: the run's logged rollouts re-verified by `verifier` (its provenance; the
    run's recorded verifier config plus `overrides`), from `from_seq` on. An audit record: the
    fold reads nothing of it, so the run's history is unchanged. `first_step` / `first_seq`:
    the first step (and its `RolloutsSampled` row) whose rewards differ; `checkpoint`: the last
    retained one before it ({step, digest, seq}); `branch_command` retrains from there.
    `changed_steps`: each step with a change ({step, seq, rollouts, to_pass, to_fail, changed}),
    the first 1,000."""

    verifier: JSON
    overrides: list[str] = Field(default_factory=list)
    from_seq: Seq | None = None
    steps: Count
    rollouts: Count
    to_pass: Count
    to_fail: Count
    changed: Count
    changed_since_first: Count = 0
    rollouts_since_first: Count = 0
    first_step: Step | None = None
    first_seq: Seq | None = None
    checkpoint: JSON | None = None
    branch_command: str | None = None
    changed_steps: list[JSON] = Field(default_factory=list)
