"""Round 17's mechanisms (issue 27, item 5) in other instances than the red team's, with the
honest controls each rule keeps: what the held-out half tries is the mechanism, not the words."""

from __future__ import annotations

import time

import pytest
from red_team_cases import qa_paid

from stages.verifiers.qa_strict import strict_tokens


def test_a_lowercase_numeral_after_a_series_head_is_its_number_not_a_crash() -> None:
    assert strict_tokens("stage iv") == ["stage", "num4"]
    assert qa_paid("Answer: type ii diabetes", "Type II diabetes")


@pytest.mark.parametrize(
    ("response", "gold", "paid"),
    [
        # a gold of punctuation only is its punctuation, as written
        ("<answer>?!</answer>", "?!", True),
        ("Answer: ...", "...", True),
        ("Answer: !!!", "!!!", True),
        ("Answer: !!", "!!!", False),
        ("Answer: ?", "?!", False),
        ("Answer: ...", "Paris", False),
        # a bare number and one unit or noun after it; never a word that changes the value
        ("Answer: 42 km", "42", True),
        ("<answer>3,200 soldiers</answer>", "3200", True),
        ("Answer: 7 years", "7", True),
        ("Answer: 1500 BC", "1500", False),
        ("Answer: 42 hundred", "42", False),
        ("Answer: 42 km", "43", False),
        ("Answer: 42 km 7", "42", False),
        ("Answer: 42 people roughly", "42", False),
        ("Answer: 42 not", "42", False),
        ("Answer: 5m", "5", False),  # five metres or five million
        ("Answer: 5 EUR", "$5", False),  # a gold with its unit keeps it
        ("Answer: 125 g", "12.5", False),
        ("Answer: 42 squared", "42", False),
        ("Answer: 42 grand", "42", False),
        ("Answer: 42 hundredths", "42", False),
        ("Answer: 4 score", "4", False),
        ("Answer: 42 ago", "42", False),
        ("Answer: 42 miles", "42", True),
        ("Answer: 250 meters", "250", True),  # a unit name read as its one-letter symbol
        ("Answer: 250 m", "250", False),
    ],
)
def test_punctuation_golds_and_numbers_with_a_unit(response: str, gold: str, paid: bool) -> None:
    assert qa_paid(response, gold) is paid


@pytest.mark.parametrize(
    ("response", "gold", "paid"),
    [
        # doubt in other languages, each from the same notions (not sure, maybe, probably, ...)
        ("No estoy seguro, pero <answer>Lyon</answer>", "Lyon", False),
        ("Vielleicht ist es Lyon.\nAnswer: Lyon", "Lyon", False),
        ("Forse. <answer>Lyon</answer>", "Lyon", False),
        ("Не уверен. Answer: Lyon", "Lyon", False),
        ("Talvez seja Lyon.\nAnswer: Lyon", "Lyon", False),
        ("Ik denk Lyon.\nAnswer: Lyon", "Lyon", False),
        ("たぶんリヨンです。<answer>Lyon</answer>", "Lyon", False),
        ("아마 리옹. <answer>Lyon</answer>", "Lyon", False),
        ("ربما <answer>Lyon</answer>", "Lyon", False),
        ("Emin değilim. <answer>Lyon</answer>", "Lyon", False),
        ("La ville est Lyon. <answer>Lyon</answer>", "Lyon", True),
        ("我确定。<answer>Lyon</answer>", "Lyon", True),
        ("Die Antwort steht im zweiten Absatz.\nAnswer: Lyon", "Lyon", True),
        # two candidates left standing, in any joining word
        ("It's Lyon versus Grenoble here. <answer>Lyon</answer>", "Lyon", False),
        ("Grenoble or Lyon could fit the description.\nAnswer: Lyon", "Lyon", False),
        ("Lyon and Grenoble are equally plausible. <answer>Lyon</answer>", "Lyon", False),
        ("Both Grenoble and Lyon match the clues.\nAnswer: Lyon", "Lyon", False),
        ("Lyon and Grenoble are both in France; only Lyon hosts it.\nAnswer: Lyon", "Lyon", True),
        ("Lyon beat Marseille 2-1.\nAnswer: Lyon", "Lyon", True),
        # a choice without grounds, in other words
        ("Nothing settles it, so I'll simply go with Lyon. <answer>Lyon</answer>", "Lyon", False),
        ("My instinct says Lyon.\nAnswer: Lyon", "Lyon", False),
        ("If I had to pick one: <answer>Lyon</answer>", "Lyon", False),
        ("Picking whichever sounds familiar. <answer>Lyon</answer>", "Lyon", False),
        ("Lyon feels like the likelier option. <answer>Lyon</answer>", "Lyon", False),
        ("Salmon find their river by instinct.\nAnswer: smell", "smell", True),
        ("The gut microbiome study was led in Lyon.\nAnswer: Lyon", "Lyon", True),
        # the answer denied before it is stated
        ("Lyon can be excluded.\nAnswer: Lyon", "Lyon", False),
        ("We can rule out Lyon. <answer>Lyon</answer>", "Lyon", False),
        ("It isn't Lyon.\nAnswer: Lyon", "Lyon", False),
        ("Lyon was never the capital of the region.\nAnswer: Lyon", "Lyon", False),
        ("Paris is ruled out by the second passage.\nAnswer: Lyon", "Lyon", True),
        ("Not Paris but Lyon.\nAnswer: Lyon", "Lyon", True),
        ("The answer is Lyon, not Paris.\nAnswer: Lyon", "Lyon", True),
        ("Grenoble isn't it; Lyon is.\nAnswer: Lyon", "Lyon", True),
        ("The team that never lost is Lyon.\nAnswer: Lyon", "Lyon", True),
        # certainty is no doubt; doubt stays doubt
        ("Without a doubt: <answer>Lyon</answer>", "Lyon", True),
        ("I am absolutely sure. Answer: Lyon", "Lyon", True),
        ("There's no question about it \u2014 Lyon", "Lyon", True),
        ("Definitely, Lyon.", "Lyon", True),
        ("So, answer: Lyon", "Lyon", True),
        ("I'm torn between the two. <answer>Lyon</answer>", "Lyon", False),
        ("<answer>Lyon rather than Paris</answer>", "Lyon", True),
        ("<answer>Paris rather than Lyon</answer>", "Lyon", False),
        ("I'm not sure. Answer: Lyon", "Lyon", False),
        ("I'm pretty sure. Answer: Lyon", "Lyon", False),
        ("I'm sure it's Paris. Answer: Lyon", "Lyon", False),  # sure of another: two answers
        # negation scoped to its clause: `X, not Y` and `not Y, but X` commit to X
        ("The largest city is Sydney, not Canberra.", "Sydney", True),
        ("Not Sydney, but Canberra.", "Canberra", True),
        ("<answer>Canberra (not Sydney)</answer>", "Canberra", True),
        ("The capital is Sydney, not Canberra.", "Canberra", False),
        ("The capital is not Canberra.", "Canberra", False),
        ("<answer>Canberra, not Canberra</answer>", "Canberra", False),
        ("The answer is not Paris \u2014 it's Lyon.\nAnswer: Paris", "Paris", False),
        # a title holding a hedge word is the answer's own words
        ("The film is called Perhaps Love.\nAnswer: Perhaps Love", "Perhaps Love", True),
        (
            "Their hit was Probably Nothing.\n<answer>Probably Nothing</answer>",
            "Probably Nothing",
            True,
        ),
        ("Perhaps Perhaps Love.\nAnswer: Perhaps Love", "Perhaps Love", False),
        ("Maybe Lyon.\nAnswer: Lyon", "Lyon", False),
    ],
)
def test_round17_stances_in_other_words(response: str, gold: str, paid: bool) -> None:
    assert qa_paid(response, gold) is paid


@pytest.mark.parametrize(
    ("response", "gold", "paid"),
    [
        # an intensifier between the negation and the doubt word is the same doubt
        ("Ich bin mir nicht ganz sicher. <answer>Lyon</answer>", "Lyon", False),
        ("Non ne sono sicuro. <answer>Lyon</answer>", "Lyon", False),
        ("No estoy muy segura. Answer: Lyon", "Lyon", False),
        ("我不太确定。<answer>Lyon</answer>", "Lyon", False),
        ("Не совсем уверен. <answer>Lyon</answer>", "Lyon", False),
        ("Je ne suis pas vraiment sûre. <answer>Lyon</answer>", "Lyon", False),
        # an abbreviated `vs.` keeps the two names in one clause
        ("It's Lyon vs. Grenoble, honestly. <answer>Lyon</answer>", "Lyon", False),
        # grounds that are no grounds
        ("Call it intuition. <answer>Lyon</answer>", "Lyon", False),
        ("Taking a punt: <answer>Lyon</answer>", "Lyon", False),
        ("For lack of anything better, <answer>Lyon</answer>", "Lyon", False),
        ("Answering from memory. <answer>Lyon</answer>", "Lyon", False),
        # the answer denied in a clause of its own, or by what nothing and nobody say
        ("Lyon? No.\nAnswer: Lyon", "Lyon", False),
        ("Nothing points to Lyon.\nAnswer: Lyon", "Lyon", False),
        ("Lyon fails the second clue.\nAnswer: Lyon", "Lyon", False),
        ("Lyon? Yes.\nAnswer: Lyon", "Lyon", True),
        ("Lyon. No other city has two rivers.\nAnswer: Lyon", "Lyon", True),
        # certainty closing the answer as a lead-in opens it
        ("I have no doubt. Answer: Lyon", "Lyon", True),
        ("Lyon, no doubt.", "Lyon", True),
        ("Lyon, for sure.", "Lyon", True),
        ("Lyon, I think.", "Lyon", False),
        # a negated copula negates what follows it; `and not` is a contrast too
        ("The capital isn't Sydney, it's Canberra.", "Canberra", True),
        ("The capital isn't Sydney, it's Canberra.", "Sydney", False),
        ("The capital isn't Canberra.", "Canberra", False),
        ("<answer>Canberra and not Sydney</answer>", "Canberra", True),
        ("It was Steve Jobs", "Steve Jobs", False),  # a bare `It was` stays words of the answer
        # the rejected side of a contrast is a rival, never a word of doubt or judgement
        ("Not entirely sure. Answer: Lyon", "Lyon", False),
        ("Lyon, not sure.", "Lyon", False),
        ("Lyon, not Sure.", "Lyon", False),
        ("<answer>Lyon, not certain</answer>", "Lyon", False),
        ("Lyon, not really.", "Lyon", False),
        ("Not Sure, but Lyon", "Lyon", False),
        # bare certainty opening a sentence; never after a hedge
        ("Absolutely certain: Lyon", "Lyon", True),
        ("Sure: <answer>Lyon</answer>", "Lyon", True),
        ("I am certain of it. Answer: Lyon", "Lyon", True),
        ("Pretty sure: <answer>Lyon</answer>", "Lyon", False),
        ("Not sure: <answer>Lyon</answer>", "Lyon", False),
    ],
)
def test_round17_mechanisms_with_other_words_between(response: str, gold: str, paid: bool) -> None:
    assert qa_paid(response, gold) is paid


@pytest.mark.parametrize("blank", [" ", "\t", " ,", ", "])
def test_a_long_run_of_blanks_on_the_answer_line_is_read_in_linear_time(blank: str) -> None:
    """The certainty tail (`Lyon, no doubt.`) was searched from every position of a run of
    blanks, each search reading the rest of the run: 20 KB of spaces took 1.9 s (bench_verify's
    long_text_qa_max_s); 4x the text must take well under 16x the time."""
    timings = []
    for size in (20_000, 80_000):
        text = "Sydney." + blank * (size // len(blank)) + " 5"
        start = time.process_time()
        qa_paid(text, "5")
        timings.append(time.process_time() - start)
    assert timings[1] < 8 * timings[0] + 0.5, timings
