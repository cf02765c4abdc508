"""Red team round 24: the shared half of the math cases a helper outside the project wrote against
the verifier after round 23 (the held-out half stays outside), each a labelled case (id, kind,
why), then near-variants of each mechanism written here: an inequality reference whose side is a
function or product of the variable (only a bare symbol is a variable; |x| of one is solved
exactly); \\pm signing the next term only; the left side of \\in that is not one variable; an exact
fraction that only rounds to a six-place float reference; environments that are no matrix (aligned,
cases, a bare array) and a system's solution written in cases; bold and underline around a number;
units one word names two of (ton and tonne, US and imperial gallons, mile and nautical mile)."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

from stages.verifiers.registry import build_verifier

DATA = Path(__file__).parent / "data"
# this round's rows name their mechanism "kind" and their label "expected"; `check` reads them as
# "mechanism" and "expect"
CASES = [
    {**case, "mechanism": case["kind"], "expect": case["expected"]}
    for case in load(DATA / "shared_round24_math.jsonl")
]
VERIFIER = build_verifier({"kind": "math"})
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)


def box(answer: str) -> str:
    return f"So the answer is $\\boxed{{{answer}}}$."


PMATRIX = "\\begin{pmatrix} 5 \\\\ 6 \\end{pmatrix}"
# (response, reference)
WRONG = [
    # 1. a function or product of the variable read as the variable
    (box("(-\\infty, 5]"), "|x| \\le 5"),
    (box("(2, \\infty)"), "|x| > 2"),
    (box("(-\\infty, 2)"), "2 > |x|"),
    (box("(-\\infty, 2)"), "\\sqrt{x} < 2"),
    (box("(-\\infty, 0)"), "e^x < 1"),
    (box("(-\\infty, 4)"), "x^2 < 4"),
    (box("(0, \\infty)"), "\\ln x > 0"),
    (box("(-\\infty, 6)"), "2x < 6"),
    (box("(-\\infty, 1)"), "\\frac{x}{y} < 1"),
    (box("(-\\infty, 4)"), "x(y) < 4"),
    (box("[-1, 1]"), "|\\sin x| \\le 1"),
    (box("[-3, -2] \\cup [2, 3]"), "2 \\le |x^2| \\le 3"),
    (box("(-3, 3)"), "|x| \\le 3"),
    (box("[-3, 3]"), "|x| < 3"),
    (box("(-\\infty, -2) \\cup (2, \\infty)"), "|x| < 2"),
    # 2. \pm signs the next term only
    (box("\\pm\\sqrt{3} + 2"), "\\{\\sqrt{3}+2, -\\sqrt{3}-2\\}"),
    (box("\\pm 2\\sqrt{2} - 1"), "\\{2\\sqrt{2}-1, 1-2\\sqrt{2}\\}"),
    (box("3 \\pm \\sqrt{7} - 1"), "\\{\\sqrt{7}+2, 4-\\sqrt{7}\\}"),
    (box("x = \\pm\\sqrt{5} - 1"), "\\{\\sqrt{5}-1, 1-\\sqrt{5}\\}"),
    (box("\\pm 1 \\pm \\sqrt{2}"), "\\{1+\\sqrt{2}, -1-\\sqrt{2}\\}"),
    # 3. the left side of \in is not one variable
    (box("x^2 \\in [0, 4]"), "[0, 4]"),
    (box("2x \\in (1, 3)"), "(1, 3)"),
    (box("|x| \\in [1, 2]"), "[1, 2]"),
    (box("x + 1 \\in \\{2, 3\\}"), "\\{2, 3\\}"),
    (box("0 < x \\in (0, 1)"), "(0, 1)"),
    # 4. an exact fraction that only rounds to a six-place float reference
    (box("\\frac{333}{106}"), "3.141509"),
    (box("\\frac{103993}{33102}"), "3.141593"),
    (box("\\frac{577}{408}"), "1.414216"),
    (box("\\frac{8119}{5741}"), "1.414214"),
    (box("\\frac{878}{323}"), "2.718266"),
    (box("\\frac{1264}{465}"), "2.718280"),
    # 5. environments that are no matrix, and cases that are no system's solution
    (
        box("\\begin{aligned} 1 & 2 \\\\ 3 & 4 \\end{aligned}"),
        "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
    ),
    (box("\\begin{split} 5 \\\\ 6 \\end{split}"), PMATRIX),
    (box("\\begin{cases} 5 & 6 \\end{cases}"), "(5, 6)"),
    (box("\\begin{array}{c} 5 \\\\ 6 \\end{array}"), PMATRIX),
    (box("\\begin{gathered} 5 \\\\ 6 \\end{gathered}"), PMATRIX),
    (box("\\begin{cases} y = 6 \\\\ x = 5 \\end{cases}"), "(5, 6)"),
    (box("\\begin{cases} x = 6 \\\\ y = 5 \\end{cases}"), "(5, 6)"),
    (box("\\begin{cases} x = 5 \\\\ x = 6 \\end{cases}"), "5"),
    (box("\\begin{cases} x = 5 & x > 0 \\\\ y = 6 \\end{cases}"), "(5, 6)"),
    (box("\\begin{cases} x = 5 \\end{cases}"), "(5, 6)"),
    # 6. a bold number is its value: another value is still wrong
    (box("\\boldsymbol{7}"), "6"),
    (box("\\bm{41}"), "42"),
    (box("\\underline{5}"), "6"),
    # 7. one word for two units
    (box("4 \\text{ tonnes}"), "4 \\text{ tons}"),
    (box("2 \\text{ tons}"), "2 \\text{ metric tons}"),
    (box("2 \\text{ long tons}"), "2 \\text{ tons}"),
    (box("2 \\text{ short tons}"), "2 \\text{ tonnes}"),
    (box("5 \\text{ imperial gallons}"), "5 \\text{ gallons}"),
    (box("5 \\text{ gallons}"), "5 \\text{ imperial gallons}"),
    (box("3 \\text{ nautical miles}"), "3 \\text{ miles}"),
    (box("2 \\text{ imperial pints}"), "2 \\text{ pints}"),
    (box("2 \\text{ troy ounces}"), "2 \\text{ oz}"),
    (box("2 \\text{ fl oz}"), "2 \\text{ oz}"),
    ("The price is ¥100.", "100 \\text{ yen}"),
]
RIGHT = [
    # 1. |x| of one variable solved exactly; a bare variable as before
    (box("(-5, 5)"), "|x| < 5"),
    (box("[-4, 4]"), "|x| \\le 4"),
    (box("(-2, 2)"), "2 > |x|"),
    (box("(-\\infty, -2) \\cup (2, \\infty)"), "|x| > 2"),
    (box("(-\\infty, -2] \\cup [2, \\infty)"), "2 \\le |x|"),
    (box("[-3, -1] \\cup [1, 3]"), "1 \\le |x| \\le 3"),
    (box("(-\\infty, 3)"), "x < 3"),
    (box("(0, 1)"), "0 < f(x) < 1"),  # the range of f (Math-Verify agrees)
    (box("[2, 5)"), "2 \\le x < 5"),
    # 2. \pm signs the next term only
    (box("\\pm\\sqrt{5} - 1"), "\\{\\sqrt{5}-1, -1-\\sqrt{5}\\}"),
    (box("\\pm\\sqrt{3} + 2"), "2 + \\sqrt{3}, 2 - \\sqrt{3}"),
    (box("3 \\pm \\sqrt{7} - 1"), "2 \\pm \\sqrt{7}"),
    (box("1 \\pm \\sqrt{19}"), "1 + \\sqrt{19}, 1 - \\sqrt{19}"),
    (box("\\pm 7"), "\\{7, -7\\}"),
    (box("x = \\pm 3"), "\\{3, -3\\}"),
    (box("\\frac{-1 \\pm \\sqrt{5}}{2}"), "\\frac{-1+\\sqrt5}{2}, \\frac{-1-\\sqrt5}{2}"),
    # 3. one variable in \in
    (box("x \\in [0, 1)"), "[0, 1)"),
    (box("x \\in (-\\infty, 2]"), "(-\\infty, 2]"),
    # 4. fractions of small denominators for six-place references
    (box("\\frac{1}{3}"), "0.333333"),
    (box("\\frac{22}{7}"), "3.142857"),
    (box("\\frac{2}{7}"), "0.285714"),
    (box("\\frac{1}{97}"), "0.010309"),
    # 5. matrices, a bracketed array, a system's solution in cases or aligned
    (box("\\begin{bmatrix} 5 \\\\ 6 \\end{bmatrix}"), PMATRIX),
    (box("\\left(\\begin{array}{c} 5 \\\\ 6 \\end{array}\\right)"), PMATRIX),
    (box("\\begin{cases} x = 5 \\\\ y = 6 \\end{cases}"), "(5, 6)"),
    (box("\\begin{cases} a = 1 \\\\ b = -2 \\\\ c = 3 \\end{cases}"), "(1, -2, 3)"),
    (box("\\begin{aligned} x &= 5 \\\\ y &= 6 \\end{aligned}"), "(5, 6)"),
    (box("\\begin{cases} x = 5 \\\\ y = 6 \\end{cases}"), "x = 5, y = 6"),
    # 6. bold and underline are presentation
    (box("\\boldsymbol{7}"), "7"),
    (box("\\bm{\\frac{1}{2}}"), "\\frac{1}{2}"),
    (box("\\pmb{3}"), "3"),
    (box("\\underline{12}"), "12"),
    ("The answer is $\\boldsymbol{12}$.", "12"),
    # 7. the same unit, or one converted exactly
    (box("4 \\text{ tons}"), "4 \\text{ tons}"),
    (box("4 \\text{ metric tons}"), "4 \\text{ tonnes}"),
    (box("3000 \\text{ kg}"), "3 \\text{ tonnes}"),
    (box("2000 \\text{ lb}"), "1 \\text{ short ton}"),
    (box("5 \\text{ gallons}"), "5 \\text{ US gallons}"),
    (box("3 \\text{ nautical miles}"), "3 \\text{ nautical miles}"),
    ("The price is ¥100.", "¥100"),
]


@pytest.mark.parametrize(
    ("response", "reference"), WRONG, ids=[f"wrong{i}" for i in range(len(WRONG))]
)
def test_the_round_24_variant_is_not_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert not verdict.passed, verdict.reason


@pytest.mark.parametrize(
    ("response", "reference"), RIGHT, ids=[f"right{i}" for i in range(len(RIGHT))]
)
def test_the_round_24_right_answer_is_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert verdict.passed, verdict.reason
