"""What a run's fold produces (`RunState`) and the references it keeps (checkpoints, evals, metric
steps, gates); store/projections.py derives it from the log."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class CheckpointRef:
    step: int
    digest: str
    seq: int
    evals_passed: bool | None = None
    optimizer: bool = True  # False once retention dropped its optimizer state (weights stay)
    # In `lineage` only: the hyper-parameters in force when it was saved, and each metric's first
    # value on the steps trained from it (measured on these very weights), once logged.
    hyperparameters: dict = field(default_factory=dict)
    metrics_after: dict = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class EvalRef:
    step: int
    seq: int
    verify_rate: float
    capability: dict[str, float]
    checkpoint: str | None = None


@dataclass(frozen=True, slots=True)
class MetricsRef:
    step: int
    seq: int
    metrics: dict[str, float | None]


# How much metric history the fold keeps for the policies' windows (their configs are capped to it).
METRICS_WINDOW = 64
EARLY_METRICS = 32


@dataclass(frozen=True, slots=True)
class GateRecord:
    gate: str
    stage: str
    metric: str
    value: float | None
    threshold: float
    comparator: str
    passed: bool
    seq: int


@dataclass(slots=True)
class RunState:
    """A run as its log says it is. Treat it as a value: `fold` returns a new one, and mappings
    inside are shared between states, so they are replaced, never mutated."""

    run_id: str = ""
    last_seq: int = 0
    state: str = "created"
    paused_from: str | None = None
    step: int = 0
    config: dict = field(default_factory=dict)
    config_hash: str = ""
    data_digest: str | None = None  # the task file's sha256 as RunStarted recorded it
    parent: tuple[str, int] | None = None
    hyperparameters: dict = field(default_factory=dict)
    baseline_verify_rate: float | None = None
    baseline_capability: dict[str, float] = field(default_factory=dict)
    baseline_seq: int | None = None
    last_eval: dict = field(default_factory=dict)  # {"step", "verify_rate", "capability", "seq"}
    latest_checkpoint: CheckpointRef | None = None
    last_good_checkpoint: CheckpointRef | None = None
    # Policy inputs. They hold raw values, never thresholded ones, so that folding is independent of
    # the policy config and `rlvr replay` under other thresholds sees the same state.
    lineage: tuple[CheckpointRef, ...] = ()  # checkpoints of the live trajectory (rollback cuts it)
    # every checkpoint saved and not pruned (CheckpointsPruned), in seq order: what retention and
    # the disk budget count, and what resume may fall back to
    checkpoints: tuple[CheckpointRef, ...] = ()
    # checkpoints saved in spans a rewind (`resume --from`) abandoned and not pruned since: no
    # rollback or resume can reach them any more, so retention lets them go
    abandoned_checkpoints: tuple[CheckpointRef, ...] = ()
    # checkpoints a RolledBack restored: a resume or branch cut after that rollback replays it
    rolled_back_to: tuple[str, ...] = ()
    baseline_checkpoint: str | None = None
    evals: tuple[EvalRef, ...] = ()
    metrics_window: tuple[MetricsRef, ...] = ()  # the last METRICS_WINDOW MetricsRecorded
    # metric name -> its first EARLY_METRICS finite values in the run (a policy's early baseline)
    early_metrics: dict[str, tuple[float, ...]] = field(default_factory=dict)
    # "policy:action" -> seq of the latest
    decision_seqs: dict[str, int] = field(default_factory=dict)
    last_rollback_seq: int = 0  # latest RolledBack (a rollback decision's consequence)
    step_failures: dict[str, int] = field(default_factory=dict)  # "step:kind" -> StepFailed count
    gates: dict[str, GateRecord] = field(default_factory=dict)  # gate name -> GateRecord (latest)
    # stage result type -> seq of its latest event
    stage_seqs: dict[str, int] = field(default_factory=dict)
    stage_results: dict = field(default_factory=dict)  # stage result type -> its small fields
    last_metrics: dict[str, float | None] = field(default_factory=dict)
    decisions: dict[str, int] = field(default_factory=dict)  # "policy:action" -> count
    rollbacks: int = 0
    failure_reason: str | None = None
    lease_owner: str | None = None
    lease_expires_at: str | None = None
    config_overrides: tuple[
        str, ...
    ] = ()  # from RunBranched: applied on top of RunStarted's config
    supervisor_restarts: int = 0
    last_supervisor_action_at: str | None = None
    finished: bool = False
    # The provenance of the latest step's verifier (VerdictsRecorded.verifier), and each step
    # where it differed from the step before: {"step", "seq", "from", "to"}.
    verifier: dict = field(default_factory=dict)
    verifier_changes: tuple[dict, ...] = ()
