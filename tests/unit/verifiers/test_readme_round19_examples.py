"""The examples README's math section gives for red team round 19's rules: each is judged as the
README says."""

from __future__ import annotations

import pytest

from stages.verifiers.registry import build_verifier

VERIFIER = build_verifier({"kind": "math"})


def _box(answer: str) -> str:
    return f"The answer is $\\boxed{{{answer}}}$."


@pytest.mark.parametrize(
    ("response", "reference"),
    [
        (_box("2e-1"), "2e - 1"),
        ("Answer: 1.5e3", "1500"),
        (_box("x y^2"), "xy^2"),
        (_box("5") + "<|end_of_text|>", "5"),
        (_box("5") + "<|eot|>", "5"),
        (_box("5") + "<eos>", "5"),
        (_box("\\textbf{(C)}\\ 12"), "\\textbf{(C) }12"),
        ("The answer is $5$ hours.", "5"),
    ],
)  # fmt: skip
def test_the_readme_round_19_answers_are_paid(response: str, reference: str) -> None:
    assert VERIFIER.verify(response, reference).passed


@pytest.mark.parametrize(
    ("response", "reference"),
    [
        ("I'm just gu\u200eessing.\n\n" + _box("5"), "5"),
        ("I have n\u0585 idea.\n\n" + _box("5"), "5"),
        (_box("5") + " This is because $x = 6$ or $x = 5$.", "5"),
        (_box("5") + " This is because $x = 6$ and $x - 1 = 5$.", "5"),
        (_box("5"), "\\frac{1}{2e-1}"),
        (_box("x^2y^2"), "xy^2"),
        (_box("\\textbf{(B)}\\ 12"), "\\textbf{(C) }12"),
        (_box("\\textbf{(C)}\\ 13"), "\\textbf{(C) }12"),
    ],
)  # fmt: skip
def test_the_readme_round_19_non_answers_are_not_paid(response: str, reference: str) -> None:
    assert not VERIFIER.verify(response, reference).passed
