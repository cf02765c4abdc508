"""Red team round 16 (issue 27): the shared half of the QA cases a helper who saw only the code
wrote (the held-out half stays outside the project): hedges no list named ("Going out on a limb",
"It's 50/50 between", "Don't quote me on this", "Eeny, meeny", "Wild stab:", "My money's on"),
another value called the right one in other words than "answer" ("The correct city is Lyon.",
"Best match → Lyon"), doubt words inside a title ("The Maybe Man", "No Doubt", "\"I Don't
Know\""), subscript digits, a parenthesised paragraph citation, `Ft.`, and unit names (`150
pounds` for `150 lb`, `60 miles per hour` for `60 mph`). The edges each rule keeps are pinned
below the cases."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params, qa_paid

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round16_qa.jsonl")
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)


@pytest.mark.parametrize(
    ("response", "gold", "paid"),
    [
        # a title is named by a word before it, mid-sentence; a hedge after a comma is a hedge
        ("AJR released The Maybe Man in 2023.\nAnswer: AJR", "AJR", True),
        ("Honestly, Maybe Lyon.\nAnswer: Lyon", "Lyon", False),
        ("It's Probably Lyon.\nAnswer: Lyon", "Lyon", False),
        ("The band Maybe Lyon played.\nAnswer: Lyon", "Lyon", False),  # the run holds the answer
        ('"Maybe Lyon" is my answer.\nAnswer: Lyon', "Lyon", False),
        ("Maybe. Answer: Lyon", "Lyon", False),
        # another value called right; the same value called right
        ("The correct city is Paris, not Lyon.\n<answer>Paris</answer>", "Paris", True),
        ("The correct city is Lyon.\n<answer>Paris</answer>", "Paris", False),
        ("Top pick: Lyon\nAnswer: Paris", "Paris", False),
        ("The Right Bank is home to the Louvre.\nAnswer: Paris", "Paris", True),
        # odds and bets as data are no hedge
        ("The firms formed a 50/50 joint venture.\nAnswer: Toyota", "Toyota", True),
        ("It's a toss-up.\nAnswer: Toyota", "Toyota", False),
        ("The victim died of a stab wound.\nAnswer: Brutus", "Brutus", True),
        # units: a name after a number is its symbol; a pound is no kilogram
        ("Answer: 150 lbs", "150 pounds", True),
        ("Answer: 150 kg", "150 pounds", False),
        ("Answer: 60 km per hour", "60 mph", False),
        ("Answer: CO₂", "CO2", True),
        ("Answer: CO₃", "CO2", False),
        ("Answer: Kyoto (passage 2)", "Kyoto", True),
        ("Answer: Kyoto (Osaka)", "Kyoto", False),
    ],
)
def test_round16_edges(response: str, gold: str, paid: bool) -> None:
    assert qa_paid(response, gold) is paid
