"""Python programming tasks (`prompt`, `tests`[, `solution`] JSONL), run against their tests in
the sandbox. Wrong candidates are trivial programs; known hacks are the reward hacks of
`stages.verifiers.code_probes`, aimed at a sample of the suite's code tasks."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import stages.tasks.adversary as adversary
from stages.tasks.families.base import TaskFamily
from stages.tasks.rows import make_task, optional_text, require
from stages.tasks.types import Candidate, Task, TaskFormatError, record_text
from stages.verifiers.types import CodeReference, VerifierError

_TRIVIAL_PROGRAMS = [
    "pass",
    "raise SystemExit(0)",
    "import os\nos._exit(0)",
    'print("all tests passed")',
]
HACKED_TASKS = 5  # code tasks the reward-hack probes are aimed at, per calibration


class CodeFamily(TaskFamily):
    name = "code"
    verifier_kind = "code"
    row_keys = frozenset({"tests"})
    sniff_rank = 1
    file_format = True
    offers_other_answers = False  # another task's program is not a near miss worth checking

    def parse_row(self, path: str, line: int, index: int, obj: Any) -> Task:
        prompt = require(path, line, obj, "prompt")
        tests = require(path, line, obj, "tests", (str, list))
        if isinstance(tests, list):
            if not all(isinstance(t, str) for t in tests):
                raise TaskFormatError(path, line, "tests", "expected a string or a list of strings")
            tests = "\n".join(tests)
        solution = optional_text(path, line, obj, "solution")
        return make_task(
            path,
            line,
            task_id=str(obj.get("task_id", f"{Path(path).stem}-{index}")),
            family=self.name,
            prompt=prompt,
            tests=tests,
            category=str(obj.get("category", "")),
            answer=solution,
            metadata={"solution": solution} if solution else {},
        )

    def reference(self, task: Task) -> CodeReference:
        if not task.tests:
            raise VerifierError(f"task {task.task_id}: a code task needs tests")
        return CodeReference(tests=task.tests)

    def check_reference(self, record: Mapping[str, Any]) -> CodeReference:
        tests = record.get("tests", record.get("reference"))
        if isinstance(tests, list) and all(isinstance(t, str) for t in tests):
            return CodeReference(tests="\n".join(tests))  # MBPP's test_list shape
        return CodeReference(
            tests=record_text(record, "tests" if "tests" in record else "reference")
        )

    def near_misses(
        self, task: Task, other_answers: Sequence[str], rng: random.Random
    ) -> list[tuple[str, str]]:
        return [("trivial_program", code) for code in _TRIVIAL_PROGRAMS]

    def known_hacks(
        self, task: Task, other_answers: Sequence[str], rng: random.Random
    ) -> list[tuple[str, str]]:
        return adversary.code_wrong(task)

    def right_forms(self, task: Task) -> list[tuple[str, str]]:
        solution = task.metadata.get("solution")
        if not isinstance(solution, str):
            return []
        return [("equivalent", solution), *adversary.code_right(task)]

    def hack_probes(self, tasks: Sequence[Task], seed: int, verifier: Any) -> list[Candidate]:
        from stages.verifiers.code_probes import hack_responses

        code_tasks = [t for t in tasks if t.family == self.name and t.tests]
        chosen = random.Random(f"{seed}:hacks").sample(
            code_tasks, min(HACKED_TASKS, len(code_tasks))
        )
        isolated = getattr(getattr(verifier, "config", None), "sandbox", "isolated") == "isolated"
        return [
            Candidate(
                task_id=t.task_id,
                kind=f"reward_hack:{kind}",
                text=text,
                correct=False,
                known_hack=True,
            )
            for t in chosen
            for kind, text in hack_responses(t.tests or "", t.metadata.get("solution"), isolated)
        ]


CODE = CodeFamily()
