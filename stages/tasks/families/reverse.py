"""Reversing a three-digit string (the capability benchmark RL never trains on), exact match."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from stages.tasks.families.base import TaskFamily
from stages.tasks.generators import generate_reversal
from stages.tasks.types import Task


class ReverseFamily(TaskFamily):
    name = "reverse"
    verifier_kind = "exact"

    def generate(self, params: Mapping[str, str]) -> list[Task]:
        return generate_reversal(params.get("template", "rev {s}="))

    def near_misses(
        self, task: Task, other_answers: Sequence[str], rng: random.Random
    ) -> list[tuple[str, str]]:
        answer = task.answer or ""
        pairs = [("echo", answer[::-1])] if answer[::-1] != answer else []
        pairs.append(("perturbed", answer[:-1] + str((int(answer[-1]) + 1) % 10)))
        return pairs

    def right_forms(self, task: Task) -> list[tuple[str, str]]:
        return [("equivalent", task.answer or ""), ("equivalent", f" {task.answer or ''}\n")]


REVERSE = ReverseFamily()
