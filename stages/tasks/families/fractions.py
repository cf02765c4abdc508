"""Fraction sums answered in LaTeX (`3/7+2/7=` -> `\\frac{5}{7}`), generated: a LaTeX-answer family
on which the embedded model can show a held-out gain. Its teacher makes the classic systematic
error on improper sums (numerator sum >= denominator): it adds the denominators too
(`\\frac{12}{14}` for 5/7+7/7), with probability `teacher.carry_error` (`noise = "forgets_carry"`,
the same knob as arithmetic's forgotten carry). Proper sums are taught right, so the model learns
the rule there and puts mass on both answers on improper ones; the math verifier's equivalence
(`\\frac{6}{4}` = `\\frac{3}{2}`) checks the answer, so the unreduced sum the teacher writes is
right."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction

from stages.tasks.families.math import MathFamily
from stages.tasks.types import Task

_FRAC = re.compile(r"\\frac\{(\d+)\}\{(\d+)\}")

NUMERATORS = range(1, 10)
DENOMINATORS = range(2, 16)


def fraction_sum_task(a: int, c: int, b: int) -> Task:
    improper = a + c >= b
    return Task(
        task_id=f"frac-{a}+{c}over{b}",
        family="fractions",
        prompt=f"{a}/{b}+{c}/{b}=",
        answer=f"\\frac{{{a + c}}}{{{b}}}",
        category="improper" if improper else "proper",
        difficulty=1,
        metadata={
            "a": a, "c": c, "b": b, "op": "+", "has_carry": improper,
            # Adding across: numerators and denominators both summed.
            "teacher_mistake": f"\\frac{{{a + c}}}{{{2 * b}}}",
        },
    )  # fmt: skip


class FractionsFamily(MathFamily):
    name = "fractions"
    row_keys = None  # generated; a math-shaped file is "math"
    file_format = False

    def same_answer(self, task: Task, other: str) -> bool:
        """Equal in value: another task's `\\frac{15}{3}` is right for 4/2+6/2 (calibration must
        not count it as a wrong answer the verifier accepted)."""
        match = _FRAC.fullmatch(other)
        value = Fraction(task.metadata["a"] + task.metadata["c"], task.metadata["b"])
        return super().same_answer(task, other) or (
            match is not None and Fraction(int(match[1]), int(match[2])) == value
        )

    def near_misses(
        self, task: Task, other_answers: Sequence[str], rng: random.Random
    ) -> list[tuple[str, str]]:
        """Math's hedge, plus the teacher's own mistake: the verifier must fail what RL unlearns."""
        mistake = ("denominators_added", str(task.metadata["teacher_mistake"]))
        return [*super().near_misses(task, other_answers, rng), mistake]

    def generate(self, params: Mapping[str, str]) -> list[Task]:
        return [
            fraction_sum_task(a, c, b) for b in DENOMINATORS for a in NUMERATORS for c in NUMERATORS
        ]


FRACTIONS = FractionsFamily()
