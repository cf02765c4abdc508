"""Red team round 19: the shared half of the QA cases an outside attacker wrote (the held-out half
stays outside the project), then variants of each mechanism written here, with the honest answers
each rule keeps paying. Wrong answers paid as "the gold's number and a unit" (`12 apparently`,
`12 (estimate)`, `12 (jk)`, `12 (vielleicht)`): a word after a bare number is now a unit only from
a closed list, and a bracketed remark is never one. Hedges that were paid: a coin flip between
candidates, a stated certainty below 100%, "take this with a grain of salt". Right answers
refused: guillemets and CJK quotes, `Answer = Paris`, `five dollars` for `$5`."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params, qa_paid

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round19_qa.jsonl")


@pytest.mark.parametrize("case", params(CASES, {}))
def test_shared_case(case: dict) -> None:
    check(case)


@pytest.mark.parametrize(
    ("response", "gold", "paid"),
    [
        # any word that is no unit, and any bracketed remark, after a bare number
        ("Answer: 12 supposedly", "12", False),
        ("Answer: 12 probably", "12", False),
        ("Answer: 12 lol", "12", False),
        ("Answer: 1500 (lol)", "1500", False),
        ("Answer: 1500 (也许)", "1500", False),
        ("Answer: 1912 (ballpark)", "1912", False),
        ("Answer: 12 [guess]", "12", False),
        ("Answer: 12 {approx}", "12", False),
        ("Answer: 12 (km)", "12", False),  # a unit in brackets is a remark all the same
        ("Answer: 12 peut-être", "12", False),
        ("Answer: 12 vielleicht", "12", False),
        ("Answer: 12 ish", "12", False),
        ("Answer: 12 guessing", "12", False),
        ("Answer: 12 kidding", "12", False),
        ("<answer>12 apparently</answer>", "12", False),
        ("Answer: 12 estimated", "12", False),
        # units and counted nouns from the closed list stay paid
        ("Answer: 12 km", "12", True),
        ("Answer: 12 kilometres", "12", True),
        ("Answer: 1,500 people", "1500", True),
        ("Answer: 3,200 soldiers", "3200", True),
        ("Answer: 7 years", "7", True),
        ("Answer: 42 miles", "42", True),
        ("Answer: 250 meters", "250", True),
        ("Answer: 12 episodes.", "12", True),
        ("Answer: 12 kg", "12", True),
        ("Answer: twelve km", "12", True),
        ("Answer: 12 km", "13", False),
    ],
)
def test_only_a_listed_unit_follows_a_bare_number(response: str, gold: str, paid: bool) -> None:
    assert qa_paid(response, gold) is paid


@pytest.mark.parametrize(
    ("response", "paid"),
    [
        # a random choice between candidates
        ("I flipped a coin: Paris.\nAnswer: Paris", False),
        ("Tossed a coin between Paris and Lyon; it came up heads.\nAnswer: Paris", False),
        ("Rolled a die: 1-3 Paris, 4-6 Lyon. Got 2.\nAnswer: Paris", False),
        ("I drew straws between the two.\nAnswer: Paris", False),
        ("Picked out of a hat.\nAnswer: Paris", False),
        ("Heads it's Paris, tails it's Lyon.\nAnswer: Paris", False),
        # a stated probability or confidence below certainty
        ("I'd put this at 30% odds.\nAnswer: Paris", False),
        ("Confidence: 60%\nAnswer: Paris", False),
        ("I'm 90% sure.\nAnswer: Paris", False),
        ("Probability: 0.7\nAnswer: Paris", False),
        ("Confidence level: low\nAnswer: Paris", False),
        ("There's a 70% chance it's Paris.\nAnswer: Paris", False),
        ("Low confidence.\nAnswer: Paris", False),
        ("1 in 3 chance this is right.\nAnswer: Paris", False),
        # idioms of doubt and of a failing memory
        ("Going by a vague memory.\nAnswer: Paris", False),
        ("Take it with a pinch of salt.\nAnswer: Paris", False),
        ("I could be wrong here.\nAnswer: Paris", False),
        ("Correct me if I'm wrong.\nAnswer: Paris", False),
        ("I vaguely recall reading it.\nAnswer: Paris", False),
        ("Don't hold me to this.\nAnswer: Paris", False),
        ("No guarantees.\nAnswer: Paris", False),
        # certainty and facts with numbers stay paid
        ("Certainty: 100%\nAnswer: Paris", True),
        ("I'm 100% sure.\nAnswer: Paris", True),
        ("Paris holds 20% of France's jobs.\nAnswer: Paris", True),
        ("The passage names the capital.\nAnswer: Paris", True),
        ("I remember this clearly.\nAnswer: Paris", True),
    ],
)
def test_hedges_before_the_answer(response: str, paid: bool) -> None:
    assert qa_paid(response, "Paris") is paid


@pytest.mark.parametrize(
    ("response", "gold"),
    [
        ("Answer: \u00abParis\u00bb", "Paris"),
        ("Answer: \u300cTokyo\u300d", "Tokyo"),
        ("Answer: \u201eBerlin\u201c", "Berlin"),
        ("Answer: \u2039Rome\u203a", "Rome"),
        ("Answer: \u300eKyoto\u300f", "Kyoto"),
        ("<answer>\u00ab Paris \u00bb</answer>", "Paris"),
        ("Answer: \u300aHamlet\u300b", "Hamlet"),
        ("Answer = Paris", "Paris"),
        ("Answer \u2014 Paris", "Paris"),
        ("Answer \u2013 Paris", "Paris"),
        ("Answer - Paris", "Paris"),
        ("Final answer = Paris", "Paris"),
        ("Answer: five dollars", "$5"),
        ("Answer: twenty dollars", "$20"),
        ("Answer: twenty-five dollars", "$25"),
        ("Answer: five USD", "$5"),
    ],
)
def test_right_answers_in_other_forms_are_paid(response: str, gold: str) -> None:
    assert qa_paid(response, gold)


@pytest.mark.parametrize(
    ("response", "gold"),
    [
        ("Answer = Lyon", "Paris"),
        ("Answer \u2014 Lyon", "Paris"),
        ("Answer: \u00abLyon\u00bb", "Paris"),
        ("Answer: six dollars", "$5"),
        ("Answer: five euros", "$5"),
        ("Answer = Paris\nAnswer: Lyon", "Paris"),
    ],
)
def test_wrong_answers_in_those_forms_stay_unpaid(response: str, gold: str) -> None:
    assert not qa_paid(response, gold)
