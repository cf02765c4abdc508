"""Red team round 26: the shared half of the math cases a helper outside the project wrote against
the verifier after round 25 (the held-out half stays outside), each a labelled case (id, kind,
why), then near-variants of each mechanism written here: a null delimiter's dot (\\left.5) read as
a decimal point; a braced subscript gluing the next character on (a_{1}2 as a_{12}); a trailing
ellipsis ("3.14...", "1, 2, 3, ...") trimmed as a full stop; a relative tolerance wider than the
reference's stated decimal places; a/b\\% read as a/(b%); a percent for a counted noun; capital
letter runs (XYZ) folded to lowercase; Greek ν folded to Latin v; and right answers refused:
v_{0}t, x_{1}x_{2}, \\frac12 at^2, ax+by, 2|x|, hν, 2θ."""

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
    for case in load(DATA / "shared_round26_math.jsonl")
]
VERIFIER = build_verifier({"kind": "math"})
OPEN: dict[str, str] = {
    "m26-031": "a run of letters (bca) is compared as text: an anagram of a word is no product",
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)


# (response, reference)
WRONG = [
    # 1. the dot after \\left, \\right, \\big.. is a null delimiter, no decimal point
    ("The answer is $\\boxed{\\left.5\\right.}$.", "0.5"),
    ("The answer is $\\boxed{\\Big.7}$.", "0.7"),
    ("The answer is $\\boxed{\\bigl.12\\bigr|}$.", "0.12"),
    ("The answer is $\\boxed{\\Bigl. 25 \\Bigr.}$.", "0.25"),
    ("The answer is $\\boxed{\\biggl.3\\biggr.}$.", "0.3"),
    ("The answer is $\\left.75\\right.$", "0.75"),
    # 2. a braced subscript ends at its brace: what follows is another factor
    ("The answer is $\\boxed{a_{1}2}$.", "a_{12}"),
    ("The answer is $\\boxed{x_{n}y}$.", "x_{ny}"),
    ("The answer is $\\boxed{a₁0}$.", "a_{10}"),
    ("The answer is $\\boxed{b_{2}3}$.", "b_{23}"),
    ("The answer is $\\boxed{x_{i}j}$.", "x_{ij}"),
    # 3. a trailing ellipsis goes on: no exact decimal, no finite list
    ("The answer is $\\boxed{3.14...}$", "3.14"),
    ("The answer is 0.54…", "0.54"),
    ("Final Answer: 2.7...", "2.7"),
    ("Final Answer: 1.732...", "1.732"),
    ("The answer is $\\boxed{2.71\\ldots}$", "2.71"),
    ("The answer is $\\boxed{1, 2, 3, ...}$.", "1, 2, 3"),
    ("The answer is 2, 4, 6, …", "2, 4, 6"),
    ("Final Answer: 1, 3, 5, \\dots", "1, 3, 5"),
    ("The answer is 3.14....", "3.14"),
    # 4. a tolerance never wider than the reference's last stated decimal place
    ("The answer is $\\boxed{1234567890 + \\frac{\\pi}{3}}$.", "1234567890.123456"),
    ("The answer is $\\boxed{10^{10}\\pi + \\frac{1}{2}}$.", "31415926535.897932"),
    ("The answer is $\\boxed{9876543210 + \\frac{1}{3}}$.", "9876543210.5"),
    ("The answer is $\\boxed{-10^{10}\\pi - 1}$.", "-31415926535.897932"),
    # 5. a/b% is (a/b)%, as \\frac{a}{b}\\% is
    ("The rate is $\\boxed{x/4\\%}$.", "25x"),
    ("The answer is $\\boxed{\\pi/2\\%}$.", "50\\pi"),
    ("The answer is $\\boxed{y/5\\%}$.", "20y"),
    # 6. a percent is no count of a noun
    ("The answer is $\\boxed{18\\%}$.", "18 \\text{ apples}"),
    ("The answer is 18%.", "18 apples"),
    ("The answer is 12 percent.", "12 students"),
    # 7. an all-capital run of letters that is no word keeps its case
    ("The answer is $\\boxed{XYZ}$.", "xyz"),
    ("The volume is $\\boxed{LWH}$.", "lwh"),
    ("The answer is $\\boxed{ABC}$.", "abc"),
    ("The answer is $\\boxed{xyz}$.", "XYZ"),
    ("The answer is $\\boxed{Xyz}$.", "xyz"),
    ("The answer is $\\boxed{PQR}$.", "pqr"),
    # 8. Greek ν is \\nu, no Latin v
    ("The answer is $\\boxed{\\frac{ν}{2}}$.", "\\frac{v}{2}"),
    ("The answer is $\\boxed{3ν}$.", "3v"),
    ("The answer is $\\boxed{ν^2}$.", "v^2"),
    ("The answer is $\\boxed{2ω}$.", "2w"),
    ("The answer is $\\boxed{2α}$.", "2a"),
    ("The answer is $\\boxed{αx}$.", "ax"),
    ("The answer is $\\boxed{xτ}$.", "xt"),
    # 9. "at", "by" among other math are products of letters; a bar outside |...| opens one
    ("The answer is $\\boxed{\\frac{1}{2}at^2}$.", "\\frac{1}{2}(at)^2"),
    ("The answer is $\\boxed{2|x|}$.", "2x"),
    ("The answer is $\\boxed{\\frac{1}{2}|x|}$.", "\\frac{x}{2}"),
]
RIGHT = [
    # 1. the dot after \\left, \\right, \\big.. is a null delimiter, no decimal point
    ("The answer is $\\boxed{\\left.5\\right.}$.", "5"),
    ("The answer is $\\boxed{\\Big.7}$.", "7"),
    ("The answer is $\\boxed{\\left(0.5\\right)}$.", "0.5"),
    ("The answer is $\\boxed{\\biggl.3\\biggr.}$.", "3"),
    # 2. a braced subscript ends at its brace: what follows is another factor
    ("The answer is $\\boxed{v_{0}t}$.", "v_0 t"),
    ("The answer is $\\boxed{x_{1}x_{2}}$.", "x_1 x_2"),
    ("The answer is $\\boxed{a_{1}b}$.", "a_1 b"),
    ("The answer is $\\boxed{x_{n}y}$.", "y x_n"),
    ("The answer is $\\boxed{a_{12}}$.", "a_{12}"),
    ("The answer is $\\boxed{x_{1}+x_{2}}$.", "x_1+x_2"),
    # 3. a trailing ellipsis goes on: no exact decimal, no finite list
    ("The answer is 0.333...", "\\frac13"),
    ("The answer is $\\boxed{0.1666\\ldots}$.", "\\frac16"),
    ("The answer is 2.7.", "2.7"),
    ("Answer: $5$.", "5"),
    # 4. a tolerance never wider than the reference's last stated decimal place
    ("The answer is $\\boxed{10^{10}\\pi}$.", "31415926535.897932"),
    ("The answer is $\\boxed{1234567890.123456}$.", "1234567890.123456"),
    # 5. a/b% is (a/b)%, as \\frac{a}{b}\\% is
    ("The answer is $\\boxed{3/4\\%}$.", "\\frac{3}{4}\\%"),
    ("The answer is $\\boxed{\\pi/2\\%}$.", "\\frac{\\pi}{2}\\%"),
    ("The answer is $\\boxed{0.75\\%}$.", "\\frac{3}{4}\\%"),
    # 6. a percent is no count of a noun
    ("The answer is $\\boxed{18}$.", "18 apples"),
    ("The answer is $\\boxed{25\\%}$.", "25\\%"),
    # 7. an all-capital run of letters that is no word keeps its case
    ("The answer is $\\boxed{EVEN}$.", "even"),
    ("The answer is $\\boxed{Even}$.", "even"),
    ("The answer is $\\boxed{Left}$.", "left"),
    ("The answer is $\\boxed{YES}$.", "yes"),
    ("The answer is $\\boxed{xyz}$.", "xyz"),
    # 8. Greek ν is \\nu, no Latin v; Unicode Greek letters are their commands
    ("The answer is $\\boxed{hν}$.", "h\\nu"),
    ("The answer is $\\boxed{2πν}$.", "2\\pi\\nu"),
    ("The answer is $\\boxed{2θ}$.", "2\\theta"),
    ("The answer is $\\boxed{λ/2}$.", "\\frac{\\lambda}{2}"),
    ("The answer is $\\boxed{αβ}$.", "\\alpha\\beta"),
    ("The answer is $\\boxed{Δx}$.", "\\Delta x"),
    ("The answer is $\\boxed{αx}$.", "\\alpha x"),
    ("The answer is $\\boxed{3ν + 1}$.", "3\\nu+1"),
    # 9. "at", "by" among other math are products of letters; a bar outside |...| opens one
    ("The answer is $\\boxed{\\frac{1}{2}at^2}$.", "\\frac{1}{2}a t^2"),
    ("The answer is $\\boxed{ax+by}$.", "a x + b y"),
    ("The answer is $\\boxed{by^2 + c}$.", "b y^2 + c"),
    ("The answer is $\\boxed{\\frac{1}{2}|x|}$.", "\\frac{|x|}{2}"),
    ("The answer is $\\boxed{2|x|}$.", "|2x|"),
    ("The answer is $\\boxed{|x|y}$.", "y|x|"),
    ("The answer is $\\boxed{|x-1|+|x+1|}$.", "|x+1|+|x-1|"),
]


@pytest.mark.parametrize(
    ("response", "reference"), WRONG, ids=[f"wrong{i}" for i in range(len(WRONG))]
)
def test_the_round_26_variant_is_not_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert not verdict.passed, verdict.reason


@pytest.mark.parametrize(
    ("response", "reference"), RIGHT, ids=[f"right{i}" for i in range(len(RIGHT))]
)
def test_the_round_26_right_answer_is_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert verdict.passed, verdict.reason
