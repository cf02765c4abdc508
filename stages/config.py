"""Config of the seven stages' own work: which tasks, how the SFT teacher behaves, how much RL;
and `RunConfig`, the whole run's config as the stages read it.

Training hyper-parameters live in `stages.training.config`, verifier settings in
`stages.verifiers.config`; this module holds what ties them into a pipeline.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Protocol

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_serializer,
    field_validator,
    model_validator,
)

from stages.distributed import DistributedConfig
from stages.training.config import GRPOConfig, ModelConfig, SFTConfig
from stages.verifiers.config import VerifierConfig


class DataConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task_family: str = Field(
        "arithmetic",
        description="Task family (stages.tasks.families: arithmetic, math, qa, code, rubric, "
        "reverse); selects the loader and the default verifier.",
    )
    data_path: str | None = Field(
        None, description="Task file (JSON/JSONL); none means the built-in arithmetic generator."
    )
    difficulty: int = Field(2, ge=1, le=5, description="Built-in arithmetic generator level.")
    train_ratio: float = Field(
        0.8, gt=0, lt=1, description="Share of tasks used for training; the rest is held out."
    )
    data_seed: int = Field(42, ge=0, le=2**63 - 1, description="Seed of the train/held-out split.")
    max_heldout: int = Field(
        400, gt=0, le=1_000_000, description="Most held-out tasks evaluated at each eval."
    )
    max_prompt_chars: int = Field(
        16_384,
        gt=0,
        le=10_000_000,
        description="Longest `prompt` a data row may have, in characters: a longer row is "
        "refused with its file and line before any stage starts. Rows must also fit the model's "
        "context in tokens (prompt through the chat template, answer and EOS).",
    )
    max_answer_chars: int = Field(
        8_192,
        gt=0,
        le=10_000_000,
        description="Longest `answer` a data row may have (a reference answer, a code "
        "`solution`, a rubric `reference`), in characters; refused like a long prompt.",
    )
    capability_benchmarks: list[Literal["reverse"]] = Field(
        default_factory=lambda: ["reverse"],
        description="Skills RL never trains, scored against their baseline (retention).",
    )
    capability_heldout: int = Field(
        200, gt=0, le=1_000_000, description="Held-out items per capability benchmark."
    )

    @field_validator("task_family")
    @classmethod
    def _known_family(cls, name: str) -> str:
        from stages.tasks.families import check_family

        return check_family(name)


class TeacherConfig(BaseModel):
    """How the embedded model's SFT data is made (only when `model.model_name = "embedded"`)."""

    model_config = ConfigDict(extra="forbid")

    noise: Literal["none", "forgets_carry", "other_answer"] = Field(
        "forgets_carry",
        description="none: exact labels; forgets_carry: on carry/borrow problems the teacher is off "
        "by ten (fractions: on improper sums it adds the denominators too) with probability "
        "carry_error, drawn afresh each time (imperfect demonstrations); "
        "other_answer (any family): with probability wrong_share the label is another training "
        "task's answer, drawn afresh each time.",
    )
    carry_error: float = Field(0.7, ge=0, le=1, description="Probability of the carry mistake.")
    wrong_share: float = Field(
        0.3,
        ge=0,
        le=1,
        description="other_answer: probability that a label is another task's answer.",
    )
    capability_share: float = Field(
        0.25, ge=0, lt=1, description="Share of each SFT batch given to the capability skills."
    )


class PipelineConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verifiability_sample: int = Field(
        400,
        gt=0,
        le=1_000_000,
        description="Stage 2: tasks checked (reference passes, perturbation fails).",
    )
    calibration_tasks: int = Field(
        100,
        gt=0,
        le=1_000_000,
        description="Stage 3: tasks whose candidates calibrate the verifier.",
    )
    pass_rate_samples: int = Field(
        4, ge=1, le=1024, description="Stage 4: samples per task to estimate its pass rate."
    )
    pass_rate_tasks: int = Field(
        800,
        gt=0,
        le=10_000_000,
        description="Stage 4: most training tasks whose pass rate is estimated.",
    )
    min_pass_rate: float = Field(
        0.0, ge=0, le=1, description="Stage 4: keep tasks with pass rate above this..."
    )
    max_pass_rate: float = Field(
        1.0, ge=0, le=1, description="...and below this (0 < p < 1 can teach)."
    )
    ifd_min: float | None = Field(
        None,
        ge=0,
        le=1000,
        description="Stage 4: keep only tasks with IFD at least this (optional).",
    )
    ifd_max: float | None = Field(
        None,
        ge=0,
        le=1000,
        description="Stage 4: keep only tasks with IFD at most this (optional).",
    )
    rl_steps: int = Field(100, ge=1, le=10_000_000, description="Stage 5: GRPO steps.")
    rounds: int = Field(
        1, ge=0, le=1000, description="Stage 6: further rounds, each re-filtering the curriculum."
    )
    round_steps: int = Field(40, ge=1, le=10_000_000, description="Stage 6: GRPO steps per round.")
    sample_rollouts: Annotated[int, Field(ge=0, le=1_000_000)] | Literal["all"] = Field(
        "all",
        description="Groups per step logged whole (prompt id, completions, verdicts with their "
        "full reasons, rewards, advantages, lengths, truncation) in the step's compressed "
        'rollout blob: "all" (what `rlvr rescore` re-verifies), or the first N groups (0: none).',
    )

    @model_validator(mode="after")
    def _bands_are_not_empty(self) -> PipelineConfig:
        # Checked before the run starts: an empty band would only fail stage 4, after SFT.
        if self.min_pass_rate >= self.max_pass_rate:
            raise ValueError(
                f"min_pass_rate ({self.min_pass_rate}) must be below max_pass_rate "
                f"({self.max_pass_rate}): no task would be kept"
            )
        if self.ifd_min is not None and self.ifd_max is not None and self.ifd_min > self.ifd_max:
            raise ValueError(
                f"ifd_min ({self.ifd_min}) must not exceed ifd_max ({self.ifd_max}): no task "
                "would be kept"
            )
        return self


class InjectedFault(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["learning_rate", "temperature", "capability_poison", "verdict_corruption"] = (
        Field(
            description="learning_rate / temperature: set that knob (a bad setting a policy must "
            "undo); capability_poison: SFT on corrupted labels of a capability skill (a regression "
            "to roll back); verdict_corruption: from this step on, the step's verdicts are "
            "corrupted after the verifier's check (a scorer bug the log must let you find)."
        )
    )
    step: int = Field(ge=0, le=10_000_000, description="Inject just before this GRPO step.")
    value: float | None = Field(
        None, ge=0, le=10, description="The knob's new value (learning_rate, temperature)."
    )
    steps: int = Field(
        20, ge=1, le=1_000_000, description="capability_poison: SFT steps on corrupted labels."
    )
    learning_rate: float = Field(
        3e-3, gt=0, le=1.0, description="capability_poison: SFT learning rate."
    )
    mode: Literal["zero", "flip"] = Field(
        "zero",
        description="verdict_corruption: zero: a corrupted verdict fails with reward 0; flip: a "
        "passed verdict fails and a failed one passes (reward 1 - reward).",
    )
    share: float = Field(
        1.0,
        gt=0,
        le=1,
        description="verdict_corruption: share of the rollouts corrupted, each drawn by a hash of "
        "(seed, step, task, response) so a resume corrupts the same ones.",
    )
    silent: bool = Field(
        False,
        description="verdict_corruption, for tests: the fault logs nothing about itself (no "
        "FaultInjected event, no log line, left out of the recorded config), so only re-verifying "
        "the logged rollouts can find where it began. One process only: a resume or a branch "
        "reads the recorded config and runs without it.",
    )

    @model_validator(mode="after")
    def _corruption_settings_name_their_kind(self) -> InjectedFault:
        if self.kind != "verdict_corruption" and (
            self.silent or self.mode != "zero" or self.share != 1.0
        ):
            raise ValueError(
                f"mode, share and silent are verdict_corruption's settings, not {self.kind!r}'s"
            )
        return self


class ChaosConfig(BaseModel):
    """Faults injected on purpose so a user can watch each recovery (configs/chaos.toml)."""

    model_config = ConfigDict(extra="forbid")

    faults: list[InjectedFault] = Field(
        default_factory=list, description="What to inject, and when."
    )

    @field_serializer("faults")
    def _recorded_faults(self, faults: list[InjectedFault]) -> list[dict[str, Any]]:
        # A silent fault is left out of every dump, so the recorded config and its hash say
        # nothing about it.
        return [f.model_dump() for f in faults if not f.silent]


class GateThresholds(Protocol):
    """The gate thresholds a stage reads itself (policies.config.GateConfig has them all)."""

    min_capability_retention: float


class RunConfig(Protocol):
    """The run's config as the stages read it: orchestrator.config.RunConfig, which the stages
    cannot import (the orchestrator is above them); tests/unit/test_stage_contract.py holds the
    two equal, field by field."""

    run_name: str
    seed: int
    log_path: str
    eval_every: int
    save_every: int
    model: ModelConfig
    data: DataConfig
    teacher: TeacherConfig
    sft: SFTConfig
    grpo: GRPOConfig
    verifier: VerifierConfig | None
    pipeline: PipelineConfig
    chaos: ChaosConfig
    distributed: DistributedConfig

    @property
    def gates(self) -> GateThresholds: ...
