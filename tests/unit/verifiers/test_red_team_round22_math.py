"""Red team round 22: the shared half of the math cases a helper outside the project wrote against
the verifier after round 21 (the held-out half stays outside), each a labelled case (id, kind,
why), then near-variants of each mechanism written here: words after a choice's letter (a hedge,
a negation, a second letter, a range) leave no answer, and a choice's value that is an expression
("2^{10}", "x^2+1", "\\sqrt{8}" for "2\\sqrt{2}") is a value, while arithmetic after a choice
("+ 1", "12 + 1") stays none; a subject that is another quantity than the answer ("the reciprocal
of the GCD", "the product of the GCD and 2", "the diameter" where the working seeks the radius);
scale words in the answer ("\\boxed{1.2 \\text{ million}}") and thousands separators before a
counted noun ("1,200,000 people"), with the look-alikes that must still fail."""

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
    for case in load(DATA / "shared_round22_math.jsonl")
]
VERIFIER = build_verifier({"kind": "math"})
OPEN: dict[str, str] = {}
GCD = "We need the greatest common divisor of 12 and 18.\n\n"
POPULATION = "The two districts have 0.5 million and 0.7 million people.\n\n"
SEATS = "The hall has rows of seats.\n\n"
VALUE = "We need the value of $N$.\n\n"


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)


# (response, reference)
WRONG = [
    # 1. words after a choice's letter; arithmetic after it
    ("$\\boxed{(B)\\ \\text{probably}}$", "B"),
    ("$\\boxed{(B)\\ \\text{unlikely}}$", "B"),
    ("$\\boxed{(B)\\ \\text{ruled out}}$", "B"),
    ("$\\boxed{(B)\\ \\text{is wrong}}$", "(B)"),
    ("$\\boxed{\\textbf{(B)}\\ \\textbf{E}}$", "B"),
    ("$\\boxed{(B)\\ \\text{or D}}$", "B"),
    ("$\\boxed{(B)\\ \\text{to E}}$", "B"),
    ("$\\boxed{(B)\\ D}$", "B"),
    ("$\\boxed{(B)\\ \\text{(maybe)}}$", "B"),
    ("$\\boxed{(B) \\text{ I think}}$", "B"),
    ("$\\boxed{\\textbf{(B)}\\ \\text{not sure}}$", "\\textbf{(B)}"),
    ("The answer is (B) maybe.", "B"),
    ("The answer is (C), I think.", "C"),
    ("Final answer: (D) probably.", "D"),
    ("Final answer: (D) is incorrect.", "D"),
    ("The answer is (A) through (C).", "A"),
    ("The answer is (A) to E.", "A"),
    ("The answer is (B) and D.", "B"),
    ("The answer is (B) unlikely.", "B"),
    ("Answer: \\text{(A)} + 1", "\\text{(A)}"),
    ("Answer: (C) - 5", "C"),
    ("Answer: (A) minus 1", "A"),
    ("$\\boxed{\\textbf{(C) }12 + 1}$", "\\textbf{(C) }13"),
    ("$\\boxed{\\textbf{(C) }12 \\cdot 2}$", "\\textbf{(C) }24"),
    ("$\\boxed{\\textbf{(C) }2^{10} = 1024}$", "C"),
    ("$\\boxed{\\textbf{(C)}\\ ^{2}}$", "C"),
    ("$\\boxed{\\textbf{(C)} \\times 2}$", "C"),
    ("$\\boxed{\\textbf{(C) }1/2}$", "C"),
    ("$\\boxed{\\textbf{(C)}\\ \\sqrt{7}}$", "\\textbf{(C)}\\ 2\\sqrt{2}"),
    ("$\\boxed{\\textbf{(C)}\\ 2^{11}}$", "\\textbf{(C)}\\ 2^{10}"),
    ("$\\boxed{\\textbf{(B)}\\ 2^{10}}$", "\\textbf{(C)}\\ 2^{10}"),
    ("$\\boxed{\\textbf{(B)}\\ x^2-1}$", "\\textbf{(B)}\\ x^2+1"),
    ("$\\boxed{\\textbf{(D)}\\ 3^{5}}$", "C"),
    ("$\\boxed{\\textbf{(C)}\\ 2.8}$", "\\textbf{(C)}\\ 2\\sqrt{2}"),
    # 2. a subject derived from another quantity, or another measure than the one sought
    (GCD + "So the reciprocal of the GCD of 12 and 18 is $\\boxed{6}$.", "6"),
    (GCD + "So the negative reciprocal of the slope is $\\boxed{4}$.", "4"),
    (
        "We need the slope of the line.\n\nSo the negative reciprocal of the slope is $\\boxed{4}$.",
        "4",
    ),
    ("We need the slope of the line.\n\nSo the perpendicular slope is $\\boxed{4}$.", "4"),
    (GCD + "So the product of the GCD and 2 is $\\boxed{6}$.", "6"),
    (GCD + "So the sum of the GCD and 1 is $\\boxed{6}$.", "6"),
    (GCD + "So the sum of 1 and the GCD is $\\boxed{6}$.", "6"),
    (GCD + "So the difference between the LCM and the GCD is $\\boxed{6}$.", "6"),
    ("We need the radius of the circle.\n\nSo the diameter of the circle is $\\boxed{4}$.", "4"),
    ("We need the radius of the circle.\n\nThus the circumference is $\\boxed{4}$.", "4"),
    ("Find the area of the square.\n\nSo the perimeter of the square is $\\boxed{16}$.", "16"),
    ("We need the mean of the data.\n\nSo the median is $\\boxed{5}$.", "5"),
    ("We need the value of $N$.\n\nSo the logarithm of $N$ is $\\boxed{3}$.", "3"),
    ("We need the value of $N$.\n\nSo the natural logarithm of $N$ is $\\boxed{3}$.", "3"),
    ("We need $f(2)$.\n\nSo the derivative of $f$ at $2$ is $\\boxed{7}$.", "7"),
    ("So the derivative of $f$ at $x = 2$ is $\\boxed{7}$.", "7"),
    ("So the inverse of $7$ modulo $11$ is $\\boxed{8}$.", "8"),
    ("So the opposite of $x$ is $\\boxed{5}$.", "5"),
    ("So the complement of the angle is $\\boxed{50}$.", "50"),
    ("So the integral of $f$ is $\\boxed{9}$.", "9"),
    ("So the square root of $x$ is $\\boxed{9}$.", "9"),
    ("Therefore, the reciprocal of the GCD is 6.", "6"),
    ("Therefore, the product of the GCD and 2 is 6.", "6"),
    ("So twice the GCD is $\\boxed{12}$.", "12"),
    ("So half of the GCD is $\\boxed{3}$.", "3"),
    ("The answer is $\\boxed{6}$. So the reciprocal of the GCD is $\\boxed{6}$.", "6"),
    # 4, 5. scale words and thousands separators with a wrong value, word or noun
    (POPULATION + "The population is $\\boxed{1.3 \\text{ million}}$.", "1.2 million people"),
    (POPULATION + "The population is $\\boxed{1.2 \\text{ thousand}}$.", "1.2 million people"),
    (POPULATION + "The population is $\\boxed{1.2 \\text{ millions}}$.", "1.2 million people"),
    (
        POPULATION + "The population is $\\boxed{1.2 \\text{ million dollars}}$.",
        "1.2 million people",
    ),
    (
        POPULATION + "The population is $\\boxed{1.2 \\text{ million}}$ dollars.",
        "1.2 million people",
    ),
    (POPULATION + "The population is $\\boxed{1.2 \\text{ mil}}$.", "1.2 million people"),
    (POPULATION + "The population is $\\boxed{1.2 \\text{ million}}$.", "1.2"),
    (SEATS + "The answer is $\\boxed{3 \\text{ thousand}}$.", "3"),
    (SEATS + "The answer is $\\boxed{3 \\text{ thousand}}$.", "300"),
    (SEATS + "The answer is $\\boxed{3 \\text{ thousand}}$, maybe.", "3000"),
    (
        SEATS + "The answer is $\\boxed{3 \\text{ thousand}}$ or $\\boxed{4 \\text{ thousand}}$.",
        "3000",
    ),
    (SEATS + "The answer is probably $\\boxed{3 \\text{ thousand}}$.", "3000"),
    (SEATS + "The answer is $\\boxed{3 \\text{ hundred thousand}}$.", "3000"),
    (SEATS + "The answer is 1,2 seats.", "12"),
    (SEATS + "The answer is 1,2 seats.", "1.2"),
    (SEATS + "The answer is 3,00 seats.", "300"),
    (SEATS + "The answer is 3,0000 seats.", "30000"),
    (SEATS + "The answer is 3,000 seats.", "3"),
    (SEATS + "The answer is 3,000 tables.", "3000 seats"),
    (SEATS + "The answer is 3,000 more seats.", "3000"),
    (SEATS + "The answer is 3,000 seats or more.", "3000"),
    (SEATS + "The answer is 3,000 seats, maybe.", "3000"),
    (SEATS + "The answer is 3,001 seats.", "3000"),
    (SEATS + "There are 1,2 seats.", "12"),
]

RIGHT = [
    # 3. a choice's value that is an expression, or equal in another form
    ("$\\boxed{\\textbf{(C)}\\ 2^{10}}$", "\\textbf{(C)}\\ 2^{10}"),
    ("The answer is (D) $3^{5}$.", "D"),
    ("$\\boxed{\\textbf{(D)}\\ 3^{5}}$", "\\textbf{(D)}\\ 3^5"),
    ("$\\boxed{\\textbf{(B)}\\ x^2+1}$", "B"),
    ("$\\boxed{\\textbf{(D)}\\ n^2 - 1}$", "\\textbf{(D)}\\ n^2-1"),
    ("$\\boxed{\\textbf{(E)}\\ \\pi r^2}$", "\\textbf{(E)}\\ \\pi r^2"),
    ("$\\boxed{\\textbf{(E)}\\ \\pi r^2}$", "E"),
    ("$\\boxed{\\textbf{(C)}\\ \\sqrt{8}}$", "\\textbf{(C)}\\ 2\\sqrt{2}"),
    ("$\\boxed{\\textbf{(C)}\\ \\frac{6}{8}}$", "\\textbf{(C)}\\ \\frac{3}{4}"),
    ("$\\boxed{\\textbf{(C)}\\ 12}$", "C"),
    ("$\\boxed{(C)}$", "C"),
    ("The answer is (B).", "B"),
    ("$\\boxed{\\textbf{(A)}\\ -5}$", "A"),
    ("$\\boxed{\\textbf{(C)}\\ 12 \\text{ cm}}$", "C"),
    # 2. the quantity asked as the subject
    ("So the greatest common divisor of $12$ and $18$ is $\\boxed{6}$.", "6"),
    (GCD + "So the greatest common divisor of 12 and 18 is $\\boxed{6}$.", "6"),
    (GCD + "So the GCD is $\\boxed{6}$.", "6"),
    ("We need the radius of the circle.\n\nThe diameter is 8, so the radius is $\\boxed{4}$.", "4"),
    ("We need the radius of the circle.\n\nSo the radius of the circle is $\\boxed{4}$.", "4"),
    ("Find the length of the hypotenuse.\n\nSo the hypotenuse is $\\boxed{5}$.", "5"),
    ("Find the hypotenuse.\n\nSo the length of the hypotenuse is $\\boxed{5}$.", "5"),
    (
        "We need the area of the square of side 2.\n\nSo the area of the square of side 2 is $\\boxed{4}$.",
        "4",
    ),
    ("So the area of the square is $\\boxed{4}$.", "4"),
    ("So the sum of $a$ and $b$ is $\\boxed{7}$.", "7"),
    ("So the sum of the roots is $\\boxed{7}$.", "7"),
    ("So the product of the roots is $\\boxed{12}$.", "12"),
    ("So the sum of the first 10 terms is $\\boxed{55}$.", "55"),
    ("So the sum of the digits is $\\boxed{9}$.", "9"),
    ("We need the slope of the line.\n\nSo the slope is $\\boxed{4}$.", "4"),
    ("We need the area. The side is 3.\n\nSo the area is $\\boxed{9}$.", "9"),
    # 4, 5. scale words and thousands separators with the reference's value
    (POPULATION + "The population is $\\boxed{1.2 \\text{ million}}$.", "1.2 million people"),
    (POPULATION + "The population is $\\boxed{1.2 \\text{ million}}$.", "1200000"),
    (
        POPULATION + "The population is $\\boxed{1.2 \\text{ million}}$ people.",
        "1.2 million people",
    ),
    (SEATS + "The answer is $\\boxed{3 \\text{ thousand}}$.", "3000"),
    (SEATS + "The answer is $\\boxed{3 \\text{ thousand}}$.", "3 thousand"),
    (SEATS + "The answer is $\\boxed{2 \\text{ hundred thousand}}$.", "200000"),
    (SEATS + "The answer is $\\boxed{5 \\text{ dozen}}$.", "60"),
    (
        "The two districts have 500,000 and 700,000 people.\n\nThe answer is 1,200,000 people.",
        "1.2 million people",
    ),
    (SEATS + "The answer is 3,000 seats.", "3000"),
    (SEATS + "The answer is 3,000 seats.", "3000 seats"),
    (SEATS + "The answer is 3000 seats.", "3000"),
    (SEATS + "There are 3,000 seats.", "3000"),
    (SEATS + "The answer is 12,345.5 seats.", "12345.5"),
]


# words or letters after a choice's letter, in a box and on an answer line (all against 'B')
CHOICE_WORDS_BOXED = [
    "(B)\\ maybe",
    "(B)\\ no",
    "(B)\\ or\\ D",
    "(B)\\,\\mathrm{wrong}",
    "(B)\\ \\mathit{guess}",
    "(B)\\ \\emph{guess}",
    "(B)\\ ?",
    "(B)?",
    "(B)\\ \\neq",
    "(B)\\ \\ldots",
    "(B)\\ \\text{?}",
    "(B)\\ \\mathrm{or}\\ (D)",
    "(B)\\ \\&\\ (D)",
    "(B)\\ \\text{not}",
    "(B)\\ \\neg",
    "(B)\\ \\times",
    "(B)\\ \\mathbf{D}",
    "(B)\\ \\textbf{(D)}",
    "(B)\\ \\text{(D)}",
    "(B)\\ \\text{-}\\ (D)",
    "(B)\\ --\\ (D)",
    "(B)\\ /\\ (D)",
    "(B)/(D)",
    "(B)\\ \\text{or}\\ \\text{(D)}",
    "(B)\\ \\cup\\ (D)",
    "(B)\\ \\vee\\ D",
    "(B)\\ \\lor D",
    "(B)\\ \\mid D",
    "(B),(D)",
    "(B)\\ \\text{ maybe }12",
    "(B)\\ ~\\text{maybe}",
    "(B)\\ \\mathrm{m}\\mathrm{a}\\mathrm{y}\\mathrm{b}\\mathrm{e}",
    "(B)\\ m a y b e",
    "(B)\\ \\text{{maybe}}",
    "(B)\\ \\pm",
    "(B)\\ \\mathrm{D}",
    "(B)\\ \\operatorname{maybe}",
    "(B)\\ \\mbox{maybe}",
    "(B)\\ \\textit{maybe}",
    "(B)\\ \\textrm{maybe}",
    "(B)\\ \\texttt{maybe}",
    "(B)\\ \\textsf{maybe}",
    "(B)\\ \\textnormal{maybe}",
    "(B)\\ \\hbox{maybe}",
]
CHOICE_WORDS_LINE = [
    "(B) no.",
    "(B) or (D).",
    "(B)/(D).",
    "(B)? ",
    "(B) (not sure).",
    "(B) - not sure.",
    "(B) -- maybe.",
    "(B); maybe.",
    "(B): maybe",
    "(B) (guess).",
    "(B) I guess.",
    "(B) hmm.",
    "(B) or so.",
    "(B)-ish.",
    "(B) x maybe",
    "(B) x y z",
    "(B) not",
    "(B) D.",
]

# more subjects derived from another quantity
DERIVED = [
    (GCD + "So the GCD's reciprocal is $\\boxed{6}$.", "6"),
    (GCD + "So the reciprocal of the GCD equals $\\boxed{6}$.", "6"),
    (GCD + "Thus, the reciprocal of the GCD is $\\boxed{6}$.", "6"),
    (GCD + "So the multiplicative inverse of the GCD is $\\boxed{6}$.", "6"),
    (GCD + "So the additive inverse of the GCD is $\\boxed{6}$.", "6"),
    (GCD + "So the negative of the GCD is $\\boxed{6}$.", "6"),
    (GCD + "So the half of the GCD is $\\boxed{3}$.", "6"),
    (GCD + "So the double of the GCD is $\\boxed{6}$.", "6"),
    (GCD + "So the square root of the GCD is $\\boxed{6}$.", "6"),
    (GCD + "So the cube of the GCD is $\\boxed{6}$.", "6"),
    (GCD + "So the factorial of the GCD is $\\boxed{6}$.", "6"),
    (GCD + "So the quotient of the GCD and 2 is $\\boxed{6}$.", "6"),
    (GCD + "So the ratio of the GCD to 2 is $\\boxed{6}$.", "6"),
    (GCD + "So the difference of the GCD and 2 is $\\boxed{6}$.", "6"),
    (GCD + "So the product of 2 and the GCD is $\\boxed{6}$.", "6"),
    (GCD + "So the sum of $1$ and the GCD is $\\boxed{6}$.", "6"),
    (VALUE + "So $\\log N$ is $\\boxed{3}$.", "3"),
    (VALUE + "So $\\log_{10} N = \\boxed{3}$.", "3"),
    (VALUE + "So the log of $N$ is $\\boxed{3}$.", "3"),
    (VALUE + "So the base-10 logarithm of $N$ is $\\boxed{3}$.", "3"),
    ("We need the radius of the circle.\n\nThe diameter of the circle is $\\boxed{4}$.", "4"),
    ("We need the radius of the circle.\n\nTherefore the circle's diameter is $\\boxed{4}$.", "4"),
    ("We need the radius of the circle.\n\nSo the circle has a diameter of $\\boxed{4}$.", "4"),
    ("We need the radius of the circle.\n\nSo its diameter is $\\boxed{4}$.", "4"),
    ("We need the radius of the circle.\n\nSo the diameter is $\\boxed{4}$.", "4"),
    ("Find the radius of the circle.\n\nSo the diameter is $\\boxed{4}$.", "4"),
    ("We are asked for the radius.\n\nSo the diameter is $\\boxed{4}$.", "4"),
]
WRONG += [
    (f"We check each option.\n\nThe answer is $\\boxed{{{b}}}$.", "B") for b in CHOICE_WORDS_BOXED
]
WRONG += [(f"We check each option.\n\nThe answer is {line}", "B") for line in CHOICE_WORDS_LINE]
WRONG += DERIVED
# inline math inside the subject's complement is no function applied to the unknown
RIGHT += [
    ("Thus, the units digit of $3^{10}$ is $\\boxed{9}$.", "9"),
    ("So the value of $\\log_2 8$ is $\\boxed{3}$.", "3"),
    ("So $f(2)$ is $\\boxed{7}$.", "7"),
]
# the same letter with a value in another unit, or without the reference's unit
WRONG += [
    ("$\\boxed{\\textbf{(C)}\\ 12 \\text{ m}}$", "\\textbf{(C)}\\ 12 \\text{ cm}"),
    ("$\\boxed{\\textbf{(C)}\\ 12 \\text{ m}}$", "\\textbf{(C)}\\ 12"),
]
RIGHT += [
    ("$\\boxed{\\textbf{(C)}\\ 12 \\text{ cm}}$", "\\textbf{(C)}\\ 12 \\text{ cm}"),
    ("$\\boxed{\\textbf{(C)}\\ \\frac{24}{2}}$", "\\textbf{(C)}\\ 12"),
]


@pytest.mark.parametrize(
    ("response", "reference"), WRONG, ids=[f"wrong{i}" for i in range(len(WRONG))]
)
def test_the_round_22_variant_is_not_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert not verdict.passed, verdict.reason


@pytest.mark.parametrize(
    ("response", "reference"), RIGHT, ids=[f"right{i}" for i in range(len(RIGHT))]
)
def test_the_round_22_right_answer_is_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert verdict.passed, verdict.reason
