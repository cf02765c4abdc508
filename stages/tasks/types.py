"""The task contract shared by loaders, generators, verifiers and the training stage, and the
calibration candidates and `rlvr check` records a task family (`stages.tasks.families`) makes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# A registered family's name (`stages.tasks.families.FAMILIES`); the family's own loader or
# generator sets it, and `family()` there rejects one not registered.
Family = str


class TaskFormatError(ValueError):
    """A task file is malformed. The message names the file, line and field at fault."""

    def __init__(self, path: str, line: int | None, field: str | None, problem: str) -> None:
        where = f"{path}:{line}" if line is not None else path
        what = f" field {field!r}:" if field else ""
        super().__init__(f"{where}:{what} {problem}")
        self.path, self.line, self.field, self.problem = path, line, field, problem


class Paragraph(BaseModel):
    """A context paragraph of a multi-hop QA task."""

    model_config = ConfigDict(frozen=True)

    idx: int = Field(description="Paragraph index as cited by responses.")
    title: str = Field("", description="Paragraph title.")
    text: str = Field(description="Paragraph text.")
    is_supporting: bool = Field(False, description="True for gold supporting paragraphs.")


class Task(BaseModel):
    """One verifiable task. `answer` is the reference for math/qa/arithmetic/reverse; code tasks
    carry `tests`, rubric tasks `rubrics`."""

    model_config = ConfigDict(frozen=True)

    task_id: str = Field(description="Unique, stable id (splits and events refer to it).")
    family: Family = Field(description="Task family (a registered name); selects the verifier.")
    prompt: str = Field(description="What the model is given.")
    answer: str | None = Field(None, description="Reference answer, where the family has one.")
    category: str = Field("", description="Sub-population for coverage and per-category metrics.")
    difficulty: int = Field(0, ge=0, description="Difficulty level (0 = unspecified).")
    aliases: list[str] = Field(default_factory=list, description="Other accepted answers (QA).")
    paragraphs: list[Paragraph] = Field(default_factory=list, description="QA context paragraphs.")
    num_hops: int | None = Field(None, description="Reasoning hops of a multi-hop QA question.")
    tests: str | None = Field(None, description="Python tests a code answer must pass.")
    rubrics: list[str] = Field(default_factory=list, description="Criteria for the rubric judge.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="JSON-native extras.")


class Candidate(BaseModel):
    """A calibration response whose truth is known (stage 3), made by the task's family."""

    task_id: str = Field(description="Task the candidate answers.")
    kind: str = Field(
        description="How it was made: perturbed, wrong_sign, other_task, empty, hedge, ..."
    )
    text: str = Field(description="The candidate response.")
    correct: bool = Field(description="Whether a sound verifier must accept it.")
    known_hack: bool = Field(
        False,
        description="A probe of a known reward-hack or known-wrong kind: with "
        "`gates.zero_tolerance_hacks` a single pass fails the verification gate.",
    )


class RecordError(ValueError):
    """A line of `rlvr check` input lacks a field or has one of the wrong shape."""


def record_text(obj: Mapping[str, Any], field: str) -> str:
    """A string field of a `rlvr check` record (a numeric `reference` is taken as its text)."""
    if field not in obj:
        raise RecordError(f"field {field!r} missing")
    value = obj[field]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and field == "reference":
        return str(value)
    if not isinstance(value, str):
        raise RecordError(f"field {field!r} must be a string, got {type(value).__name__}")
    return value
