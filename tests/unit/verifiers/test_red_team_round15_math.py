"""Red team round 15 (issue 27): the shared half of 65 math cases a helper who saw only the code
wrote against the verifier after this session's competing-value and prose-ending rules (the
held-out half stays outside the project). They arrived at the end of the session: a justification
after the box that sets its value aside (`Since the excluded value is x = 5.`) and a JSON key saying
the work is unchecked (`"verified": "no"`) are now no answer. Round 16 closed the rest but one
(`test_math_round16_fixes.py` holds their near-variants); what stays open is a strict xfail naming
the code path at fault."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round15_math.jsonl")
OPEN = {
    "m15-055": "open: a 19-term trigonometric sum exceeds the 2 s symbolic limit",
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
