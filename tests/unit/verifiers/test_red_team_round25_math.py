"""Red team round 25: the shared half of the math cases a helper outside the project wrote against
the verifier after round 24 (the held-out half stays outside), each a labelled case (id, kind,
why), then near-variants of each mechanism written here: a digit that \\sqrt, \\sqrt[n], ^ or _
takes as its argument glued to a \\frac (or ½) into a mixed number; raised and lowered letters
(2ˣ, aᵇ, xₐ) folded onto the baseline by NFKC; numbers a wide space separates read as one; a
reference's variables read as a unit abbreviation or a counted noun (2mg, 2\\pi hr, 6m^3, 6abc);
a '!' after a spacing command; and right answers refused: 30º, 2𝜋, \\boxed{6}\\,\\text{m},
\\boxed{1 \\over 2}, \\boxed{6xyz}."""

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
    for case in load(DATA / "shared_round25_math.jsonl")
]
VERIFIER = build_verifier({"kind": "math"})
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)


# (response, reference)
WRONG = [
    # 1. a digit a command or power takes is no whole part of a mixed number
    ("The answer is $\\boxed{\\sqrt2\\frac{1}{2}}$.", "\\sqrt{\\frac52}"),
    ("The answer is $\\boxed{\\sqrt 3\\frac12}$.", "\\sqrt{\\frac72}"),
    ("The answer is $\\boxed{\\sqrt[3]2\\frac{1}{2}}$.", "\\sqrt[3]{\\frac52}"),
    ("The answer is $\\boxed{3^2\\frac{1}{3}}$.", "3^{7/3}"),
    ("The answer is $\\boxed{x_ 2\\frac{1}{3}}$.", "x_{7/3}"),
    ("The answer is $\\boxed{2^ 3\\dfrac{1}{2}}$.", "2^{7/2}"),
    ("The answer is 2^3½.", "2^{7/2}"),
    ("The answer is √2½.", "\\sqrt{5/2}"),
    # 2. raised and lowered letters are exponents and subscripts; 30º is degrees; 𝜋 is pi
    ("The answer is $2ˣ$.", "2x"),
    ("The answer is $\\boxed{xʸ}$.", "xy"),
    ("The answer is $3ⁿ$.", "3n"),
    ("The answer is $aᵏ + 1$.", "ak+1"),
    ("The answer is $x₁$.", "x1"),
    ("The answer is $2ᵅ$.", "2a"),
    ("The answer is $5㎡$.", "52"),
    ("The answer is 2ª.", "2a"),
    # 3. a space wider than a thin one separates two numbers (a thin one or a tie: thousands)
    ("The answer is $\\boxed{7\\qquad500}$.", "7500"),
    ("The answer is $\\boxed{12\\quad345}$.", "12345"),
    ("The answer is $\\boxed{12\\enspace345}$.", "12345"),
    ("The answer is $\\boxed{12\\hspace{1em}345}$.", "12345"),
    ("The answer is $\\boxed{12\\ 345}$.", "12345"),
    ("The answer is $\\boxed{12\\:345}$.", "12345"),
    ("The answer is $\\boxed{12\\;345}$.", "12345"),
    ("The answer is $\\boxed{1\\quad 000\\quad 000}$.", "1000000"),
    ("The answer is $\\boxed{7\\qquad500}$.", "3500"),
    ("The answer is $7\\quad 500$.", "7500"),
    # 4. letters against a number are variables, not a unit or a counted noun
    ("The answer is $\\boxed{2}$.", "2mg"),
    ("The answer is $\\boxed{2\\pi}$.", "2\\pi hr"),
    ("The answer is $\\boxed{6}$.", "6m^3"),
    ("The answer is $\\boxed{5}$.", "5m^2"),
    ("The answer is $\\boxed{5}$.", "5 m^2"),
    ("The answer is $\\boxed{6}$.", "6abc"),
    ("The answer is $\\boxed{a^2+4}$.", "a^2 + 4abc"),
    ("The answer is $\\boxed{x^3+y^3+z^3-3}$.", "x^3+y^3+z^3-3xyz"),
    ("The answer is $\\boxed{3}$.", "3kg"),
    ("The answer is $\\boxed{4\\pi}$.", "4\\pi rs"),
    # 5. a '!' after a spacing command is a factorial
    ("Therefore $\\boxed{5}\\,!$", "5"),
    ("Hence $\\boxed{4}\\;!$", "4"),
    ("Hence $\\boxed{4}\\:!$", "4"),
    ("Hence $\\boxed{6}\\ !$", "6"),
    ("Hence $\\boxed{6}\\quad!$", "6"),
    ("Hence $\\boxed{6} \\, !$", "6"),
    ("Hence $\\boxed{6}\\!!$", "6"),
    ("Hence $\\boxed{3}~!$", "3"),
    ("The answer is $7\\,!$.", "7"),
    # 6. a unit after a box across a spacing command; a top-level \over
    ("The side is therefore $\\boxed{6}\\,\\text{cm}$.", "6 \\text{ m}"),
    ("The side is therefore $\\boxed{6}\\,\\text{km}^2$.", "6 \\text{ km}"),
    ("The answer is $\\boxed{1 + 1 \\over 2}$.", "\\frac32"),
    ("The answer is $\\boxed{1 \\over 2 \\over 3}$.", "\\frac16"),
]
RIGHT = [
    # 1. a digit a command or power takes is no whole part of a mixed number
    ("The answer is $\\boxed{\\sqrt2\\frac{1}{2}}$.", "\\frac{\\sqrt2}{2}"),
    ("The answer is $\\boxed{2\\frac{1}{2}}$.", "\\frac52"),
    ("The answer is 2½.", "5/2"),
    # 2. raised and lowered letters are exponents and subscripts; 30º is degrees; 𝜋 is pi
    ("The answer is $2ˣ$.", "2^x"),
    ("The answer is $aᵇ$.", "a^b"),
    ("The answer is 30º.", "30^\\circ"),
    ("The answer is $\\boxed{3𝛑}$.", "3\\pi"),
    ("The answer is $\\boxed{𝝅/2}$.", "\\frac{\\pi}{2}"),
    ("The answer is $x²$.", "x^2"),
    # 3. a space wider than a thin one separates two numbers (a thin one or a tie: thousands)
    ("The answer is $\\boxed{12\\,345}$.", "12345"),
    ("The answer is $\\boxed{1\\,000\\,000}$.", "1000000"),
    ("The answer is $\\boxed{12{,}345}$.", "12345"),
    ("The answer is $\\boxed{12,345}$.", "12345"),
    # 4. letters against a number are variables, not a unit or a counted noun
    ("The answer is $\\boxed{6xyz}$.", "6xyz"),
    ("The answer is $\\boxed{4pqr}$.", "4pqr"),
    ("The answer is $\\boxed{2\\pi rh}$.", "2\\pi hr"),
    ("The answer is $\\boxed{2gm}$.", "2mg"),
    ("The answer is $\\boxed{2mg}$.", "2mg"),
    ("The answer is $\\boxed{6m^3}$.", "6m^3"),
    ("The answer is $\\boxed{x^3+y^3+z^3-3xyz}$.", "x^3+y^3+z^3-3xyz"),
    ("The answer is $\\boxed{6zyx}$.", "6xyz"),
    ("The answer is $\\boxed{5}$.", "5 \\text{ cm}"),
    ("The answer is $\\boxed{5}$ cm.", "5 cm"),
    ("The answer is $\\boxed{5}$.", "5 hours"),
    ("The answer is $\\boxed{18}$.", "18 apples"),
    ("The answer is $\\boxed{5\\text{ mg}}$.", "5 \\text{ mg}"),
    # 5. a '!' after a spacing command is a factorial
    ("The answer is $\\boxed{5}$!", "5"),
    ("The answer is $\\boxed{5}\\,$.", "5"),
    # 6. a unit after a box across a spacing command; a top-level \over
    ("The side is therefore $\\boxed{6}\\,\\text{m}$.", "6 \\text{ m}"),
    ("The side is therefore $\\boxed{6}\\text{ m}$.", "6 \\text{ m}"),
    ("The side is therefore $\\boxed{6} \\text{ m}$.", "6 \\text{ m}"),
    ("The side is therefore $\\boxed{6}\\;\\text{cm}$.", "6 \\text{ cm}"),
    ("The side is therefore $\\boxed{6}\\,\\mathrm{cm}$.", "6"),
    ("The side is therefore $\\boxed{6}\\ \\text{cm}$.", "6"),
    ("The probability is $\\boxed{1 \\over 2}$.", "\\frac12"),
    ("The probability is $\\boxed{3\\over 4}$.", "0.75"),
    ("The answer is $\\boxed{x+1 \\over 2}$.", "\\frac{x+1}{2}"),
    ("The answer is $\\boxed{{1 \\over 2}}$.", "\\frac12"),
]


@pytest.mark.parametrize(
    ("response", "reference"), WRONG, ids=[f"wrong{i}" for i in range(len(WRONG))]
)
def test_the_round_25_variant_is_not_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert not verdict.passed, verdict.reason


@pytest.mark.parametrize(
    ("response", "reference"), RIGHT, ids=[f"right{i}" for i in range(len(RIGHT))]
)
def test_the_round_25_right_answer_is_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert verdict.passed, verdict.reason


# 7. a unit abbreviation glued to the answer's number is that unit again where the reference has
# no variables (a number, or a number with a unit); against a reference with variables it stays
# a product ("2kg" is no "2mg", a bare 2 no "2mg")
GLUED_UNIT_WRONG = [
    ("The answer is 12kg.", "12 \\text{ g}"),
    ("The answer is $\\boxed{2kg}$.", "2mg"),
    ("The answer is $\\boxed{2}$.", "2mg"),
    ("The answer is 12kg.", "13"),
    ("The answer is 12kg.", "2mg"),
    ("The answer is $\\boxed{5}$.", "5m^2"),
    ("The answer is 5cm.", "5 \\text{ m}"),
    ("The speed is 60mph.", "60 \\text{ km/h}"),
]
GLUED_UNIT_RIGHT = [
    ("The answer is 12kg.", "12"),
    ("The answer is 5cm.", "5 \\text{ cm}"),
    ("The speed is 60mph.", "60"),
    ("The mass is 3kg.", "3 \\text{ kg}"),
    ("The answer is $\\boxed{5cm}$.", "5 \\text{ cm}"),
    ("The speed is 60mph.", "60 mph"),
    ("The length is 5cm.", "5 cm"),
    ("The mass is 3kg.", "3000 \\text{ g}"),
]


@pytest.mark.parametrize(
    ("response", "reference"),
    GLUED_UNIT_WRONG,
    ids=[f"glued_wrong{i}" for i in range(len(GLUED_UNIT_WRONG))],
)
def test_a_glued_unit_pays_no_other_quantity(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert not verdict.passed, verdict.reason


@pytest.mark.parametrize(
    ("response", "reference"),
    GLUED_UNIT_RIGHT,
    ids=[f"glued_right{i}" for i in range(len(GLUED_UNIT_RIGHT))],
)
def test_a_glued_unit_is_a_unit_against_a_reference_without_variables(
    response: str, reference: str
) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert verdict.passed, verdict.reason
