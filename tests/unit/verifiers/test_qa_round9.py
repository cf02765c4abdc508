"""Red team round 9 against the QA verifier (issue 27): each mechanism with the shared example and
twins written here, the wrong look-alike failing next to the right form passing. Wrong answers
fail with a reward under the pass threshold (0 where the response does not commit); right ones
pass with reward 1. `golds` is the answer, then its aliases, split on `|`."""

from __future__ import annotations

import pytest

from stages.verifiers.qa_verifier import QAVerifier
from stages.verifiers.types import QAReference

# (kind, response, golds, why): each must fail.
WRONG = [
    # U+037E, the Greek question mark, looks like `;` and is a question mark; so are its kin
    ("question_lookalike", "Paris \u037e", "Paris", "shared: Greek question mark"),
    ("question_lookalike", "<answer>Paris\u037e</answer>", "Paris", "inside the tag"),
    ("question_lookalike", "<answer>Paris</answer>\u037e", "Paris", "after the tag"),
    ("question_lookalike", "Paris \u055e", "Paris", "Armenian question mark"),
    ("question_lookalike", "Paris \uff1f", "Paris", "full-width"),
    ("question_lookalike", "Paris \u061f", "Paris", "Arabic"),
    ("question_lookalike", "\u00bfParis", "Paris", "inverted, alone"),
    # an unchecked box leaves the choice open
    ("unchecked_box", "[ ] Paris", "Paris", "shared"),
    ("unchecked_box", "<answer>[ ] Paris</answer>", "Paris", "in the tag"),
    ("unchecked_box", "- [ ] Paris", "Paris", "a markdown task"),
    ("unchecked_box", "[] Paris", "Paris", "no space"),
    ("unchecked_box", "\u2610 Paris", "Paris", "the ballot box"),
    ("unchecked_box", "Answer: \u2b1c Paris", "Paris", "a white square"),
    ("unchecked_box", "[x] London", "Paris", "a checked box on a wrong answer"),
    # a bound or approximation sign on a number is another answer
    ("bound_sign", ">12", "12", "shared"),
    ("bound_sign", "12+", "12", "shared"),
    ("bound_sign", "<answer>>1500</answer>", "1500", "shared"),
    ("bound_sign", ">=12", "12", "shared"),
    ("bound_sign", "<12", "12", "shared"),
    ("bound_sign", "<answer>12+</answer>", "12", "shared"),
    ("bound_sign", "Answer: 1500 +", "1500", "shared: spaced"),
    ("bound_sign", "<= 12", "12", "spaced, at most"),
    ("bound_sign", "=>12", "12", "reversed"),
    ("bound_sign", "\u226512", "12", "the sign itself"),
    ("bound_sign", "\u224812", "12", "approximately"),
    ("bound_sign", "~12", "12", "a tilde"),
    ("bound_sign", "\uff1e12", "12", "full-width"),
    ("bound_sign", ">12", ">=12", "a strict bound is not an inclusive one"),
    ("bound_sign", "12", "18+", "the bound is part of the gold"),
    # a percent sign is part of the value, both ways
    ("percent_sign", "12%", "12", "shared"),
    ("percent_sign", "12 %", "12", "spaced"),
    ("percent_sign", "12 percent", "12", "the word"),
    ("percent_sign", "12", "12%", "the gold's sign dropped"),
    ("percent_sign", "12\uff05", "12", "full-width"),
    # an ordinal is not the cardinal, nor another ordinal
    ("ordinal", "21", "21st", "the cardinal"),
    ("ordinal", "1st", "1", "the ordinal for a count"),
    ("ordinal", "2nd", "first", "another ordinal"),
    ("ordinal", "twenty-second", "21st", "another compound ordinal"),
    # number words name their own number only
    ("number_words", "fifteen hundred", "150", "not 150"),
    ("number_words", "two thousand and six", "2005", "another year"),
    ("number_words", "two three", "23", "two numbers, not one"),
    ("number_words", "five and six", "11", "a list, not a sum"),
    ("number_words", "one hundred first two", "1012", "an ordinal inside is no number"),
    ("ordinal", "100", "one hundredth", "the cardinal of a scale ordinal"),
    # an ISO date is its own date; day and month of a slashed date cannot be told apart
    ("numeric_date", "1990-02-10", "October 2, 1990", "month and day swapped"),
    ("numeric_date", "02/10/1990", "October 2, 1990", "slashes: ambiguous"),
    ("numeric_date", "1990-13-02", "October 2, 1990", "no thirteenth month"),
    ("numeric_date", "1991-10-02", "October 2, 1990", "another year"),
    # a magnitude is its value; a unit letter is no magnitude
    ("magnitude", "1.5k", "15000", "another value"),
    ("magnitude", "1.5M", "1500", "mega, not kilo"),
    ("magnitude", "5m", "5000000", "lower-case m is metres"),
    ("magnitude", "300 K", "300000", "spaced K is kelvin"),
    # a locator may not move the place away from where a gold puts it
    ("place_locator", "Paris, Texas", "Paris, France", "another country named by the gold"),
    # round 11: a bare gold does not say which place it means, and there is no gazetteer
    ("place_locator", "Athens, Georgia", "Athens", "a lesser Athens, or a country?"),
    ("place_locator", "Moscow, Idaho", "Moscow", "a lesser Moscow"),
    ("place_locator", "Perth, Scotland", "Perth", "a lesser Perth"),
    ("place_locator", "Paris, France", "Paris", "which Paris the bare gold means is unsaid"),
    ("place_locator", "Austin, Texas, USA", "Austin", "which Austin the bare gold means is unsaid"),
    ("bound_sign", "12%+", "12%", "a bound after the percent sign"),
    ("bound_sign", "1.5k+", "1500", "a bound after a magnitude"),
    ("bound_sign", "12th+", "12th", "a bound after an ordinal"),
    ("place_locator", "Paris, Texas", "Paris|Paris, France", "an alias says where it is"),
    ("place_locator", "Georgia, USA", "Georgia", "the gold is the country, not the state"),
    ("place_locator", "Paris, London", "Paris", "a city is no locator"),
    ("place_locator", "London, Paris", "Paris", "the gold as the locator"),
    ("place_locator", "Lyon, France", "Paris", "a right country, a wrong city"),
    ("place_locator", "Bank of America, USA", "Bank of America", "the gold names a place"),
    ("place_locator", "Paris, maybe France", "Paris", "doubt in the locator"),
    (
        "place_locator",
        "Paris, Texas, France",
        "Paris|Paris, France",
        "a state the gold does not name",
    ),
    ("place_locator", "Austin, Texas, France", "Austin, Texas", "a country the gold does not name"),
]

# (kind, response, golds, why): each must pass with reward 1.
RIGHT = [
    ("plain_semicolon", "Paris;", "Paris", "an ASCII semicolon closes, it asks nothing"),
    ("checked_box", "[x] Paris", "Paris", "a checked box commits"),
    ("checked_box", "- [X] Paris", "Paris", "a checked markdown task"),
    ("checked_box", "\u2611 Paris", "Paris", "the checked ballot box"),
    ("checked_box", "\u2705 Paris", "Paris", "the check mark button"),
    ("checked_box", "<answer>Paris \u2714</answer>", "Paris", "a check mark after it"),
    ("checked_box", "\u2714\ufe0f Paris", "Paris", "with the emoji selector"),
    ("bound_sign", "18+", "18+", "a gold with a bound"),
    ("bound_sign", "C++", "C++", "a name's plus is untouched"),
    ("percent_sign", "12 percent", "12%", "the word for the sign"),
    ("percent_sign", "12 %", "12%", "spaced"),
    ("percent_sign", "12 per cent", "12%", "two words"),
    ("ordinal", "1st", "first", "shared"),
    ("ordinal", "3rd", "third", "shared"),
    ("ordinal", "2nd", "second", "the brief's"),
    ("ordinal", "21st", "twenty-first", "a compound ordinal"),
    ("ordinal", "twenty first", "21st", "spaced"),
    ("ordinal", "Fourth", "4th", "capitalised"),
    ("ordinal", "October 21st", "October 21", "a day is a date's, not an ordinal"),
    ("ordinal", "the second of October, 1990", "October 2, 1990", "a spelled day"),
    ("number_words", "fifteen hundred", "1500", "shared"),
    ("number_words", "two thousand and five", "2005", "the brief's"),
    ("number_words", "one hundred twenty-three", "123", "hundreds and a compound"),
    ("number_words", "twenty-five hundred", "2,500", "a compound before hundred"),
    ("number_words", "three million two hundred thousand", "3200000", "two scales"),
    ("numeric_date", "1990-10-02", "October 2, 1990", "shared"),
    ("numeric_date", "1990-10-02", "2 October 1990", "day first"),
    ("numeric_date", "Oct. 2, 1990", "October 2, 1990", "an abbreviated month"),
    ("numeric_date", "2 Oct 1990", "1990-10-02", "both ways"),
    ("magnitude", "1.5k", "1500", "shared"),
    ("magnitude", "1.5k", "1,500", "a grouped gold"),
    ("magnitude", "2.5M", "2500000", "mega"),
    ("magnitude", "1.5 million", "1500000", "the word"),
    ("magnitude", "1.5e3", "1500", "e-notation"),
    ("magnitude", "5m", "5 m", "metres stay metres"),
    ("place_locator", "Paris (France)", "Paris|Paris, France", "in parentheses, as an alias says"),
    (
        "place_locator",
        "<answer>Paris (France).</answer>",
        "Paris|Paris, France",
        "a closing period",
    ),
    ("place_locator", "Springfield (Illinois)", "Springfield|Springfield, Illinois", "a US state"),
    ("place_locator", "Toronto (Ontario)", "Toronto|Toronto, Ontario", "a Canadian province"),
    ("place_locator", "Paris, France", "Paris|Paris, France", "the locator the alias names"),
    ("number_words", "a thousand", "1000", "`a` for one before a scale"),
    ("number_words", "One Thousand Splendid Suns", "A Thousand Splendid Suns", "in a title"),
    ("numeric_date", "1990-10-2", "October 2, 1990", "ISO without the day's zero"),
    ("ordinal", "101st", "one hundred and first", "an ordinal after a scale"),
    ("ordinal", "one hundred twenty-first", "121st", "a compound ordinal after a scale"),
]


def _verdict(response: str, golds: str):
    answer, *aliases = golds.split("|")
    return QAVerifier().verify(response, QAReference(answer=answer, aliases=aliases))


@pytest.mark.parametrize(("kind", "response", "golds", "why"), WRONG)
def test_round9_wrong_answers_fail(kind: str, response: str, golds: str, why: str) -> None:
    verdict = _verdict(response, golds)
    assert not verdict.passed, f"{kind} ({why}): {verdict.reason}"
    assert verdict.reward < 0.8, f"{kind} ({why}): reward {verdict.reward}"


@pytest.mark.parametrize(("kind", "response", "golds", "why"), RIGHT)
def test_round9_right_answers_pass(kind: str, response: str, golds: str, why: str) -> None:
    verdict = _verdict(response, golds)
    assert verdict.passed and verdict.reward == 1.0, f"{kind} ({why}): {verdict.reason}"


@pytest.mark.parametrize("response", ["Paris \u037e", "[ ] Paris", "\u2610 Paris"])
def test_an_open_box_or_a_question_earns_nothing(response: str) -> None:
    assert _verdict(response, "Paris").reward == 0.0


@pytest.mark.parametrize(
    "response", ["1" * 5000, "1" * 5000 + " thousand", "1" * 5000 + "k", "1" * 5000 + "st"]
)
def test_a_number_of_thousands_of_digits_is_an_answer_not_a_crash(response: str) -> None:
    """int() of 4300 digits or more raises (CPython's limit): the verifier read numbers so."""
    verdict = _verdict(response, "1" * 5000)
    assert verdict.passed == (response == "1" * 5000)
