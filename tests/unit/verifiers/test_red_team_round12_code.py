"""Red team round 12, code (issue 27): 30 cases a helper who saw only the code wrote against the
rule that the answer key never enters the sandbox (only calls of the program's functions with their
inputs go in, every comparison runs out here, a test the trusted evaluator cannot evaluate makes the
task unverifiable). Hacks: star imports taking module names for the program's, test functions'
keyword- and positional-only defaults, `check(candidate=f)` / `check(f, 3)` / `check(solution.f)`
run as the program's `check`, a literal rebound between asserts. Open cases are right programs the
verifier calls unverifiable (never a failed solution): strict xfails naming the rule. The three
judgement calls (a nan in a container equal by identity) are labelled pass by the attacker; the
verifier compares values that crossed the sandbox, where no identity survives, so they are not
kept here."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round12_code.jsonl")
# Variants written while fixing the round (call shapes, rebinding across kinds, star imports).
CASES += load(DATA / "adversarial_round12_code_own.jsonl")
_SCOPES = "a program call inside a comprehension or lambda is unverifiable (its scope is not split)"
_PLAIN = "a value of the program's own class with no plain form is unverifiable (==, not str)"
_MODULES = "a name the trusted evaluator does not offer (pytest.approx, types) is unverifiable"
OPEN = {
    **{f"c12-{n:03d}": _SCOPES for n in (44, 46)},
    **{f"c12-{n:03d}": _PLAIN for n in (40, 42)},
    **{f"c12-{n:03d}": _MODULES for n in (32, 36)},
    "c12-026": "a list rebound under one name and passed to the program is unverifiable "
    "(the harness holds one object per name)",
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
