"""The examples README's math limits give for red team round 24's rules: an inequality's
variable is one bare symbol or its absolute value, and only the matrix environments are matrices
(`cases` / `aligned` / `gathered` are a system's solution, one `x = 5` a row, or nothing)."""

from __future__ import annotations

import pytest

from stages.verifiers.registry import build_verifier

VERIFIER = build_verifier({"kind": "math"})


def _box(answer: str) -> str:
    return f"The answer is $\\boxed{{{answer}}}$."


@pytest.mark.parametrize(
    ("response", "reference"),
    [
        (_box("[-\\tfrac32, -1] \\cup [1, \\tfrac32]"), "1 \\le |z| \\le \\frac32"),
        (_box("(-3, 3)"), "|x| < 3"),
        (_box("\\begin{cases} x = 5 \\\\ y = 6 \\end{cases}"), "(5, 6)"),
        (_box("\\begin{aligned} x &= 5 \\\\ y &= 6 \\end{aligned}"), "(5, 6)"),
    ],
)  # fmt: skip
def test_the_readme_round_24_answers_are_paid(response: str, reference: str) -> None:
    assert VERIFIER.verify(response, reference).passed


@pytest.mark.parametrize(
    ("response", "reference"),
    [
        (_box("(-\\infty, 1)"), "\\ln x < 1"),
        (_box("(-\\infty, 4)"), "xy < 4"),
        (_box("(-\\infty, 3)"), "|x| < 3"),
        (_box("\\begin{aligned} 5 & 6 \\end{aligned}"), "(5, 6)"),
        (_box("\\begin{cases} 5 \\\\ 6 \\end{cases}"), "\\begin{pmatrix} 5 \\\\ 6 \\end{pmatrix}"),
    ],
)  # fmt: skip
def test_the_readme_round_24_non_answers_are_refused(response: str, reference: str) -> None:
    assert not VERIFIER.verify(response, reference).passed
