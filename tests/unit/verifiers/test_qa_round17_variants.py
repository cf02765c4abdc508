"""Round 17's mechanisms (issue 27, item 5) in other instances than the red team's, with the
honest controls each rule keeps: what the held-out half tries is the mechanism, not the words."""

from __future__ import annotations

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
    ],
)
def test_punctuation_golds_and_numbers_with_a_unit(response: str, gold: str, paid: bool) -> None:
    assert qa_paid(response, gold) is paid
