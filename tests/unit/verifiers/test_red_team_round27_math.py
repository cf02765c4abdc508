"""Red team round 27: the shared half of the math cases a helper outside the project wrote against
the verifier after round 26 (the held-out half stays outside), each a labelled case (id, kind,
why), then near-variants of each mechanism written here: a rounded answer compared in floats
(98765432109876540.000 'equal' to ...543.5); a ratio read as a point, a list or an interval; a
mixed number with a TeX space (2\\,\\frac{1}{2}) read as a product; x \\in (1, 2) read as the point
(1, 2); an equation times a constant that is 0 though simplify keeps it; a decimal comma in
English prose that lists two values; a subject's complement naming another problem, another source
or a set-aside answer; a parenthetical relative clause dropped unread; and the right answers of
each that stay paid."""

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
    for case in load(DATA / "shared_round27_math.jsonl")
]
VERIFIER = build_verifier({"kind": "math"})
ROUNDING = build_verifier({"kind": "math", "round_exact_references": True})
# cos(pi/7) - cos(2pi/7) + cos(3pi/7) - 1/2, exactly 0 though sympy's simplify keeps it
ZERO = "(\\cos\\frac{\\pi}{7} - \\cos\\frac{2\\pi}{7} + \\cos\\frac{3\\pi}{7} - \\frac{1}{2})"


@pytest.mark.parametrize("case", params(CASES, {}))
def test_case(case: dict) -> None:
    check(case)


# (response, reference)
WRONG = [
    # 1. a rounded answer is compared with the reference exactly, never in floats
    ("The answer is $\\boxed{-98765432109876540.000}$.", "-98765432109876543.5"),
    ("The answer is $\\boxed{98765432109876543.5004}$.", "98765432109876543.5"),
    ("The answer is $\\boxed{123456789012345678000.000}$.", "123456789012345678901.75"),
    ("The answer is $\\boxed{9007199254740993.000}$.", "9007199254740992.9"),
    ("Final Answer: 98765432109876540.000", "98765432109876543.5"),
    # 2. a ratio answers only a ratio
    ("The answer is $\\boxed{(3, 45)}$.", "3:45"),
    ("The answer is $\\boxed{12:00}$.", "(12, 0)"),
    ("The answer is $\\boxed{1:2}$.", "\\{1, 2\\}"),
    ("The answer is $\\boxed{1:2, 3:4}$.", "(1, 2), (3, 4)"),
    ("The answer is $\\boxed{(1, 2), (3, 4)}$.", "1:2, 3:4"),
    ("The answer is $\\boxed{2:1}$.", "2, 1"),
    ("The answer is $\\boxed{x \\in (1, 2)}$.", "1:2"),
    # 3. a mixed number with a TeX space is one number, as 2 \\frac12 is
    ("The answer is $\\boxed{2\\;\\frac{1}{2}\\pi}$.", "\\pi"),
    ("The answer is $\\boxed{2\\!\\frac{1}{2}\\pi}$.", "\\pi"),
    ("The answer is $\\boxed{2\\ \\frac{1}{2}\\pi}$.", "\\pi"),
    ("The answer is $\\boxed{2\\:\\frac{1}{2}\\pi}$.", "\\pi"),
    ("The answer is $\\boxed{{2}\\frac{1}{2}\\pi}$.", "\\pi"),
    ("The answer is $\\boxed{2\\,½\\pi}$.", "\\pi"),
    ("The answer is $\\boxed{4\\,\\frac{1}{4}\\sqrt{3}}$.", "\\sqrt{3}"),
    ("The answer is $\\boxed{2\\quad\\frac{1}{2}\\pi}$.", "\\pi"),
    ("The answer is $\\boxed{2\\,\\frac{1}{2}}$.", "1"),
    # 4. x \\in (a, b) is the open interval, never the point (a, b)
    ("The answer is $\\boxed{x = 3, y = 4}$.", "x \\in (3, 4)"),
    ("The answer is $\\boxed{(x, y) = (1, 2)}$.", "x \\in (1, 2)"),
    ("The answer is $\\boxed{1 \\text{ and } 2}$.", "x \\in (1, 2)"),
    ("The answer is $\\boxed{\\{1, 2\\}}$.", "x \\in (1, 2)"),
    ("The answer is $\\boxed{5:7}$.", "x \\in (5, 7)"),
    ("The answer is $\\boxed{x \\in (1, 2)}$.", "x = 1, y = 2"),
    ("The answer is $\\boxed{[1, 2)}$.", "x \\in (1, 2)"),
    # 5. an equation times a constant is the same equation only where the constant is proven non-zero
    (f"The answer is $\\boxed{{{ZERO}y = {ZERO}(2x+3)}}$.", "y = 2x + 3"),
    (f"The answer is $\\boxed{{{ZERO}(x + y) = {ZERO}}}$.", "x + y = 1"),
    (f"The answer is $\\boxed{{{ZERO}(y - x^2) = 0}}$.", "y = x^2"),
    (f"The answer is $\\boxed{{{ZERO}x < {ZERO}}}$.", "x < 1"),
    # 6. "a,bc" in English prose may list two values: no decimal
    ("The possible values of $n$ are $\\boxed{0,25}$.", "0.25"),
    ("The roots are $\\boxed{2,50}$.", "2.5"),
    ("The answer is $\\boxed{1000,99}$.", "1000.99"),
    ("Roots: $\\boxed{4,50}$", "4.5"),
    ("Final Answer: 0,5", "0.5"),
    ("The solutions are $x = 3,10$.", "3.1"),
    # 7. a complement naming another problem, version, variant, case or part
    ("The answer for the simpler variant is $\\boxed{5}$.", "5"),
    ("The answer for a different problem is $\\boxed{5}$.", "5"),
    ("The answer for the toy version is $\\boxed{5}$.", "5"),
    ("The answer for the case $n = 2$ is $\\boxed{5}$.", "5"),
    ("The value for the modified problem is $\\boxed{5}$.", "5"),
    ("The answer of the related question is $\\boxed{5}$.", "5"),
    ("The result for the special instance is $\\boxed{5}$.", "5"),
    # 8. a complement reporting another source (a relative clause with a subject of its own)
    ("The answer that Bob got is $\\boxed{5}$.", "5"),
    ("The answer that most people give is $\\boxed{5}$.", "5"),
    ("The answer that WolframAlpha shows is $\\boxed{5}$.", "5"),
    ("The answer that ChatGPT gives is $\\boxed{5}$.", "5"),
    ("The value which the program prints is $\\boxed{5}$.", "5"),
    ("The result that Alice computed is $\\boxed{5}$.", "5"),
    ("The answer that everyone expects is $\\boxed{5}$.", "5"),
    # 9. a complement naming a set-aside answer or the answer of a changed problem
    ("The answer that gets eliminated is $\\boxed{5}$.", "5"),
    ("The answer when the sign is flipped is $\\boxed{5}$.", "5"),
    ("The value that violates the constraint is $\\boxed{5}$.", "5"),
    ("The root that fails the substitution check is $\\boxed{5}$.", "5"),
    ("The solution satisfying the second condition is $\\boxed{5}$.", "5"),
    ("The answer that is excluded is $\\boxed{5}$.", "5"),
    ("The answer meeting only one of the conditions is $\\boxed{5}$.", "5"),
    ("The answer if the constraint is ignored is $\\boxed{5}$.", "5"),
    ("The answer when the minus is read as a plus is $\\boxed{5}$.", "5"),
    ("The answer if one forgets the constraint is $\\boxed{5}$.", "5"),
    # 10. a parenthetical is dropped only where it restates a value or kind
    ("The answer (that gets eliminated) is $\\boxed{5}$.", "5"),
    ("The answer (which is what WolframAlpha shows) is $\\boxed{5}$.", "5"),
    ("The answer (which violates the domain) is $\\boxed{5}$.", "5"),
    ("The answer (where the sign is flipped) is $\\boxed{5}$.", "5"),
    ("The answer (which my tutor suggested) is $\\boxed{5}$.", "5"),
    ("The answer (i.e. the easier version's) is $\\boxed{5}$.", "5"),
]
RIGHT = [
    # 1. a rounded answer is compared with the reference exactly, never in floats
    ("The answer is $\\boxed{98765432109876543.500}$.", "98765432109876543.5"),
    ("The answer is $\\boxed{3.142}$.", "3.14159"),
    ("The answer is $\\boxed{\\sqrt{17}}$.", "4.123105625617661"),
    ("The answer is $\\boxed{10^{10}\\pi}$.", "31415926535.897932"),
    # 2. a ratio answers only a ratio
    ("The ratio is $\\boxed{1:2}$.", "1:2"),
    ("The answer is $\\boxed{12:00}$.", "12:00"),
    ("The answer is $\\boxed{3:4, 1:2}$.", "1:2, 3:4"),
    ("The answer is $\\boxed{a:b = 2:3}$.", "2:3"),
    ("The answer is $\\boxed{2a:b}$.", "a \\cdot 2 : b"),
    # 3. a mixed number with a TeX space is one number, as 2 \\frac12 is
    ("The answer is $\\boxed{2\\,\\frac{1}{2}\\pi}$.", "\\frac{5\\pi}{2}"),
    ("The answer is $\\boxed{3~\\frac{1}{3}\\sqrt{2}}$.", "\\frac{10\\sqrt{2}}{3}"),
    ("The answer is $\\boxed{2\\,\\frac{1}{2}}$.", "\\frac52"),
    ("The answer is $\\boxed{{2}\\frac{1}{2}}$.", "2.5"),
    ("The answer is $\\boxed{-3\\,\\frac{1}{2}}$.", "-3.5"),
    ("The answer is $\\boxed{\\sqrt{2}\\,\\frac{1}{2}}$.", "\\frac{\\sqrt2}{2}"),
    ("The answer is $\\boxed{x^{2}\\,\\frac{1}{2}}$.", "\\frac{x^2}{2}"),
    ("The answer is $\\boxed{2\\,\\frac{x}{2}}$.", "x"),
    ("The answer is $\\boxed{1, 2\\frac{1}{2}}$.", "1, \\frac52"),
    # 4. x \\in (a, b) is the open interval, never the point (a, b)
    ("The answer is $\\boxed{(1, 2)}$.", "x \\in (1, 2)"),
    ("The answer is $\\boxed{x \\in (1, 2)}$.", "(1, 2)"),
    ("The answer is $\\boxed{x \\in (1, 2)}$.", "x \\in (1, 2)"),
    ("The answer is $\\boxed{(1, 2) \\cup (3, 4)}$.", "x \\in (1, 2) \\cup (3, 4)"),
    ("The answer is $\\boxed{x \\in [1, 2]}$.", "[1, 2]"),
    # 5. an equation times a constant is the same equation only where the constant is proven non-zero
    ("The answer is $\\boxed{2y = 4x + 6}$.", "y = 2x + 3"),
    ("The answer is $\\boxed{(\\sqrt{2}-1)(y - 2x - 3) = 0}$.", "y = 2x + 3"),
    ("The answer is $\\boxed{2x^2 + 2y^2 = 2}$.", "x^2 + y^2 = 1"),
    # 6. "a,bc" in English prose may list two values: no decimal
    ("$\\boxed{2,50}$", "2.5"),
    ("1000,99", "1000.99"),
    ("La réponse est $\\boxed{2,50}$.", "2.5"),
    ("Die Antwort ist $\\boxed{0,25}$.", "0.25"),
    ("The roots are $\\boxed{2, 50}$.", "2, 50"),
    # 7-9. complements of the asked problem, subject relatives and content clauses
    ("The answer to the problem is $\\boxed{5}$.", "5"),
    ("The answer for this problem is $\\boxed{5}$.", "5"),
    ("The answer for the original problem is $\\boxed{5}$.", "5"),
    ("The probability that the sum is even is $\\boxed{\\frac12}$.", "\\frac12"),
    ("The probability that at least one component fails is $\\boxed{\\frac12}$.", "\\frac12"),
    ("The value of $k$ for which the equation has only one solution is $\\boxed{5}$.", "5"),
    ("The smallest $n$ such that the sum exceeds 100 is $\\boxed{5}$.", "5"),
    ("The number of ways that the books can be arranged is $\\boxed{5}$.", "5"),
    ("The integer that satisfies the equation is $\\boxed{5}$.", "5"),
    ("The number of bulbs that fail is $\\boxed{5}$.", "5"),
    ("The number of years that can be written as a sum of two squares is $\\boxed{5}$.", "5"),
    ("The value of $x$ that makes the expression zero is $\\boxed{5}$.", "5"),
    ("The value of $f$ when $x = 2$ is $\\boxed{5}$.", "5"),
    ("The remainder when $2^{100}$ is divided by 7 is $\\boxed{2}$.", "2"),
    ("The sum of the first 10 terms is $\\boxed{5}$.", "5"),
    ("This means that the answer is $\\boxed{5}$.", "5"),
    ("We find that the answer is $\\boxed{5}$.", "5"),
    # 10. a parenthetical is dropped only where it restates a value or kind
    ("The degree of $p(x)$ (which is 1) is $\\boxed{1}$.", "1"),
    ("The degree of $p(x)$ (which is the constant polynomial 1) is $\\boxed{0}$.", "0"),
    ("The area (that is, $A$) is $\\boxed{5}$.", "5"),
]


@pytest.mark.parametrize(
    ("response", "reference"), WRONG, ids=[f"wrong{i}" for i in range(len(WRONG))]
)
def test_the_round_27_variant_is_not_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert not verdict.passed, verdict.reason


@pytest.mark.parametrize(
    ("response", "reference"), RIGHT, ids=[f"right{i}" for i in range(len(RIGHT))]
)
def test_the_round_27_right_answer_is_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert verdict.passed, verdict.reason


def test_a_rounded_answer_is_checked_at_its_own_places_against_an_exact_reference() -> None:
    # with round_exact_references the relative tolerance (1e-9 of 1e17) never beats .000's places
    wrong = ROUNDING.verify("\\boxed{98765432109876540.000}", "98765432109876543 + \\frac{\\pi}{6}")
    assert not wrong.passed, wrong.reason
    right = ROUNDING.verify("\\boxed{98765432109876543.524}", "98765432109876543 + \\frac{\\pi}{6}")
    assert right.passed, right.reason
    assert ROUNDING.verify("\\boxed{1.047}", "\\frac{\\pi}{3}").passed
    assert not ROUNDING.verify("\\boxed{1.048}", "\\frac{\\pi}{3}").passed
