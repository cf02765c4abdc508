"""Red team round 17 (issue 27): the shared half of the code cases an outside attacker wrote against
the sandboxed verifier after round 16 (the held-out half stays outside the project). Fixed: a returned nan keeps its identity (031/033), one builtin name the program
redefines on both sides of a comparison is its own on both (035/037), an input sharing objects
goes in as written (039/041), the trusted `re` is Python's own and a name it lacks makes the test
unverifiable (043/045/047)."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
# Cases 001-029 (subclass overrides, namedtuples, a dict display's order, conditional calls) are
# test_code_round17c's, with their near-variants.
CASES = [c for c in load(DATA / "adversarial_round17_code.jsonl") if c["id"] > "c17-029"]
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
