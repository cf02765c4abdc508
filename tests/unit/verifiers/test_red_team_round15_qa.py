"""Red team round 15 (issue 27): the shared half of the QA cases a helper who saw only the code
wrote against the verifier (the held-out half stays outside the project): topic words read as doubt
("the uncertainty principle", "Random forests"), a negation in a relative clause that restates the
question, scientific notation in three spellings, an answer line restating its phrase, operators
dropped with punctuation (`2*10` paid for `2^10`), and hedges no list named ("Most likely",
"Presumably", "I lean towards", "Not 100% on this one", "If I'm not mistaken", "going with")."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params, qa_paid

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round15_qa.jsonl")
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)


@pytest.mark.parametrize(
    ("response", "gold", "paid"),
    [
        # the exemptions stay narrow: a judgement negated in a relative clause, a random pick
        ("The city that is not the answer is <answer>Paris</answer>.", "Paris", False),
        ("The one which is not correct is <answer>Paris</answer>.", "Paris", False),
        ("A random guess.\nAnswer: Paris", "Paris", False),
        ("Answer: The answer is not Paris.", "Paris", False),
        # numbers in scientific notation compare by value; operators stay apart
        ("Answer: 6.022e23", "6.022 × 10^22", False),
        ("Answer: 2 × 10", "2^10", False),
        ("Answer: 3.0e8 m/s", "3 × 10^8 m/s", True),
        ("Answer: 1.5e-3", "0.0015", True),
        ("Answer: x = 5", "x=5", True),
        # the hedge family in other words; a fact stated plainly pays
        ("Chances are it's Paris.\nAnswer: Paris", "Paris", False),
        ("IIRC the capital is Paris.\nAnswer: Paris", "Paris", False),
        ("It appears to be Paris.\nAnswer: Paris", "Paris", False),
        ("My best guess: Paris.\nAnswer: Paris", "Paris", False),
        ("Paris is the capital of France.\nAnswer: Paris", "Paris", True),
        # a relative clause whose subject is the speaker, or whose verb judges or chooses, is a
        # judgement: it keeps its negation; a deed restating the question does not
        ("The city which I didn't think was correct is <answer>Paris</answer>.", "Paris", False),
        ("The one that I would never choose is <answer>Paris</answer>.", "Paris", False),
        ("The option that I wouldn't pick is <answer>Paris</answer>.", "Paris", False),
        ("The city that I did not select is <answer>Paris</answer>.", "Paris", False),
        ("The option which does not hold is <answer>Paris</answer>.", "Paris", False),
        ("The city that Napoleon never conquered is <answer>Moscow</answer>.", "Moscow", True),
        ("The one who did not win the prize is <answer>Meitner</answer>.", "Meitner", True),
        # only a named term is exempt from doubt: a random pick is a guess
        ("Picked a random sample of cities.\nAnswer: Paris", "Paris", False),
        ("I used a random number generator.\nAnswer: Paris", "Paris", False),
        ("I picked a random house.\nAnswer: Paris", "Paris", False),
        ("Published by Random House in 1960.\nAnswer: Harper Lee", "Harper Lee", True),
        ("Random access memory was invented by Dennard.\nAnswer: Dennard", "Dennard", True),
        ("Probably Approximately Correct learning is Valiant's.\nAnswer: Valiant", "Valiant", True),
        ("The model is probably approximately correct.\nAnswer: Valiant", "Valiant", False),
        # more of the hedge family
        ("I'd lean Paris.\nAnswer: Paris", "Paris", False),
        ("Assuming I recall correctly, Paris.\nAnswer: Paris", "Paris", False),
        ("Paris seems right.\nAnswer: Paris", "Paris", False),
        ("The lean years ended in 1933.\nAnswer: 1933", "1933", True),
    ],
)
def test_round15_rules_keep_their_edges(response: str, gold: str, paid: bool) -> None:
    assert qa_paid(response, gold) is paid
