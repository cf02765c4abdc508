"""Red team round 15 (issue 27): the shared half of 65 math cases a helper who saw only the code
wrote against the verifier after this session's competing-value and prose-ending rules (the
held-out half stays outside the project). They arrived at the end of the session: a justification
after the box that sets its value aside (`Since the excluded value is x = 5.`) and a JSON key saying
the work is unchecked (`"verified": "no"`) are now no answer; the rest stay strict xfails naming
the code path at fault."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round15_math.jsonl")
_GSM = "strict: a GSM8K ending outside the closed forms ({})"
OPEN = {
    "m15-037": "open: the lenient reference reading drops 'million' from 1.2 \\text{ million}",
    "m15-039": _GSM.format("'writes' before the box"),
    "m15-041": _GSM.format("'dollars for babysitting' after it"),
    "m15-043": _GSM.format("'take' before the box"),
    "m15-045": _GSM.format("'pay' before the box"),
    "m15-047": _GSM.format("'runs' before the box"),
    "m15-049": _GSM.format("'dollars per hour' in an answer line"),
    "m15-051": "open: 'Let me know if anything is unclear.' is not a listed sign-off",
    "m15-053": "open: 'The answer is \\boxed{1/2} or equivalently \\boxed{0.5}' reads as one answer",
    "m15-055": "open: a 19-term trigonometric sum exceeds the 2 s symbolic limit",
    "m15-057": "open: option lines 'A: 42' are read as weak answer lines that conflict",
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
