"""From a task to what its verifier checks: the family's default verifier config, the reference a
task gives its verifier, and one batch of verdicts for tasks and responses. The verifiers know no
task (`stages.verifiers` checks text against a reference); this is where the two meet."""

from __future__ import annotations

from collections.abc import Sequence

from stages.tasks.families import FAMILIES
from stages.tasks.types import Task
from stages.verifiers.config import VerifierConfig
from stages.verifiers.registry import parse_verifier_config
from stages.verifiers.types import (
    CodeReference,
    QAReference,
    RubricReference,
    Verdict,
    Verifier,
    VerifierError,
)


def default_config(family: str) -> VerifierConfig:
    """The verifier config of a task family's default kind."""
    if family not in FAMILIES:
        raise VerifierError(f"no verifier for task family {family!r}")
    return parse_verifier_config({"kind": FAMILIES[family].verifier_kind})


def reference_for(task: Task) -> str | QAReference | CodeReference | RubricReference:
    """What the task's verifier checks a response against; VerifierError when the task lacks it."""
    if task.family not in FAMILIES:
        raise VerifierError(f"task {task.task_id}: unknown family {task.family!r}")
    return FAMILIES[task.family].reference(task)


def verify_tasks(
    verifier: Verifier, tasks: Sequence[Task], responses: Sequence[str]
) -> list[Verdict]:
    """Verify one response per task as one batch (rollout groups: repeat the task per sample)."""
    items = [
        (response, reference_for(task)) for task, response in zip(tasks, responses, strict=True)
    ]
    return verifier.verify_batch(items)
