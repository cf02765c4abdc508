"""Open-ended prompts graded by an LLM judge against numbered rubric criteria (tinker-cookbook's
rubric JSON: a list of objects with `task_id`, `prompt` and keys `"rubric - N. criterion"`; real
files hold unescaped tabs inside strings, hence the loader's `strict=False`)."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import stages.tasks.adversary as adversary
from stages.tasks.families.base import TaskFamily
from stages.tasks.rows import make_task, optional_text, read_json_array, require
from stages.tasks.types import RecordError, Task, TaskFormatError
from stages.verifiers.types import RubricReference, VerifierError

RUBRIC_KEY = re.compile(r"^rubric\s*-\s*(\d+)\.\s*criterion$")


class RubricFamily(TaskFamily):
    name = "rubric"
    verifier_kind = "rubric"
    sniff_rank = 3
    file_format = True

    def claims_row(self, keys: set[str]) -> bool:
        return any(RUBRIC_KEY.match(k) for k in keys)

    def parse_row(self, path: str, line: int, index: int, obj: Any) -> Task:
        prompt = require(path, line, obj, "prompt")
        numbered = []
        for key, value in obj.items():
            m = RUBRIC_KEY.match(key.strip())
            if m:
                if not isinstance(value, str):
                    raise TaskFormatError(path, line, key, f"expected a string, got {value!r:.60}")
                if value.strip():
                    numbered.append((int(m.group(1)), value.strip()))
        if not numbered:
            raise TaskFormatError(path, line, "rubric - N. criterion", "no rubric keys")
        task_id = str(obj.get("task_id") or f"{Path(path).stem}-{index}")
        return make_task(
            path,
            line,
            task_id=task_id,
            family=self.name,
            prompt=prompt,
            rubrics=[text for _, text in sorted(numbered)],
            category=str(obj.get("category", "")),
            answer=optional_text(path, line, obj, "reference"),
        )

    def claims_file(self, path: Path) -> bool:
        return path.suffix == ".json"

    def load_file(self, path: Path) -> list[Task]:
        """A JSON array (the tinker-cookbook form) or JSONL, one object per line."""
        if path.suffix == ".json":
            return read_json_array(path, self.parse_row)
        return super().load_file(path)

    def reference(self, task: Task) -> RubricReference:
        if not task.rubrics:
            raise VerifierError(f"task {task.task_id}: a rubric task needs rubrics")
        return RubricReference(prompt=task.prompt, rubrics=task.rubrics)

    def check_reference(self, record: Mapping[str, Any]) -> RubricReference:
        rubrics = record.get("rubrics")
        if (
            not isinstance(rubrics, list)
            or not rubrics
            or not all(isinstance(r, str) for r in rubrics)
        ):
            raise RecordError("field 'rubrics' must be a non-empty list of strings")
        return RubricReference(prompt=str(record.get("prompt", "")), rubrics=rubrics)

    def near_misses(
        self, task: Task, other_answers: Sequence[str], rng: random.Random
    ) -> list[tuple[str, str]]:
        return [("refusal", "I cannot help with that."), ("echo", task.prompt)]

    def known_hacks(
        self, task: Task, other_answers: Sequence[str], rng: random.Random
    ) -> list[tuple[str, str]]:
        return adversary.rubric_wrong(task, rng)


RUBRIC = RubricFamily()
