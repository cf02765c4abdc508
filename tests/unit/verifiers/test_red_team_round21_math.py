"""Red team round 21: the shared half of the math cases a helper outside the project wrote against
the verifier after round 20 (the held-out half stays outside), each a labelled case (id, kind,
why), then near-variants of each mechanism written here: a reference whose scale word is followed
by a noun ("1.2 \\text{ million people}" is 1,200,000, never 1.2), and right answers in the final
sentences a small model writes: the subjects of number theory, geometry and choice answers
("the greatest common divisor of 12 and 18 is"), a thing or a person of the problem ("So the toy
costs", "So Tom is ... years old"), the verbs before a box ("they need", "Tom had", "We are left
with", "gives us"), the question restated after it ("dollars every day at the farmers' market"),
a counted noun inside the box, inline math then a noun on an answer line, and a column vector
answered as a tuple; with the look-alikes that must still fail (hedges, negations, bounds, other
values, another quantity's noun, a step or a source as the subject, a part or time after it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

from stages.verifiers.registry import build_verifier

DATA = Path(__file__).parent / "data"
# this round's rows name their mechanism "kind"; `check` reports it as "mechanism"
CASES = [{**case, "mechanism": case["kind"]} for case in load(DATA / "shared_round21_math.jsonl")]
VERIFIER = build_verifier({"kind": "math"})
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)


# (response, reference)
WRONG = [
    # scale words
    ("1.2", "1.2 \\text{ million people}"),
    ("The answer is $\\boxed{2}$.", "2 \\text{ hundred}"),
    ("\\boxed{5}", "5 dozen eggs"),
    ("\\boxed{3}", "3 \\text{ thousand dollars}"),
    ("\\boxed{2}", "2 hundred thousand"),
    ("\\boxed{200}", "2 hundred thousand"),
    ("\\boxed{3}", "3 \\text{ thousands of people}"),
    ("\\boxed{3000}", "3 \\text{ thousands of people}"),
    ("\\boxed{2}", "2 \\text{ and a half apples}"),
    ("\\boxed{1.5}", "1.5 \\text{ billion}"),
    ("\\boxed{1200001}", "1.2 \\text{ million people}"),
    ("\\boxed{3}", "3 \\text{ mil}"),
    ("\\boxed{2.5}", "2.5 \\text{ thousand km}"),
    ("\\boxed{205}", "2 \\text{ hundred and five}"),
    # subjects
    ("So the relevant step is $\\boxed{3}$.", "3"),
    ("So the first step gives $\\boxed{3}$.", "3"),
    ("So the greatest common divisor of 12 and 18 is at least $\\boxed{6}$.", "6"),
    ("So the greatest common divisor of 12 and 18 is not $\\boxed{6}$.", "6"),
    ("So the greatest common divisor is probably $\\boxed{6}$.", "6"),
    ("So the greatest common divisor of 12 and 18 is $\\boxed{4}$.", "6"),
    ("So my greatest common divisor is $\\boxed{6}$.", "6"),
    ("So the hypotenuse could be $\\boxed{5}$.", "5"),
    ("So the hypotenuse is at most $\\boxed{5}$.", "5"),
    ("So the units digit is $\\boxed{3}$ or $\\boxed{7}$.", "3"),
    ("So the teacher's units digit is $\\boxed{3}$.", "3"),
    ("So the incorrect option is $\\boxed{B}$.", "B"),
    ("So the wrong option is $\\boxed{B}$.", "B"),
    ("So the first option is $\\boxed{B}$.", "B"),
    ("So the cube has a volume of at least $\\boxed{27}$.", "27"),
    ("So the cube probably has a volume of $\\boxed{27}$.", "27"),
    ("So the cube does not have a volume of $\\boxed{27}$.", "27"),
    ("So the first box has $\\boxed{27}$ balls.", "27"),
    ("So the teacher has $\\boxed{27}$.", "27"),
    ("So the relevant step has $\\boxed{27}$.", "27"),
    ("So the calculator gives $\\boxed{27}$.", "27"),
    ("So the wrong answer has $\\boxed{27}$.", "27"),
    ("So the toy costs about $\\boxed{50}$ cents.", "50"),
    ("So the toy costs at most $\\boxed{50}$ cents.", "50"),
    ("So the toy costs $\\boxed{50}$ cents or more.", "50"),
    ("So Tom is not $\\boxed{12}$ years old.", "12"),
    ("So Tom is at least $\\boxed{12}$ years old.", "12"),
    ("So Tom is $\\boxed{12}$ years younger.", "12"),
    ("So Tom is $\\boxed{12}$ years old, maybe.", "12"),
    ("So Tom is maybe $\\boxed{12}$.", "12"),
    ("So Tom is $\\boxed{12}$ short.", "12"),
    # verbs
    ("So they need at least \\boxed{5} vans.", "5"),
    ("So they do not need \\boxed{5} vans.", "5"),
    ("So they need \\boxed{5} more vans.", "5"),
    ("Tom had 20 apples. So Tom had \\boxed{20} apples at first.", "20"),
    ("We are left with at most $\\boxed{12}$ apples.", "12"),
    ("We are not left with $\\boxed{12}$ apples.", "12"),
    ("Tom has 20 apples. We are left with $\\boxed{12}$ oranges.", "12 apples"),
    ("This gives us at least $\\boxed{12}$.", "12"),
    ("This gives us $\\boxed{12}$, or maybe 13.", "12"),
    ("Step 2 gives us $\\boxed{12}$.", "12"),
    # restated question
    ("She sells eggs. Janet makes \\(\\boxed{18}\\) dollars every day at the market, or 20.", "18"),
    ("She sells eggs. Janet makes \\(\\boxed{18}\\) dollars in the first week.", "18"),
    ("She sells eggs. Janet makes \\(\\boxed{18}\\) dollars at the end of the day.", "18"),
    ("She sells eggs. Janet makes \\(\\boxed{18}\\) dollars in the worst case.", "18"),
    ("She sells eggs. Janet makes \\(\\boxed{18}\\) dollars at most.", "18"),
    ("She sells eggs. Janet makes \\(\\boxed{18}\\) dollars in the fifth week.", "18"),
    ("She sells eggs. Janet makes \\(\\boxed{18}\\) dollars at the market if it rains.", "18"),
    ("She sells eggs. Janet makes \\(\\boxed{18}\\) dollars in the thousands.", "18"),
    ("She sells eggs. Janet makes \\(\\boxed{18}\\) dollars in the form of coins.", "18"),
    ("Janet has 18 apples. So Janet has \\(\\boxed{18}\\) oranges at the market.", "18 apples"),
    # counted noun in the box
    ("She has 16 eggs. The answer is $\\boxed{9 \\text{ hens}}$.", "9"),
    ("The answer is $\\boxed{9 \\text{ eggs}}$.", "9"),
    ("She has 16 eggs. $\\boxed{9 \\text{ dozen eggs}}$.", "9"),
    ("She has 16 eggs. $\\boxed{9 \\text{ more eggs}}$.", "9"),
    ("She has 16 eggs. $\\boxed{9 \\text{ eggs or more}}$.", "9"),
    ("She has 16 eggs and hens. $\\boxed{9 \\text{ hens}}$.", "9 \\text{ eggs}"),
    ("She has 16 eggs. $\\boxed{9 \\text{ tens}}$.", "9"),
    ("She has 16 eggs. $\\boxed{9 \\text{ eggs}}$, I guess.", "9"),
    # inline math and a noun
    ("Tom has 20 apples. So, the answer is $12$ more apples.", "12"),
    ("Tom has 20 apples. So, the answer is $12$ dozen apples.", "12"),
    ("So, the answer is $12$ apples.", "12"),
    ("Tom has 20 apples and oranges. So, the answer is $12$ oranges.", "12 apples"),
    ("Tom has 20 apples. So, the answer is $12$ apples or more.", "12"),
    # vectors
    ("\\boxed{(2, 1)}", "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}"),
    ("\\boxed{\\{1, 2\\}}", "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}"),
    ("\\boxed{(1, 2, 3, 4)}", "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}"),
    ("\\boxed{(1, 2)}", "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}"),
    ("\\boxed{(1, 2)} or \\boxed{(2, 1)}", "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}"),
    # a claim, a method or a source as the subject; a part of the mathematics after the answer
    ("So Guess is $\\boxed{5}$.", "5"),
    ("So Estimate is $\\boxed{5}$.", "5"),
    ("So Draft is $\\boxed{5}$.", "5"),
    ("Thus Wolfram is $\\boxed{5}$.", "5"),
    ("Hence Conjecture is $\\boxed{5}$.", "5"),
    ("So Claim is $\\boxed{5}$.", "5"),
    ("So Teacher is $\\boxed{5}$.", "5"),
    ("So Bob's friend is $\\boxed{5}$.", "5"),
    ("So the brute force gets $\\boxed{5}$.", "5"),
    ("So the answer key has $\\boxed{5}$.", "5"),
    ("So the textbook has $\\boxed{5}$.", "5"),
    ("So the interval contains $\\boxed{5}$.", "5"),
    ("So the tank holds at least $\\boxed{5}$ gallons.", "5"),
    ("So there is $\\boxed{5}$ in the denominator.", "5"),
    ("So we get $\\boxed{5}$ on the calculator.", "5"),
    # "had" and nothing named: an earlier state as likely as the answer
    ("She had \\boxed{18}.", "18"),
    ("So Tom had \\boxed{20}.", "20"),
    # "option" names a choice's letter, never a number (option 5 is the fifth choice)
    ("The answer is option 5", "5"),
    ("The answer is option $\\boxed{5}$.", "5"),
    ("The answer is option (5).", "5"),
    ("The answer is option $\\boxed{C}$.", "B"),
    ("The answer is not option $\\boxed{B}$.", "B"),
    ("The answer is option B or C.", "B"),
]

RIGHT = [
    ("\\boxed{2500}", "2.5 \\text{ thousand km}"),
    ("\\boxed{2500 \\text{ km}}", "2.5 \\text{ thousand km}"),
    ("\\boxed{1200000}", "1.2 \\text{ Million people}"),
    ("So she had \\boxed{\\$18}.", "18"),
    ("Tom had 20 apples. So Tom had \\boxed{20} apples.", "20"),
    ("So the answer is option $\\boxed{B}$.", "B"),
    ("The answer is option (B).", "B"),
    ("The answer is choice $\\boxed{B}$.", "B"),
    ("The projection is $\\boxed{(1, 2)}$.", "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}"),
    ("Tom writes 6 pages. So, James writes \\boxed{624} pages in a year.", "624"),
    ("Thus the largest prime factor of 91 is $\\boxed{13}$.", "13"),
    ("So the leading coefficient is $\\boxed{3}$.", "3"),
    ("Therefore, the hypotenuse has length $\\boxed{5}$.", "5"),
    ("\\boxed{1200000}", "1.2 \\text{ million people}"),
    ("\\boxed{200}", "2 \\text{ hundred}"),
    ("\\boxed{60}", "5 dozen eggs"),
    ("\\boxed{3000}", "3 \\text{ thousand dollars}"),
    ("\\boxed{200000}", "2 hundred thousand"),
    ("\\boxed{1500000000}", "1.5 \\text{ billion}"),
    ("\\boxed{18}", "18 \\text{ apples}"),
    ("So the greatest common divisor of $12$ and $18$ is $\\boxed{6}$.", "6"),
    ("Thus the least common multiple of 4 and 6 is $\\boxed{12}$.", "12"),
    ("Therefore, the GCD of 12 and 18 is $\\boxed{6}$.", "6"),
    ("Hence the hypotenuse has length $\\boxed{5}$.", "5"),
    ("So the length of the hypotenuse is $\\boxed{5}$.", "5"),
    ("So the y-intercept is $\\boxed{-3}$.", "-3"),
    ("The units digit of $3^{10}$ is $\\boxed{9}$.", "9"),
    ("So the tens digit is $\\boxed{4}$.", "4"),
    ("So the $n$th term is $\\boxed{2n+1}$.", "2n+1"),
    ("So the 100th term is $\\boxed{201}$.", "201"),
    ("Thus the 10th term of the sequence is $\\boxed{29}$.", "29"),
    ("So the correct option is $\\boxed{B}$.", "B"),
    ("The correct answer choice is $\\boxed{C}$.", "C"),
    ("So the correct choice is $\\boxed{D}$.", "D"),
    ("So the cube has a volume of $\\boxed{27}$.", "27"),
    ("Therefore, the rectangle has an area of $\\boxed{24}$ square units.", "24"),
    ("So the tank holds $\\boxed{40}$ gallons.", "40"),
    ("So the toy costs $\\boxed{50}$ cents.", "50"),
    ("So the red ball costs $\\boxed{50}$ cents.", "50"),
    ("So Tom is $\\boxed{12}$ years old.", "12"),
    ("Therefore, Maria is $\\boxed{12}$ years old.", "12"),
    ("Therefore, she is $\\boxed{12}$ years old.", "12"),
    ("Each van carries 8 people. So they need \\boxed{5} vans.", "5"),
    ("Tom had 20 apples. So Tom had \\boxed{20} apples.", "20"),
    ("Tom has 20 apples and gives away 8 apples. We are left with $\\boxed{12}$ apples.", "12"),
    ("Tom has 20 apples. So she is left with $\\boxed{12}$ apples.", "12"),
    ("Tom has 20 apples. This leaves us with $\\boxed{12}$ apples.", "12"),
    ("Subtracting gives us $\\boxed{12}$.", "12"),
    ("This gives us $\\boxed{12}$.", "12"),
    (
        "She sells eggs for 2 dollars. Therefore, Janet makes \\(\\boxed{18}\\) dollars every day at the farmers' market.",
        "18",
    ),
    ("She sells eggs. So Janet makes \\(\\boxed{18}\\) dollars per week at her job.", "18"),
    (
        "There are 30 students in the class. So there are $\\boxed{12}$ students in the library.",
        "12",
    ),
    ("She has 16 eggs and eats 7 eggs. The answer is $\\boxed{9 \\text{ eggs}}$.", "9"),
    ("She has 16 eggs and eats 7 eggs. So she has $\\boxed{9 \\text{ eggs}}$ left.", "9"),
    ("She has 16 eggs. $\\boxed{9 \\text{ eggs}}$", "9 \\text{ eggs}"),
    ("Tom has 20 apples and gives away 8 apples. So, the answer is $12$ apples.", "12"),
    ("Tom has 20 apples. The final answer is $12$ apples.", "12 apples"),
    ("\\boxed{(1, 2)}", "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}"),
    ("\\boxed{(1, 2, 3)}", "\\begin{pmatrix} 1 \\\\ 2 \\\\ 3 \\end{pmatrix}"),
    ("\\boxed{\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}}", "(1, 2)"),
    ("\\boxed{\\langle 1, 2 \\rangle}", "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}"),
]


@pytest.mark.parametrize(
    ("response", "reference"), WRONG, ids=[f"wrong{i}" for i in range(len(WRONG))]
)
def test_the_round_21_variant_is_not_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert not verdict.passed, verdict.reason


@pytest.mark.parametrize(
    ("response", "reference"), RIGHT, ids=[f"right{i}" for i in range(len(RIGHT))]
)
def test_the_round_21_right_answer_is_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert verdict.passed, verdict.reason
