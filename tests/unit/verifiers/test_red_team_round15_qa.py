"""Red team round 15 (issue 27): the shared half of the QA cases a helper who saw only the code
wrote against the verifier (the held-out half stays outside the project): topic words read as doubt
("the uncertainty principle", "Random forests"), a negation in a relative clause that restates the
question, scientific notation in three spellings, an answer line restating its phrase, operators
dropped with punctuation (`2*10` paid for `2^10`), and hedges no list named ("Most likely",
"Presumably", "I lean towards", "Not 100% on this one", "If I'm not mistaken", "going with")."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round15_qa.jsonl")
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)


def _paid(response: str, gold: str) -> bool:
    from stages.verifiers.registry import build_verifier
    from stages.verifiers.types import QAReference

    return build_verifier({"kind": "qa"}).verify(response, QAReference(answer=gold)).passed


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
    ],
)
def test_round15_rules_keep_their_edges(response: str, gold: str, paid: bool) -> None:
    assert _paid(response, gold) is paid
