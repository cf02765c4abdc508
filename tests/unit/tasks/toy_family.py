"""A task family defined outside the product, as a user would add one: "parity", the parity of a
bit string (`{"bits": "1011"}` per JSONL line; answer `odd` or `even`), checked by exact match.
Everything the family needs is this one class; tests register it with one line."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stages.tasks.families.base import TaskFamily
from stages.tasks.rows import make_task, require
from stages.tasks.types import RecordError, Task, TaskFormatError, record_text


def parity(bits: str) -> str:
    return "odd" if bits.count("1") % 2 else "even"


def _bits(value: str, problem: Any) -> str:
    if not value or set(value) - {"0", "1"}:
        raise problem
    return value


class ParityFamily(TaskFamily):
    name = "parity"
    verifier_kind = "exact"
    row_keys = frozenset({"bits"})
    file_format = True

    def parse_row(self, path: str, line: int, index: int, obj: Any) -> Task:
        bits = require(path, line, obj, "bits")
        _bits(bits, TaskFormatError(path, line, "bits", f"expected 0s and 1s, got {bits!r:.40}"))
        return make_task(
            path,
            line,
            task_id=f"{Path(path).stem}-{index}",
            family=self.name,
            prompt=f"parity of {bits}?",
            answer=parity(bits),
            category=f"{len(bits)}bits",
        )

    def check_reference(self, record: Mapping[str, Any]) -> str:
        bits = record_text(record, "bits")
        return parity(_bits(bits, RecordError(f"field 'bits' must be 0s and 1s, got {bits!r:.40}")))

    def near_misses(
        self, task: Task, other_answers: Sequence[str], rng: random.Random
    ) -> list[tuple[str, str]]:
        wrong = "even" if task.answer == "odd" else "odd"
        return [("flipped", wrong), ("hedge", f"{task.answer} or {wrong}")]

    def right_forms(self, task: Task) -> list[tuple[str, str]]:
        return [("equivalent", task.answer or ""), ("equivalent", f" {task.answer}\n")]


PARITY = ParityFamily()
