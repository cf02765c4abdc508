"""Thresholds of the stage gates and the recovery policies (defaults from the RLVR workflow)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class GateConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    min_verifiability: float = Field(
        0.80,
        ge=0,
        le=1,
        description="Stage 2: share of tasks whose reference passes and whose perturbation fails.",
    )
    max_false_positive_rate: float = Field(
        0.05,
        ge=0,
        le=1,
        description="Stage 3: the verifier may accept at most this share of known-wrong answers (strictly less).",
    )
    min_tasks_per_category: int = Field(
        1, ge=0, description="Stage 4: each category must keep at least this many teachable tasks."
    )
    max_category_share: float = Field(
        0.9,
        gt=0,
        le=1,
        description="Stage 4: no category may make up more than this share of the training set.",
    )
    max_kl: float = Field(
        0.1, gt=0, description="Stage 5: KL to the reference policy must stay at or below this."
    )
    min_verify_rate_gain: float = Field(
        0.0,
        description="Stages 5-6: the held-out verify rate must beat the baseline (or last round) by more than this.",
    )
    min_capability_retention: float = Field(
        0.95,
        ge=0,
        le=1,
        description="Stage 7: every capability benchmark must keep at least this share of its baseline.",
    )
