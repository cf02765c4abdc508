"""Red team round 23: the shared half of the math cases a helper outside the project wrote against
the verifier after round 22 (the held-out half stays outside), each a labelled case (id, kind,
why), then near-variants of each mechanism written here: inline math as the subject that is an
expression of the unknown ("So $2x$ is", "the value of $2x$ is") unless the goal line asks for that
very expression; another measure ("the side", "the width") and more goal phrasings ("The problem
asks for"); a quantity of the asked object named by "its" ("the sum of its digits"); a comma before
three digits in prose of a decimal-comma language (French "2,500 kg"); and the derived subjects the
goal line asks for exactly ("Find the inverse of 3 modulo 7"), which are answers again."""

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
    for case in load(DATA / "shared_round23_math.jsonl")
]
VERIFIER = build_verifier({"kind": "math"})
OPEN: dict[str, str] = {}
X = "We need the value of $x$. From $5x - 7 = 8$ we get $x = 3$.\n\n"
N = "We need $N$. It is the smallest multiple of 8 above 20, so $N = 24$.\n\n"


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)


C_12 = "\\textbf{(C) }12"
SUM = "Adding the three parts gives $4 + 5 + 3 = 12$. "
# (response, reference)
WRONG = [
    # 8. a choice restated with another value, or with no plain number
    (SUM + "So the answer is $\\boxed{\\textbf{(C)}}$, i.e. 13.", C_12),
    (SUM + "So the answer is $\\boxed{\\textbf{(C)}}$, i.e. $13$.", C_12),
    (SUM + "So the answer is $\\boxed{\\textbf{(C)}}$, i.e. 12 or 13.", C_12),
    (SUM + "So the answer is $\\boxed{\\textbf{(C)}}$, i.e. $x^2$.", "C"),
    (SUM + "So the answer is $\\boxed{\\textbf{(B)}}$, i.e. 12.", C_12),
    (SUM + "So the answer is $\\boxed{\\textbf{(C)}}$, i.e. 12 apples.", C_12),
    ("The answer is (C) x = 13.", C_12),
    ("The answer is $\\boxed{\\textbf{(C)}\\ x = 13}$.", C_12),
    ("The answer is $\\boxed{\\textbf{(C)}\\ x = y}$.", "C"),
    ("The answer is $\\boxed{\\textbf{(C)}\\ x = 12 + 1}$.", "\\textbf{(C) }13"),
    # 6. a power after a choice letter with arithmetic outside it, or another value
    ("So the answer is $\\boxed{\\textbf{(C)}\\ 2^{1/2} + 1}$.", "\\textbf{(C) }\\sqrt{2}"),
    ("So the answer is $\\boxed{\\textbf{(C)}\\ 2^{1/3}}$.", "\\textbf{(C) }\\sqrt{2}"),
    ("So the answer is $\\boxed{\\textbf{(C)}\\ 10^{-3}}$.", "\\textbf{(C) }0.01"),
    ("So the answer is $\\boxed{\\textbf{(B)}\\ 2^{1/2}}$.", "\\textbf{(C) }\\sqrt{2}"),
    # 7. a noun the working never named, in either number
    ("Each child is in one class. The answer is 1,200 geese.", "1200"),
    ("Each goose is in one pen. The answer is 1,200 children.", "1200"),
    # 1. inline math as the subject, an expression of the unknown the goal does not ask for
    (X + "So $2x$ is $\\boxed{6}$.", "6"),
    (X + "Thus, $x+1$ is $\\boxed{4}$.", "4"),
    (X + "So $x + 1$ equals $\\boxed{4}$.", "4"),
    (X + "So $-x$ is $\\boxed{-3}$.", "-3"),
    (X + "So $x \\cdot x$ is $\\boxed{9}$.", "9"),
    (X + "So $\\frac{x}{12}$ is $\\boxed{\\frac{1}{4}}$.", "\\frac{1}{4}"),
    (X + "So $\\binom{x}{2}$ is $\\boxed{3}$.", "3"),
    (X + "Hence the value of $2x$ is $\\boxed{6}$.", "6"),
    (X + "It follows that $x = 3$, so the value of $x^2$ is $\\boxed{9}$.", "9"),
    (X + "So $3x - 1$ is $\\boxed{8}$.", "8"),
    (X + "So $2x = \\boxed{6}$.", "6"),
    ("We need $x$. So $x + 1 = \\boxed{4}$.", "4"),
    ("We need $n$. So $\\binom{n}{2} = \\boxed{10}$.", "10"),
    ("We need $x$. So $-x = \\boxed{3}$.", "3"),
    ("Find $f'(2)$ for $f(x) = x^2 + x$. Thus, $f'(3)$ is $\\boxed{7}$.", "7"),
    ("Find $x^2+y^2$. So $x^2 - y^2$ is $\\boxed{7}$.", "7"),
    # 2. another measure than the goal's, more goal phrasings
    ("We need the side length of the square.\n\nSo the perimeter is $\\boxed{16}$.", "16"),
    ("We need the side of the square.\n\nSo the area of the square is $\\boxed{16}$.", "16"),
    ("We need the length of the side.\n\nSo the perimeter is $\\boxed{12}$.", "12"),
    ("We need the width of the rectangle.\n\nSo the length is $\\boxed{8}$.", "8"),
    ("We need the width of the rectangle.\n\nSo the area is $\\boxed{24}$.", "24"),
    ("The problem asks for the radius.\n\nSo the diameter is $\\boxed{4}$.", "4"),
    ("The question asks for the radius.\n\nSo the diameter is $\\boxed{4}$.", "4"),
    ("Our goal is the radius of the circle.\n\nSo the diameter is $\\boxed{4}$.", "4"),
    ("Our goal is to find the radius.\n\nSo the circumference is $\\boxed{4}$.", "4"),
    ("We want the radius of the circle.\n\nSo the diameter is $\\boxed{4}$.", "4"),
    ("Determine the side of the square.\n\nSo the diagonal is $\\boxed{4}$.", "4"),
    # 3. a quantity of the asked object named by "its"
    (N + "So the sum of its digits is $\\boxed{6}$.", "6"),
    (N + "Therefore, the number of its divisors is $\\boxed{8}$.", "8"),
    (N + "So the product of its digits is $\\boxed{8}$.", "8"),
    (N + "So the largest of its prime factors is $\\boxed{3}$.", "3"),
    ("We need the two numbers.\n\nSo the sum of their squares is $\\boxed{25}$.", "25"),
    # 4. a comma before three digits in a decimal-comma language
    ("La masse est de deux kilogrammes et demi. La réponse est 2,500 kg.", "2500"),
    ("La réponse est 2,500.", "2500"),
    ("La réponse est $\\boxed{2,500}$.", "2500"),
    ("Die Antwort ist 1,500 Meter.", "1500"),
    ("Also ist die Antwort $\\boxed{1,500}$.", "1500"),
    ("La respuesta es 3,250 metros.", "3250"),
    ("La risposta è 1,500 litri.", "1500"),
    ("A resposta é 2,500 kg.", "2500"),
    ("Het antwoord is 1,500 meter en de massa is klein.", "1500"),
    ("Ответ: 1,500.", "1500"),
    ("La réponse est $\\boxed{2{,}500}$.", "2500"),
    # 5. a derived subject the goal does not name exactly
    ("Find the GCD and the LCM.\n\nSo the sum of the GCD and the LCM is $\\boxed{42}$.", "42"),
    ("We need the inverse of 3 modulo 7.\n\nSo the inverse of 5 modulo 7 is $\\boxed{3}$.", "3"),
    ("We need the inverse of 3 modulo 7.\n\nSo the inverse of 3 modulo 11 is $\\boxed{4}$.", "4"),
    ("Find 0.25.\n\nSo the reciprocal of 0.25 is $\\boxed{4}$.", "4"),
    ("Find the GCD of 12 and 18.\n\nSo the reciprocal of the GCD is $\\boxed{6}$.", "6"),
    ("Find the reciprocal of the GCD.\n\nSo the reciprocal of the LCM is $\\boxed{6}$.", "6"),
    ("So the inverse of $3$ modulo $7$ is $\\boxed{5}$.", "5"),
    (
        "Find the sum of the GCD and the LCM.\n\nSo the product of the GCD and the LCM is"
        " $\\boxed{216}$.",
        "216",
    ),
]
RIGHT = [
    # 8. a choice restated with its value
    (SUM + "So the answer is $\\boxed{\\textbf{(C)}}$, i.e. 12.", C_12),
    (SUM + "So the answer is $\\boxed{\\textbf{(C)}}$, i.e. $12$.", C_12),
    (SUM + "So the answer is $\\boxed{\\textbf{(C)}}$, that is 12.", C_12),
    (SUM + "So the answer is $\\boxed{\\textbf{(C)}}$, i.e. 12.", "C"),
    ("The answer is (C) x = 12.", C_12),
    ("The answer is $\\boxed{\\textbf{(C)}\\ x = 12}$.", C_12),
    # 6. a power after a choice letter is its value
    ("So the answer is $\\boxed{\\textbf{(C)}\\ 2^{1/2}}$.", "\\textbf{(C) }\\sqrt{2}"),
    ("So the answer is $\\boxed{\\textbf{(C)}\\ 10^{-3}}$.", "\\textbf{(C) }0.001"),
    # 7. the irregular plural of the working's noun, and the singular of its plural
    ("Each child is in one class. The answer is 1,200 children.", "1200"),
    ("Each mouse eats 3 seeds. The answer is 12 mice.", "12"),
    ("Each person pays 5. The answer is 40 people.", "40"),
    ("The children sit in rows of 30. The answer is 1 child.", "1"),
    # 1. one symbol, a function's value at numbers, or the goal's own expression
    (X + "So $x$ is $\\boxed{3}$.", "3"),
    (X + "So the value of $x$ is $\\boxed{3}$.", "3"),
    ("So $f(2)$ is $\\boxed{7}$.", "7"),
    ("Find $f'(2)$ for $f(x) = x^2 + x$. Thus, $f'(2)$ is $\\boxed{5}$.", "5"),
    ("Find $x^2+y^2$. We get 25. So $x^2 + y^2$ is $\\boxed{25}$.", "25"),
    ("We need $2x$. From $x = 3$, so $2x$ is $\\boxed{6}$.", "6"),
    ("We need the value of $2x$. So the value of $2x$ is $\\boxed{6}$.", "6"),
    ("So $18$ is $\\boxed{18}$.", "18"),
    (X + "So $x = \\boxed{3}$.", "3"),
    ("Therefore $m+n = \\boxed{17}$.", "17"),
    ("We need $x$. So $4 \\times 9 = \\boxed{36}$.", "36"),
    ("Thus, the units digit of $7^{35}$ is $\\boxed{3}$.", "3"),
    # 2. the goal's measure, or one only named by "length of"
    ("We need the hypotenuse.\n\nSo the length of the hypotenuse is $\\boxed{5}$.", "5"),
    ("We need the length of the hypotenuse.\n\nSo the hypotenuse is $\\boxed{5}$.", "5"),
    ("We need the side length of the square.\n\nSo the side is $\\boxed{4}$.", "4"),
    ("The problem asks for the radius.\n\nSo the radius is $\\boxed{2}$.", "2"),
    ("Find the perimeter.\n\nEach side is 4, so the perimeter is $\\boxed{16}$.", "16"),
    # 3. the goal asks for the quantity of "its"
    ("Find the sum of its digits.\n\nSo the sum of its digits is $\\boxed{6}$.", "6"),
    # 4. English or CJK prose keeps the thousands comma; no comma is no question
    ("The answer is 2,500 kg.", "2500"),
    ("The answer is $\\boxed{2,500}$.", "2500"),
    ("答案是 2,500。", "2500"),
    ("La réponse est 2500 kg.", "2500"),
    ("Die Antwort ist $\\boxed{1500}$.", "1500"),
    # 5. the derived subject the goal asks for exactly
    ("Find the reciprocal of 0.25.\n\nSo the reciprocal of 0.25 is $\\boxed{4}$.", "4"),
    ("We need the inverse of 3 modulo 7.\n\nThus the inverse of 3 modulo 7 is $\\boxed{5}$.", "5"),
    (
        "We need the inverse of $3$ modulo $7$.\n\nSo the inverse of $3$ mod $7$ is $\\boxed{5}$.",
        "5",
    ),
    (
        "Find the sum of the GCD and the LCM of 6 and 36.\n\n"
        "So the sum of the greatest common divisor and the LCM is $\\boxed{42}$.",
        "42",
    ),
    (
        "Compute the difference between the largest and the smallest of 2, 5, 10.\n\n"
        "So the difference between the largest and the smallest is $\\boxed{8}$.",
        "8",
    ),
]


@pytest.mark.parametrize(
    ("response", "reference"), WRONG, ids=[f"wrong{i}" for i in range(len(WRONG))]
)
def test_the_round_23_variant_is_not_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert not verdict.passed, verdict.reason


@pytest.mark.parametrize(
    ("response", "reference"), RIGHT, ids=[f"right{i}" for i in range(len(RIGHT))]
)
def test_the_round_23_right_answer_is_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert verdict.passed, verdict.reason
