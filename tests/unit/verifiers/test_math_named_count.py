"""A word problem's count named after its box ("So he has \\boxed{12} apples in total.") is the
answer where the response spoke of those things before; a word that could change what the number
means (a scale, a fraction, an operation, a hedge, a comparison) still makes it no answer."""

from __future__ import annotations

import pytest

from stages.verifiers.math_verifier import MathVerifier

WORKING = "Tom has 5 apples and buys 7 more apples, so 5 + 7 = 12. "

RIGHT = [
    (WORKING + "So he has \\boxed{12} apples.", "12"),
    (WORKING + "So he has \\boxed{12} apples in total.", "12"),
    (WORKING + "So he has $\\boxed{12}$ apples altogether.", "12"),
    ("There are 3 rows of 4 apple trees. So there are \\boxed{12} apple trees.", "12"),
    ("Each of the 3 cows has 4 legs, so \\boxed{12} legs.", "12"),
]
WRONG = [
    # never spoken of before: nothing says what the word counts
    ("So he has \\boxed{12} apples in total.", "12"),
    # words that scale, divide, operate on, or qualify the number
    ("We count in tens here. So \\boxed{5} tens.", "5"),
    ("Each cake is cut in halves. So \\boxed{5} halves.", "5"),
    ("A dozen eggs cost 2. So \\boxed{12} dozen.", "12"),
    ("We have tenths. So \\boxed{12} tenths.", "12"),
    (WORKING + "So \\boxed{12} apples squared.", "12"),
    (WORKING + "So \\boxed{12} more apples.", "12"),
    (WORKING + "So \\boxed{12} apples each.", "12"),
    (WORKING + "So \\boxed{12} apples approximately.", "12"),
    (WORKING + "So \\boxed{12} apples or maybe pears.", "12"),
    (WORKING + "So \\boxed{12} apples, not 13.", "12"),
    (WORKING + "So \\boxed{12} apples is wrong.", "12"),
    (WORKING + "So \\boxed{12} apples, I think.", "12"),
    (WORKING + "So \\boxed{12} apples?", "12"),
    (WORKING + "So \\boxed{12} apples. Actually 13 apples.", "12"),
    (WORKING + "So \\boxed{12} apples apples apples apples.", "12"),
    (WORKING + "So \\boxed{12} thousand apples.", "12"),
]


@pytest.mark.parametrize(("response", "reference"), RIGHT)
def test_a_named_count_is_the_answer(response: str, reference: str) -> None:
    verdict = MathVerifier().verify(response, reference)
    assert verdict.passed, verdict.reason


@pytest.mark.parametrize(("response", "reference"), WRONG)
def test_a_word_that_changes_the_count_is_no_answer(response: str, reference: str) -> None:
    verdict = MathVerifier().verify(response, reference)
    assert not verdict.passed, verdict.reason
