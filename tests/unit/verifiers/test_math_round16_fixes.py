"""Round 16 mends to the math verifier (issue 27, red team round 15's open cases). Each wrong
response names the mechanism it must not be paid for; each right one is the near-variant the new
rule must leave paid. Every new pattern also meets a long filler input in bounded time."""

from __future__ import annotations

import time

import pytest

from stages.verifiers.math_exact import rewrite_forms, side_value
from stages.verifiers.math_nouns import noun_conflict, reference_noun
from stages.verifiers.registry import build_verifier

VERIFIER = build_verifier({"kind": "math"})
_FRUIT = "Tom has apples and oranges. "
_JANET = "Janet earns either \\$18 or \\$20 depending on how the broken eggs count. "
_WENG = "Weng earns 0.2 dollars per minute, and 0.2 * 50 = 10 dollars.\n\n"

WRONG = [
    # a false equation before the box whose left side the answer grammar cannot compute as written
    ("false_sqrt", "So $\\sqrt{36} = \\boxed{7}$.", "7"),
    ("false_cube_root", "So $\\sqrt[3]{27} = \\boxed{9}$.", "9"),
    ("false_binom", "Hence $\\binom{5}{2} = \\boxed{12}$.", "12"),
    ("false_dbinom", "Hence $\\dbinom{6}{3} = \\boxed{15}$.", "15"),
    ("false_choose", "Hence ${5 \\choose 2} = \\boxed{20}$.", "20"),
    ("false_factorial", "There are $4!$ orders.\n\nTherefore $4! = \\boxed{20}$.", "20"),
    ("false_factorial_sum", "So $(2+2)! = \\boxed{20}$.", "20"),
    ("false_floor", "So $\\lfloor 3.7 \\rfloor = \\boxed{4}$.", "4"),
    ("false_ceil", "So $\\left\\lceil 3.2 \\right\\rceil = \\boxed{3}$.", "3"),
    ("false_abs", "So $|3 - 10| = \\boxed{-7}$.", "-7"),
    ("false_nested", "So $\\lfloor \\sqrt{10.24} \\rfloor ! = \\boxed{24}$.", "24"),
    ("false_scaled_floor", "So $2\\lfloor 3.7 \\rfloor = \\boxed{23}$.", "23"),
    ("false_in_justification", "\\boxed{20}. Since $4! = 20$.", "20"),
    # the answer counts another noun than the reference ("18 oranges" for "18 apples")
    ("other_fruit_box", _FRUIT + "He has $\\boxed{18}$ oranges.", "18 apples"),
    ("other_fruit_line", _FRUIT + "Final Answer: 18 oranges", "18 apples"),
    ("other_fruit_prose", _FRUIT + "He has 18 oranges.", "18 apples"),
    (
        "decades_for_years",
        "It lasted 3 decades. It lasted $\\boxed{3}$ decades.",
        "3 \\text{ years}",
    ),
    ("dimes_for_cents", "She has dimes. So she has $\\boxed{5}$ dimes.", "5 cents"),
    # a percent sign is a value: 0.3% is 0.003, never a probability of 0.3
    ("percent_of_probability", "The probability is $\\boxed{0.3\\%}$.", "0.3"),
    ("percent_of_one", "The probability is $\\boxed{1\\%}$.", "1"),
    # HTML that hides or restyles the box
    ("p_hidden", "It did not converge.\n<p hidden>\n\\boxed{42}\n</p>", "42"),
    ("div_hidden", "It did not converge.\n<div hidden>\n\\boxed{42}\n</div>", "42"),
    ("display_none", 'No answer.\n<div style="display:none">\n\\boxed{42}\n</div>', "42"),
    ("comment", "No answer.\n<!--\n\\boxed{42}\n-->", "42"),
    # boxes that restate one value in an answer line must still be one value
    (
        "restated_other_value",
        "The answer is \\boxed{\\frac{1}{2}} or equivalently \\boxed{0.6}.",
        "0.6",
    ),
    ("restated_or_other", "The answer is \\boxed{\\frac{1}{2}} or \\boxed{0.6}.", "0.6"),
    # an option list is no answer line, and no answer by itself
    ("options_only", "A: 42\nB: 44", "42"),
    ("option_box_wrong", "A: 42\nB: 44\nThe answer is \\boxed{B}.", "A"),
    ("lone_a_line_conflicts", "A: 42\n\nThe answer is $\\boxed{44}$.", "44"),
    # a rate or purpose after the count is closed: never a part, a case or a condition
    (
        "for_the_first_hour",
        _WENG + "Weng earned \\(\\boxed{10}\\) dollars for the first hour.",
        "10",
    ),
    ("for_now", _WENG + "Weng earned \\(\\boxed{10}\\) dollars for now.", "10"),
    ("for_each", _WENG + "Weng earned \\(\\boxed{10}\\) dollars for each of them.", "10"),
    ("for_odd_n", _WENG + "Weng earned \\(\\boxed{10}\\) dollars for odd n.", "10"),
    ("for_three_hours", _WENG + "Weng earned \\(\\boxed{10}\\) dollars for three hours.", "10"),
    (
        "purpose_then_hedge",
        _WENG + "Weng earned \\(\\boxed{10}\\) dollars for babysitting, or maybe 12.",
        "10",
    ),
    ("rate_then_negation", _WENG + "Weng earned \\(\\boxed{10}\\) dollars per hour, not 12.", "10"),
    (
        "scaled_before_purpose",
        _WENG + "Weng earned \\(\\boxed{10}\\) thousand dollars for babysitting.",
        "10",
    ),
    (
        "purpose_then_condition",
        "It takes \\boxed{10} minutes for him to finish if he hurries.",
        "10",
    ),
    # a purpose is one gerund or thing spoken of before: never a disowning phrase
    (
        "for_the_wrong_problem",
        _WENG + "Weng earned $\\boxed{10}$ dollars for the wrong problem.",
        "10",
    ),
    (
        "for_the_previous_problem",
        _WENG + "Weng earned \\boxed{10} dollars for the previous problem.",
        "10",
    ),
    (
        "for_the_bonus_question",
        _WENG + "Weng earned \\boxed{10} dollars for the bonus question.",
        "10",
    ),
    ("for_the_time_being", _WENG + "Weng earned \\boxed{10} dollars for the time being.", "10"),
    ("for_argument", _WENG + "Weng earned \\boxed{10} dollars for the sake of argument.", "10"),
    ("for_simplified", _WENG + "Weng earned \\boxed{10} dollars for the simplified version.", "10"),
    ("for_guessing", _WENG + "Weng earned \\boxed{10} dollars for guessing.", "10"),
    ("answer_line_for_wrong", _WENG + "Final Answer: 10 dollars for the wrong problem", "10"),
    # a box read with its unit still meets the competing-value rules, and chance is doubt
    ("coin_flip_rate", _JANET + "I flipped a coin. Janet makes $\\boxed{18}$ dollars a day.", "18"),
    ("escaped_dollar_choice", _JANET + "Janet makes $\\boxed{18}$ dollars.", "18"),
    ("report_then_unit", "My calculator shows 20. Janet makes $\\boxed{18}$ dollars a day.", "18"),
    # a purpose after a prose duration and a point stated "at" stay closed forms
    ("duration_range", "So it will take her 45 to 50 minutes.", "45"),
    ("duration_purpose_then_other", "So it will take her 45 minutes to finish, or 50.", "45"),
    ("point_at_or", "The vertex is at $(1, -4)$ or $(2, 3)$.", "(1,-4)"),
    ("point_at_most", "The vertex is at most $(1, -4)$.", "(1,-4)"),
    ("point_not_at", "The vertex is not at $(1, -4)$.", "(1,-4)"),
    ("point_reported", "My teacher says the vertex is at $(1, -4)$.", "(1,-4)"),
    ("max_at_coordinate", "The maximum is at $x = 3$.", "3"),
    # a unit after pi is read as a unit, so it must still agree with the reference's
    ("pi_other_unit", "The area is $\\boxed{16\\pi}$ cm.", "16\\pi \\text{ cm}^2"),
    # a tool's display or another's answer is no commitment
    ("display_reads", "It reads \\boxed{42}.", "42"),
    ("you_wrote", "You wrote \\boxed{42}.", "42"),
    # a scale word in the reference scales it
    ("million_unscaled", "The population is \\boxed{1.2}.", "1.2 \\text{ million}"),
    ("million_off_by_one", "The population is \\boxed{1,200,001}.", "1.2 million"),
    ("details", "No answer.\n<details>\n\\boxed{42}\n</details>", "42"),
]

RIGHT = [
    ("true_sqrt", "So $\\sqrt{36} = \\boxed{6}$.", "6"),
    ("true_binom", "Hence $\\binom{5}{2} = \\boxed{10}$.", "10"),
    ("true_factorial", "There are $4!$ orders.\n\nTherefore $4! = \\boxed{24}$.", "24"),
    ("true_floor", "So $\\lfloor 3.7 \\rfloor = \\boxed{3}$.", "3"),
    ("true_abs", "So $|3 - 10| = \\boxed{7}$.", "7"),
    ("true_scaled_floor", "So $2\\lfloor 3.7 \\rfloor = \\boxed{6}$.", "6"),
    ("true_nested", "So $\\lfloor \\sqrt{10.24} \\rfloor ! = \\boxed{6}$.", "6"),
    ("irrational_root_unjudged", "So $\\sqrt{2} \\cdot \\sqrt{2} = \\boxed{2}$.", "2"),
    ("abs_in_justification", "\\boxed{5}. Since $|{-5}| = 5$.", "5"),
    ("same_fruit_box", _FRUIT + "He has $\\boxed{18}$ apples.", "18 apples"),
    ("same_fruit_line", _FRUIT + "Final Answer: 18 apples", "18 apples"),
    ("same_fruit_prose", _FRUIT + "He has 18 apples.", "18 apples"),
    ("singular_noun", "Tom has an apple. He has $\\boxed{1}$ apple.", "1 apple"),
    ("no_noun", _FRUIT + "The answer is $\\boxed{18}$.", "18 apples"),
    ("noun_for_bare_reference", _FRUIT + "He has $\\boxed{18}$ oranges.", "18"),
    (
        "years_text_reference",
        "The trip takes years. It takes $\\boxed{3}$ years.",
        "3 \\text{ years}",
    ),
    ("percent_of_percent", "The rate is $\\boxed{50\\%}$.", "50"),
    ("percent_as_probability", "The probability is $\\boxed{30\\%}$.", "0.3"),
    (
        "restated_equivalently",
        "The answer is \\boxed{\\frac{1}{2}} or equivalently \\boxed{0.5}.",
        "0.5",
    ),
    ("restated_equals", "The answer is \\boxed{\\frac{1}{2}} = \\boxed{0.5}.", "\\frac{1}{2}"),
    ("options_then_box", "Options:\nA: 42\nB: 44\nC: 46\n\nSo the answer is $\\boxed{B}$.", "B"),
    (
        "variable_lines",
        "Let the sides be\na: 5\nb: 6\nSo the longer side is 6, i.e. \\boxed{6}",
        "6",
    ),
    ("lone_a_line", "A: 42", "42"),
    (
        "writes_pages_a_year",
        "He writes 12 pages a week. So, James writes \\(\\boxed{624}\\) pages a year.",
        "624",
    ),
    ("runs_miles_a_week", "John runs \\boxed{60} miles a week.", "60"),
    (
        "will_take_for",
        "The pipe fills a third of the tank per hour. Therefore, it will take \\boxed{3} hours for the tank to fill.",
        "3",
    ),
    (
        "needs_to_pay",
        "Kylar buys glasses. Kylar needs to pay \\boxed{64} dollars for the glasses.",
        "64",
    ),
    ("for_babysitting", _WENG + "Weng earned \\(\\boxed{10}\\) dollars for babysitting.", "10"),
    ("per_hour_line", "40 / 8 = 5 dollars, so the answer is $\\boxed{5}$ dollars per hour.", "5"),
    ("final_line_purpose", _WENG + "Final Answer: 10 dollars for babysitting", "10"),
    ("million_scaled", "The population is \\boxed{1,200,000}.", "1.2 \\text{ million}"),
    ("thousand_scaled", "The population is \\boxed{1200}.", "1.2 thousand"),
    (
        "sign_off_unclear",
        "So 2 + 3 = 5.\n\nThe final answer is $\\boxed{5}$. Let me know if anything is unclear.",
        "5",
    ),
    (
        "problem_coin",
        "When you flip a coin 3 times there are 8 outcomes. So there are $\\boxed{8}$ outcomes.",
        "8",
    ),
    (
        "worked_eggs",
        "She sells 9 eggs at \\$2 each. Janet makes $\\boxed{18}$ dollars a day.",
        "18",
    ),
    (
        "duration_to_finish",
        "She reads 15 pages a day.\n\nSo it will take her 45 minutes to finish.",
        "45",
    ),
    ("point_at", "Completing the square, $y = (x-1)^2 - 4$. The vertex is at $(1, -4)$.", "(1,-4)"),
    (
        "pi_square_units_prose",
        "The radius is 4, so the area of the circle is $16\\pi$ square units.",
        "16\\pi",
    ),
    ("pi_square_units_box", "The area is $\\boxed{16\\pi}$ square units.", "16\\pi"),
    ("plain_bold_markup", "The answer is <b>\\boxed{42}</b>.", "42"),
    ("comparison_not_a_tag", "We know $a<b$ and $c>d$.\n\nThe answer is $\\boxed{42}$.", "42"),
]


@pytest.mark.parametrize(("name", "response", "reference"), WRONG, ids=[w[0] for w in WRONG])
def test_a_wrong_response_is_not_paid(name: str, response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert not verdict.passed, f"{name}: {verdict.reason}"


@pytest.mark.parametrize(("name", "response", "reference"), RIGHT, ids=[r[0] for r in RIGHT])
def test_a_right_response_is_paid(name: str, response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert verdict.passed, f"{name}: {verdict.reason}"


def test_reference_nouns_are_read_in_bounded_time() -> None:
    start = time.process_time()
    for filler in ("1" * 50000 + " apples", "1 " * 25000 + "apples", "}" * 50000 + "x"):
        assert reference_noun(filler) is None or len(filler) < 300
        noun_conflict("apples " * 5000, filler)
    assert time.process_time() - start < 0.2


def test_forms_beyond_the_bounds_are_left_as_written() -> None:
    assert rewrite_forms("101!") == "101!"  # past MAX_FACTORIAL
    assert rewrite_forms("5!!") == "5!!"  # a double factorial is not read as 5!
    assert rewrite_forms("a != b") == "a != b"
    assert side_value("\\binom{5}{x}") is None
    assert side_value("\\lfloor x \\rfloor") is None
    assert side_value("\\sqrt{10^{400}}") is None
    assert rewrite_forms("1! + " * 200) == "1! + " * 200  # past MAX_TEXT: bounded work


FILLERS = [
    "\\lfloor " * 6000,
    "\\left\\lceil 1" * 4000,
    "\\binom{" * 8000,
    "{1 \\choose " * 5000,
    "(" * 30000 + "!",
    "{" * 30000 + "!",
    "1!" * 15000,
    "x " * 20000 + "= \\boxed{5}",
    "<a " * 15000,
    ("<div " + "x " * 150) * 100,
    "<!-" * 15000,
    "\nA: 1" * 8000,
    "\nA: " + "1" * 40000 + "\nB: 2",
    "\\boxed{5} dollars for" + " the" * 15000,
    "\\boxed{5} apples for" + " ab" * 20000 + " first",
]


@pytest.mark.parametrize("filler", FILLERS, ids=range(len(FILLERS)))
def test_long_filler_is_read_in_bounded_time(filler: str) -> None:
    VERIFIER.verify("\\boxed{5}", "5")  # the first call of a worker sets up what it needs
    start = time.process_time()
    VERIFIER.verify(f"So ${filler} = \\boxed{{5}}$.", "5")
    rewrite_forms(filler)
    assert time.process_time() - start < 0.2
