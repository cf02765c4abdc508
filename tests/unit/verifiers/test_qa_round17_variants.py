"""Round 17's mechanisms (issue 27, item 5) in other instances than the red team's, with the
honest controls each rule keeps: what the held-out half tries is the mechanism, not the words."""

from __future__ import annotations

from red_team_cases import qa_paid

from stages.verifiers.qa_strict import strict_tokens


def test_a_lowercase_numeral_after_a_series_head_is_its_number_not_a_crash() -> None:
    assert strict_tokens("stage iv") == ["stage", "num4"]
    assert qa_paid("Answer: type ii diabetes", "Type II diabetes")
