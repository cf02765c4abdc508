"""Task suites: the `Task` contract, file loaders and deterministic generators."""

from stages.tasks.generators import (
    ARITHMETIC_LEVELS,
    generate_arithmetic,
    generate_reversal,
    has_carry,
    split_tasks,
)
from stages.tasks.loaders import load_jsonl, load_rubric_json, load_tasks
from stages.tasks.types import Family, Paragraph, Task, TaskFormatError

__all__ = [
    "ARITHMETIC_LEVELS",
    "Family",
    "Paragraph",
    "Task",
    "TaskFormatError",
    "generate_arithmetic",
    "generate_reversal",
    "has_carry",
    "load_jsonl",
    "load_rubric_json",
    "load_tasks",
    "split_tasks",
]
