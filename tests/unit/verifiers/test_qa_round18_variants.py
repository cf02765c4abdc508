"""Near variants of red team round 18's QA mechanisms (test_red_team_round18_qa.py), written here,
not by the attacker, with the honest answers each rule keeps paying; and the new patterns timed
on adversarial fillers (4x the text must take well under 16x the time)."""

from __future__ import annotations

import time

import pytest
from red_team_cases import qa_paid

from stages.verifiers.qa_answer_forms import as_gold_form
from stages.verifiers.qa_hedges import MORE_NO_COMMITMENT
from stages.verifiers.qa_strict import strict_tokens


@pytest.mark.parametrize(
    ("response", "gold", "paid"),
    [
        # scale words not listed, and plural ones
        ("<answer>42 lakhs</answer>", "42", False),
        ("<answer>42 crores</answer>", "42", False),
        ("<answer>42 millions</answer>", "42", False),
        ("<answer>42 quadrillion</answer>", "42", False),
        # other calendar eras and ages before present
        ("<answer>1500 AH</answer>", "1500", False),
        ("<answer>1500 BE</answer>", "1500", False),
        ("<answer>42 kya</answer>", "42", False),
        # bounds, before or after the number
        ("<answer>42 onwards</answer>", "42", False),
        ("<answer>42 tops</answer>", "42", False),
        ("<answer>under 42</answer>", "42", False),
        ("<answer>at most 42</answer>", "42", False),
        # ordinals and multiples
        ("<answer>42 thousandth</answer>", "42", False),
        ("<answer>42-fold</answer>", "42", False),
        ("<answer>42 twofold</answer>", "42", False),
        # a unit or a noun stays paid
        ("<answer>42 km</answer>", "42", True),
        ("<answer>1,500 people</answer>", "1500", True),
        ("<answer>42 months</answer>", "42", False),  # `-ths` stays no unit (round 17's rule)
    ],
)
def test_round18_words_after_a_number(response: str, gold: str, paid: bool) -> None:
    assert qa_paid(response, gold) is paid


@pytest.mark.parametrize(
    ("response", "paid"),
    [
        # a word inside "don't know"
        ("I don't honestly know. <answer>Lyon</answer>", False),
        ("I do not quite know. <answer>Lyon</answer>", False),
        ("I can't really say. <answer>Lyon</answer>", False),
        # idioms for not knowing
        ("Not the faintest idea. <answer>Lyon</answer>", False),
        ("Search me. <answer>Lyon</answer>", False),
        ("Your guess is as good as mine. <answer>Lyon</answer>", False),
        # refusing to commit
        ("I won't commit to an answer. <answer>Lyon</answer>", False),
        ("I'm reluctant to commit here. <answer>Lyon</answer>", False),
        ("Without committing: <answer>Lyon</answer>", False),
        # admitting it is made up
        ("I'm making this up. <answer>Lyon</answer>", False),
        ("Pure fabrication on my part. <answer>Lyon</answer>", False),
        ("I just invented it. <answer>Lyon</answer>", False),
        # certainty and denials stay paid
        ("I'm not making this up. <answer>Lyon</answer>", True),
        ("This is not the first time it was asked. <answer>Lyon</answer>", True),
        ("I know this one. <answer>Lyon</answer>", True),
        ("I'm fully committed to this: <answer>Lyon</answer>", True),
    ],
)
def test_round18_doubt_before_the_answer(response: str, paid: bool) -> None:
    assert qa_paid(response, "Lyon") is paid


@pytest.mark.parametrize(
    ("response", "gold", "paid"),
    [
        # a year with its era marker, where the gold names no era
        ("<answer>1500 CE</answer>", "1500", True),
        ("<answer>A.D. 1500</answer>", "1500", True),
        ("<answer>1500 BC</answer>", "1500", False),
        # the gold described by its kind
        ("<answer>the town of Lyon</answer>", "Lyon", True),
        ("<answer>the river Thames</answer>", "Thames", True),
        ("<answer>the city of Paris</answer>", "Lyon", False),
        ("<answer>the Republic of China</answer>", "China", False),  # another state
        ("It was Steve Jobs", "Steve Jobs", False),  # a bare copula stays (round 17)
        # St / Ste for Saint / Sainte, and back
        ("<answer>St. Louis</answer>", "Saint Louis", True),
        ("<answer>Saint Louis</answer>", "St. Louis", True),
        ("<answer>Ste Foy</answer>", "Sainte Foy", True),
    ],
)
def test_round18_right_answers_in_other_forms(response: str, gold: str, paid: bool) -> None:
    assert qa_paid(response, gold) is paid


_FILLERS = [" " * 1000, "don't really " * 80, "haven't the " * 80, "refuse to " * 100,
            "the city of " * 50, "1500 AD " * 50, "word\n" * 200]  # fmt: skip


@pytest.mark.parametrize("filler", _FILLERS, ids=lambda f: repr(f[:8]))
def test_round18_qa_patterns_read_adversarial_fillers_in_linear_time(filler: str) -> None:
    timings = []
    for size in (20_000, 80_000):
        text = filler * (size // len(filler))
        start = time.process_time()  # CPU seconds: wall time on a loaded machine is noise
        MORE_NO_COMMITMENT.search(text)
        as_gold_form(text, ["1500", "Lyon"], strict_tokens)
        qa_paid(text + " <answer>Lyon</answer>", "Lyon")
        timings.append(time.process_time() - start)
    assert timings[1] < 8 * timings[0] + 0.5, timings
