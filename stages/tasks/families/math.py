"""Math word problems (`prompt`, `answer` JSONL), checked by the sympy math verifier.

Wrong candidates are the ways a policy games a numeric reward: near-miss numbers, the wrong sign,
hedges ("3 or 4"), several conflicting final answers, and the problem's own expression echoed back
unevaluated. Known hacks are kinds that fooled extraction on real model output (issue 15)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import stages.tasks.adversary_math as adversary_math
from stages.tasks.families.base import TaskFamily
from stages.tasks.rows import make_task, optional_int, require
from stages.tasks.types import Task

EXPRESSION = re.compile(r"\d+(?:\s*[-+*/×÷^]\s*\d+)+")
_INT = re.compile(r"^-?\d+$")


def numeric(answer: str) -> Fraction | None:
    try:
        return (
            Fraction(answer.strip())
            if re.fullmatch(r"-?\d+(?:\.\d+)?(?:/\d+)?", answer.strip())
            else None
        )
    except (ValueError, ZeroDivisionError):
        return None


def _fmt(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else str(value)


def _numeric_wrong(answer: str, value: Fraction, rng: random.Random) -> list[tuple[str, str]]:
    out = [("perturbed", _fmt(value + d)) for d in (1, -1, 10, -10)]
    out.append(("perturbed", _fmt(value + rng.choice([2, 3, 7, 11]))))
    if value != 0:
        out.append(("wrong_sign", _fmt(-value)))
    digits = answer.lstrip("-")
    if _INT.match(answer) and len(digits) >= 2 and digits[-1] != digits[-2]:
        swapped = digits[:-2] + digits[-1] + digits[-2]
        out.append(("perturbed", ("-" if answer.startswith("-") else "") + swapped))
    return out


def _hack_probes(answer: str, value: Fraction | None, wrong: str | None) -> list[tuple[str, str]]:
    """The reference's digits inside a LaTeX expression, finals that disagree across formats, a
    false equation in a box, and an interval with its ends flipped between open and closed."""
    out: list[tuple[str, str]] = []
    if value is not None and wrong is not None:
        if value != 0:  # (n+1)/n never equals n for a rational n
            out.append(
                (
                    "digits_inside_latex",
                    f"each friend gets $\\frac{{{_fmt(value + 1)}}}{{{answer}}}$",
                )
            )
            out.append(
                ("digits_inside_latex", f"so the value is \\frac{{{_fmt(value + 1)}}}{{{answer}}}")
            )
        if value not in (0, 1):
            out.append(("digits_inside_latex", f"$\\sqrt{{{answer}}}$"))
        if _INT.match(answer):
            out.append(("digits_inside_latex", f"AZYUK{answer.lstrip('-')}A"))
        out += [
            ("conflicting_formats", f"Answer: {wrong}\n\\boxed{{{answer}}}\nAnswer: {wrong}"),
            ("conflicting_formats", f"#### {wrong}\nThe answer is {answer}."),
            ("conflicting_formats", f"\\boxed{{{answer}}}\n#### {wrong}"),
            ("conflicting_formats", f"The answer is {wrong}. Actually {answer}."),
            ("conflicting_formats", f"The answer is {answer}. Actually, {wrong}."),
            ("equation_in_box", f"\\boxed{{{wrong} = {answer}}}"),
        ]
    text = answer.strip()
    if len(text) > 2 and text[0] in "([" and text[-1] in ")]" and text.count(",") == 1:
        flip = {"(": "[", "[": "(", ")": "]", "]": ")"}
        inner = text[1:-1]
        out += [
            ("interval_ends", flip[text[0]] + inner + text[-1]),
            ("interval_ends", text[0] + inner + flip[text[-1]]),
            ("interval_ends", flip[text[0]] + inner + flip[text[-1]]),
        ]
    return out


class MathFamily(TaskFamily):
    name = "math"
    verifier_kind = "math"
    row_keys = frozenset({"answer"})
    sniff_rank = 2
    file_format = True

    def parse_row(self, path: str, line: int, index: int, obj: Any) -> Task:
        prompt = require(path, line, obj, "prompt")
        answer = require(path, line, obj, "answer", (str, int, float))
        return make_task(
            path,
            line,
            task_id=str(obj.get("task_id", f"{Path(path).stem}-{index}")),
            family=self.name,
            prompt=prompt,
            answer=str(answer),
            category=str(obj.get("category", "")),
            difficulty=optional_int(path, line, obj, "difficulty", 0),
        )

    def reward_components(self) -> dict[str, Callable[[str, Task], float]]:
        return {"format": self.stated_final}

    def stated_final(self, response: str, task: Task) -> float:
        """`format`: 1 when the response states one final answer in a final form (`\\boxed{}`,
        an `Answer:` line, `####`) that extraction accepts: no conflicting or hedged finals."""
        from stages.verifiers.math_extract import extract_answer
        from stages.verifiers.math_read import OR_WORD

        text = extract_answer(response, ("boxed", "answer_line")).text
        # "12 or 13" reads as a set (it answers a set reference); as a form it is a hedge
        return float(text is not None and not ("=" not in text and OR_WORD.search(text)))

    def near_misses(
        self, task: Task, other_answers: Sequence[str], rng: random.Random
    ) -> list[tuple[str, str]]:
        answer = task.answer or ""
        value = numeric(answer)
        if value is None:
            if not answer:
                return []
            return [("hedge", f"{answer} or {other_answers[0] if other_answers else 'none'}")]
        pairs = _numeric_wrong(answer, value, rng)
        wrong = pairs[0][1]
        pairs += [("hedge", f"{answer} or {wrong}"), ("hedge", f"{wrong} or {answer}")]
        pairs += [
            ("conflicting", f"Answer: {wrong}\nAnswer: {answer}"),
            ("conflicting", f"\\boxed{{{answer}}} \\boxed{{{wrong}}}"),
            ("conflicting", f"{wrong}\n{answer}"),
        ]
        for expr in EXPRESSION.findall(task.prompt)[-1:]:
            pairs += [
                ("echo", expr.strip()),
                ("echo", f"Answer: {expr.strip()}"),
                ("echo", f"\\boxed{{{expr.strip()}}}"),
            ]
        pairs.append(("injection", "__import__('os').system('true')"))
        return pairs

    def known_hacks(
        self, task: Task, other_answers: Sequence[str], rng: random.Random
    ) -> list[tuple[str, str]]:
        answer = task.answer or ""
        value = numeric(answer)
        # The same near miss `near_misses` hedges with: the reference plus one.
        wrong = _fmt(value + 1) if value is not None else None
        return [*_hack_probes(answer, value, wrong), *adversary_math.wrong_variants(answer, rng)]

    def same_answer(self, task: Task, other: str) -> bool:
        value = numeric(task.answer or "")
        return super().same_answer(task, other) or (value is not None and numeric(other) == value)

    def right_forms(self, task: Task) -> list[tuple[str, str]]:
        answer = task.answer or ""
        forms = [answer, f"Answer: {answer}", f"\\boxed{{{answer}}}", f"The answer is {answer}."]
        value = numeric(answer)
        if value is not None and value.denominator == 1:
            forms.append(f"{answer}.0")
        echoes = EXPRESSION.findall(task.prompt)
        if echoes and value is not None:
            forms.append(f"{echoes[-1].strip()} = {answer}")
        return [("equivalent", f) for f in forms] + adversary_math.right_variants(answer)


MATH = MathFamily()
