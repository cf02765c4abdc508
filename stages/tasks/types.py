"""The task contract shared by loaders, generators, verifiers and the training stage."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Family = Literal["math", "qa", "code", "rubric", "arithmetic", "reverse"]


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
    family: Family = Field(description="Task family; selects the verifier.")
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
