"""Red team round 17 (issue 27), cases 001-029 of the shared code half and their near-variants:
a call behind a program-dependent `or`/`if`/comparison chain, a dict display's order of calls,
a returned builtin subclass whose class defines what the assert could reach, and a namedtuple
formatted out here. Cases 031-047 are test_red_team_round17_code's. Cases kept open are strict
xfails naming the code path at fault."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from red_team_cases import check, judged, load, params

DATA = Path(__file__).parent / "data"
CASES = [c for c in load(DATA / "adversarial_round17_code.jsonl") if c["id"] <= "c17-029"]
_SUBCLASS = (
    "open: stages/verifiers/code_harness.py judges a returned builtin subclass as its plain base"
)
_UNVERIFIABLE = (
    "open, now unverifiable (it was failed): code_conditional refuses a program call behind a "
    "condition on a program value; paying it needs the sandbox to decide the condition first"
)
OPEN: dict[str, str] = {
    "c17-001": _SUBCLASS, "c17-003": _SUBCLASS, "c17-005": _SUBCLASS, "c17-007": _SUBCLASS,
    "c17-009": _SUBCLASS, "c17-011": _SUBCLASS, "c17-013": _SUBCLASS, "c17-015": _SUBCLASS,
    "c17-017": _SUBCLASS, "c17-025": _UNVERIFIABLE, "c17-027": _UNVERIFIABLE,
}  # fmt: skip

_NO_SANDBOX = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed"
)


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_shared_case_is_judged_as_labelled(case: dict) -> None:
    check(case)


def _verdict(program: str, tests: str) -> tuple[bool, str]:
    case = {"verifier": "code", "input": {"response": f"```python\n{program}\n```", "tests": tests}}
    return judged(case)


_COUNTER = "count = [0]\ndef next_id():\n    count[0] += 1\n    return count[0]"


@_NO_SANDBOX
@pytest.mark.parametrize(
    ("tests", "paid"),
    [
        ("assert {next_id(): next_id(), next_id(): next_id(), next_id(): next_id()} == "
         "{1: 2, 3: 4, 5: 6}", True),
        ("assert {next_id(): next_id(), next_id(): next_id()} == {1: 3, 2: 4}", False),
        ("assert {next_id(): {next_id(): next_id()}, next_id(): next_id()} == {1: {2: 3}, 4: 5}",
         True),
        ("assert [{next_id(): next_id()}, {next_id(): next_id()}] == [{1: 2}, {3: 4}]", True),
    ],
)  # fmt: skip
def test_a_dict_display_makes_its_calls_key_value_key_value_as_python_does(
    tests: str, paid: bool
) -> None:
    assert _verdict(_COUNTER, tests)[0] is paid


_GATES = (
    "def ok():\n    return False\ndef yes():\n    return True\ndef boom():\n    raise ValueError('x')\n"
    "n = [0]\ndef tick():\n    n[0] += 1\n    return n[0]"
)


@_NO_SANDBOX
@pytest.mark.parametrize(
    ("tests", "paid", "reason"),
    [
        ("assert (boom() if ok() else 2) == 2", False, "which Python may never make"),
        ("assert yes() or boom()", False, "which Python may never make"),
        ("assert not (ok() and boom())", False, "which Python may never make"),
        ("assert (yes() or tick()) == 1\nassert tick() == 1", False, "which Python may never make"),
        ("assert not (0 > tick() > boom())", False, "which Python may never make"),
        # an operand that uses nothing of the program is still decided out here
        ("assert 1 > 2 or tick() == 1", True, "passed"),
        # where the assert needs every operand true, a skipped call fails it anyway
        ("assert tick() == 1 and tick() == 2", True, "passed"),
        ("assert tick() == 9 and boom()", False, "tests failed"),
        ("assert 0 < tick() < tick() + 1 < 9", True, "passed"),
    ],
)  # fmt: skip
def test_a_call_behind_a_condition_on_a_program_value_is_never_paid(
    tests: str, paid: bool, reason: str
) -> None:
    got, why = _verdict(_GATES, tests)
    assert got is paid and reason in why, why
