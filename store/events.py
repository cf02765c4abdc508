"""Every event a run can record: frozen pydantic models named in the past tense.

Defining a subclass of `Event` registers it in `EVENT_TYPES` under its class name (the `type` column);
two classes of one name are refused. An event's payload holds JSON-native values only. `schema_version` is a class constant stored in its
own column; when a payload's shape changes, bump it and register an upcaster in `store.upcasters`
that turns the stored old form into the new one on read. Old rows are never rewritten.
"""

from __future__ import annotations

import operator
from typing import Annotated, ClassVar, Literal

from pydantic import Field, ValidationInfo, model_validator

from store.event_base import (  # noqa: F401  (re-exported)
    EVENT_TYPES,
    JSON,
    MAX_SEQ,
    MAX_STEP,
    CitesEvidence,
    Count,
    Event,
    NonNegative,
    Rate,
    Seq,
    Step,
)

# Policies' events and those written from outside the driver live in their own module.
from store.events_decisions import (  # noqa: F401  (re-exported)
    CatchUpDiverged,
    FaultInjected,
    HyperparametersChanged,
    IsolationWaived,
    ModelExported,
    PauseRequested,
    PolicyDecided,
    RolledBack,
    RunRescored,
    ThroughputCalibrated,
    TrainingStoppedEarly,
)

# --- lifecycle ---------------------------------------------------------------------------------


class RunStarted(Event):
    """First event of every run: the resolved config and its hash. v2: the GRPO config lost the
    trainer's adaptive KL controller; v3: the start values of the tunable settings are a field of
    their own, so that the store reads no config layout (see store.upcasters)."""

    schema_version: ClassVar[int] = 3

    config: JSON
    config_hash: str
    # Each setting a run may change (store/settings.py) as the config starts it, by its one name:
    # what `HyperparametersChanged` events then change.
    hyperparameters: JSON = Field(default_factory=dict)
    config_path: str | None = None
    overrides: list[str] = Field(default_factory=list)
    # sha256 of the task file (`data.data_path`) as the run read it; None: generated tasks (or a
    # log from before it was recorded). `rlvr rescore` refuses a file that changed since.
    data_digest: str | None = None
    parent_run_id: str | None = None
    parent_seq: Seq | None = None


class StateChanged(Event):
    """The state machine accepted `trigger` and moved the run from `source` to `dest`."""

    trigger: str
    source: str
    dest: str
    reason: str = ""


class RunPaused(Event):
    reason: str


class RunResumed(Event):
    owner: str
    from_step: Step


class RunFailed(CitesEvidence):
    reason: str


class RunCompleted(Event):
    final_checkpoint: str | None
    summary: JSON = Field(default_factory=dict)


class RunRewound(Event):
    """Continue from `to_seq`: the span after it up to this event is abandoned (kept, not folded)."""

    to_seq: Annotated[int, Field(ge=0, le=MAX_SEQ)]  # 0: before the first row
    reason: str = ""

    @model_validator(mode="after")
    def _back_to_an_earlier_row(self, info: ValidationInfo) -> RunRewound:
        """Read from a stored row (`context={"seq": ...}`), a rewind goes back: one to its own
        seq or past it made every fold meet it again and recurse without end (red team round 29,
        log 001: `RecursionError` from every reader, "intact" from verify)."""
        seq = info.context.get("seq") if isinstance(info.context, dict) else None
        if seq is not None and self.to_seq >= seq:
            raise ValueError(f"to_seq names seq {self.to_seq}, not a row before this one")
        return self


class RunBranched(Event):
    """Recorded on the parent-derived child: which run and seq it was branched from."""

    parent_run_id: str
    parent_seq: Seq
    overrides: list[str] = Field(default_factory=list)


class LeaseAcquired(Event):
    owner: str
    expires_at: str
    took_over_from: str | None = None


class SupervisorActed(Event):
    """The supervisor restarted (or gave up on) a run whose driver's lease had expired."""

    action: str  # "restart" | "give_up"
    attempt: Count
    backoff_s: NonNegative
    reason: str


# --- stage results ---------------------------------------------------------------------------


class StageStarted(Event):
    stage: str


class BaselineRecorded(Event):
    verify_rate: Rate
    capability: dict[str, Rate]  # each benchmark's pass rate
    n_heldout: Count
    checkpoint: str | None = None


class TasksDesigned(Event):
    n_tasks: Count
    n_verifiable: Count
    dropped: list[JSON] = Field(default_factory=list)


class VerifierCalibrated(Event):
    verifier: str
    n_right: Count
    n_wrong: Count
    false_positive_rate: Rate
    false_negative_rate: Rate
    accepted_wrong: list[JSON] = Field(default_factory=list)
    rejected_right: list[JSON] = Field(default_factory=list)
    # Known reward-hack probes that passed, counted by kind (a dict: the fold keeps it for gates).
    accepted_hack_kinds: dict[str, Count] = Field(default_factory=dict)
    # Added with the built-in adversary; absent from older rows, whose defaults say "none made".
    accepted_hack_examples: dict[str, str] = Field(default_factory=dict)  # kind -> first response
    adversary_variants: Count = 0  # the adversary's wrong variants judged
    right_variant_pass_rate: Rate | None = None  # share of its right variants accepted
    by_kind: dict[str, list[int]] = Field(default_factory=dict)  # kind -> [judged, disagreed]


class TrainingSetBuilt(Event):
    n_candidates: Count
    n_kept: Count
    coverage: dict[str, Count]
    pass_rates: JSON = Field(default_factory=dict)
    dropped: JSON = Field(default_factory=dict)
    round: Count = 0


class SFTCompleted(Event):
    """Supervised fine-tuning as one unit of work: it is redone whole if interrupted, so its loss
    curve is recorded once, with the baseline it produced."""

    steps: Step
    losses: list[list[float]] = Field(default_factory=list)  # [step, loss] every report_every steps
    tokens_per_s: NonNegative = 0.0
    seconds: NonNegative = 0.0


class RolloutsSampled(Event):
    """One step's rollout batch. The sampled groups' text lives in the blob `blob` names (JSON
    `{"samples": [...], "verdicts": [...]}`); logs written before that keep it in `samples`.
    v2: `policy_version`, the step whose starting weights sampled the batch (the step itself
    on-policy; `grpo.max_staleness` k: max(step - k, the first step after the last rollback))."""

    schema_version: ClassVar[int] = 2

    step: Step
    policy_version: Annotated[int, Field(ge=-1, le=MAX_STEP)] = -1  # -1: not given, read as `step`
    attempt: Count = 0
    n_groups: Count
    group_size: Count
    samples: list[JSON] = Field(default_factory=list)
    blob: str | None = None
    # Every rollout's reward (None: excluded, e.g. a judge error), so a resume can replay the step
    # without asking a non-deterministic judge again.
    rewards: list[list[float | None]] = Field(default_factory=list)
    # With `grpo.reward_weights`: every rollout's value of each reward component, by name (the
    # rewards above are their weighted sum), so a resume replays the `reward_<name>` metrics too.
    components: dict[str, list[list[float | None]]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _on_policy_unless_told(self) -> RolloutsSampled:
        if self.policy_version < 0:
            object.__setattr__(self, "policy_version", self.step)
        return self


class RolloutsDiscarded(Event):
    """Asynchronous rollouts (`grpo.max_staleness`): batches sampled ahead for `steps` that will
    not be trained as sampled, because a rollback restored other weights (`reason`). They were
    never logged; each of those steps samples its batch again, with the same prompts, from the
    weights the schedule then names."""

    steps: list[Step]
    policy_versions: list[Step]
    reason: str


class BatchRefilled(Event):
    """One extra sampling round of dynamic sampling (`grpo.dynamic_sampling`): the fresh prompts
    a step sampled to replace groups whose rewards were all equal, and every rollout's reward,
    so a resume replays the round without asking the verifier again. Appended with its step."""

    step: Step
    attempt: Count = 0
    round: Count  # 1 for the first extra round
    task_ids: list[str]
    rewards: list[list[float | None]]  # None: excluded, as in RolloutsSampled
    n_varied: Count  # groups of this round whose rewards differ


class VerdictsRecorded(Event):
    """A step's verdicts in figures; their text is in the step's rollout blob. v2: `verifier` is
    the verifier's provenance (stages/verifiers/provenance.py: kind, project version, digests of
    its settings and code; a judge's model and prompt digest), not only its name."""

    schema_version: ClassVar[int] = 2

    step: Step
    verifier: JSON
    n_passed: Count
    n_total: Count
    n_errors: Count = 0
    verdicts: list[JSON] = Field(default_factory=list)  # older logs; now in the blob `blob` names
    blob: str | None = None  # the step's RolloutsSampled blob (samples and their verdicts)


class MetricsRecorded(Event):
    """One training step's numbers. A non-finite value is stored as None with `nonfinite_<name>`
    = 1.0 beside it (events refuse NaN/inf); the fault policy acts on that flag. v2: each tunable
    under its one name (store/settings.py; see store.upcasters)."""

    schema_version: ClassVar[int] = 2

    step: Step
    metrics: dict[str, float | None]


class StepFailed(Event):
    """A training step raised (`kind` "oom" or "exception"); whether to retry is a policy's call.
    `micro_batches` is how many micro-batches the failed attempt split the step's batch into."""

    step: Step
    attempt: Count = 0
    kind: Literal["oom", "exception"]
    message: str = ""
    micro_batches: int = Field(1, ge=1)


class EvalRecorded(Event):
    step: Step
    verify_rate: Rate
    capability: dict[str, Rate]
    checkpoint: str | None = None


class CheckpointSaved(Event):
    step: Step
    checkpoint: str
    hyperparameters: JSON = Field(default_factory=dict)


class CheckpointsPruned(Event):
    """Checkpoints the retention rule let go (`checkpoints` config): each {step, checkpoint, seq},
    with `why` when it is not `reason` (a checkpoint a `resume --from` abandoned); `kept`: each
    checkpoint still retained with why ({step, checkpoint, why: [...]}); a pruned entry's
    `rollouts`: the rollout blobs of the steps trained from it, which go with it. `optimizer_dropped`:
    retained checkpoints ({step, checkpoint, seq}) whose optimizer state goes, weights staying
    (`checkpoints.keep_optimizer_last`), said in `optimizer_reason`. Their blobs are deleted
    afterwards once no run of the store references them (a branch may)."""

    step: Step
    pruned: list[JSON]
    kept: list[JSON] = Field(default_factory=list)
    reason: str = ""
    optimizer_dropped: list[JSON] = Field(default_factory=list)
    optimizer_reason: str = ""


class CheckpointFellBack(Event):
    """Resume found the checkpoint it needed unreadable (corrupt or missing blobs) and restored
    the newest intact one before it; `skipped`: each {step, checkpoint, error}."""

    step: Step
    checkpoint: str
    skipped: list[JSON]
    reason: str = ""


class SettingsOverridden(Event):
    """`rlvr resume RUN key=value ...`: operational settings (budgets, retention, timeouts)
    changed from here on; applied on top of the run's config like a branch's overrides."""

    overrides: list[str]
    reason: str = ""


# What each comparator means, as `policies/gates.py` judges a value against its threshold.
_COMPARE = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt,
            "==": operator.eq}  # fmt: skip


class GateEvaluated(CitesEvidence):
    """A stage gate's verdict. `judges_checkpoint`: the verdict also judges the run's latest
    checkpoint, and a pass makes it the last good one (a rollback target).
    v2 renamed v1's `evidence` to `evidence_seqs` and added `detail`; v3 added `judges_checkpoint`
    (see store.upcasters)."""

    schema_version: ClassVar[int] = 3
    gate: str
    stage: str
    metric: str
    value: float | None
    threshold: float
    comparator: Literal[">=", "<=", ">", "<", "=="]
    passed: bool
    detail: str = ""
    judges_checkpoint: bool = False

    @model_validator(mode="after")
    def _passed_by_its_own_numbers(self) -> GateEvaluated:
        # A gate passes only when its value meets its threshold (`policies/gates.py`); a row
        # saying passed with kl 0.5 against "<= 0.1" contradicts itself (red team round 18).
        # (A gate may fail for a reason besides its value: `passed: false` is not checked.)
        if self.passed and (
            self.value is None or not _COMPARE[self.comparator](self.value, self.threshold)
        ):
            raise ValueError(
                f"passed is true but its value {self.value} is not {self.comparator} "
                f"{self.threshold}"
            )
        return self
