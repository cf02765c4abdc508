"""Red team round 17 (issue 27): the shared half of the code cases an outside attacker wrote against
the sandboxed verifier after round 16 (the held-out half stays outside the project). Fixed: a returned nan keeps its identity (031/033), one builtin name the program
redefines on both sides of a comparison is its own on both (035/037), an input sharing objects
goes in as written (039/041), the trusted `re` is Python's own and a name it lacks makes the test
unverifiable (043/045/047). Each case still open is a strict xfail naming the code path at fault
(from the attacker's report)."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round17_code.jsonl")
_SUBCLASS = (
    "open: a returned builtin subclass overriding {} outside the harness's _judged word list is "
    "encoded as its base (code_harness enc), and the trusted side uses the plain value"
)
_NAMEDTUPLE = (
    "open: a namedtuple comes back a plain tuple (code_harness enc), so {} formats '(1, 2)'"
)
_DICT_SUB = "open: a dict subclass's {} is never checked (code_harness enc_mapping)"
_DISPLAY = (
    "open: a dict display's calls are split keys first (code_inputs evaluation_order); Python "
    "evaluates key, value, key, value"
)
_SHORT = (
    "open: an operand behind a short-circuit that depends on the program is called anyway "
    "(code_parts); Python never evaluates it"
)
OPEN = {
    "c17-001": _SUBCLASS.format("__add__"),
    "c17-003": _SUBCLASS.format("__add__"),
    "c17-005": _SUBCLASS.format("__hash__"),
    "c17-007": _SUBCLASS.format("__add__"),
    "c17-009": _SUBCLASS.format("__neg__"),
    "c17-011": _NAMEDTUPLE.format("an f-string"),
    "c17-013": _NAMEDTUPLE.format("str.format"),
    "c17-015": _DICT_SUB.format("__contains__"),
    "c17-017": _DICT_SUB.format("__contains__"),
    "c17-021": _DISPLAY,
    "c17-023": _DISPLAY,
    "c17-025": _SHORT,
    "c17-027": _SHORT,
    "c17-029": _SHORT,
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
