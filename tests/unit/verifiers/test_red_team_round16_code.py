"""Red team round 16 (issue 27): the shared half of 29 code cases a helper who saw only
the code wrote against the sandboxed verifier after round 15's fixes (the held-out half stays
outside the project). Fixed in round 16: a returned builtin subclass of the program's that
overrides how Python judges it (`==`, a method of its base's, its truth value) is no plain value,
and the assert using it fails (001/003/005). Fixed in round 17 (variants in
test_code_round17_fixes): an input handed over inside a display or starred is shared (011/013);
`type()` of a returned subclass of a builtin is a class of its own, never the base (007); an input
Python reads after a later program call (`nums == f(nums)`) makes the tests unverifiable (009); an
iterator the asserts drew less far than the sandbox did, with calls after it, makes them
unverifiable (015); zip draws a program's iterator as far as Python does where the other
arguments' lengths are constants (019); a value nested past the harness's depth (now 100 levels,
was 50) is unverifiable, not failed (021); a helper in a block of its own runs with the block
that reads it (027); a returned `re.Match` comes back as its groups and spans and is read as one
(025); a lambda argument reading only its parameters and builtins, holding no expected value,
goes in with the call (029); a constant index of a program call's value is read in the sandbox,
so only the item comes back (023; values past max_output_bytes are unverifiable, no longer
failed). Still open, a strict xfail naming the code path at fault: a membership test past the
draws sent back, now unverifiable (it was failed before round 17)."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round16_code.jsonl")
OPEN = {
    "c16-017": "open, now unverifiable (it was failed): `30000 in evens(20000)` reads past the "
    "10,000 items the sandbox sends back (code_values._Replay raises PastDraws); the membership "
    "test is a comparison, which runs only out here, so paying it needs draws on demand",
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)


def _paid(program: str, tests: str) -> bool:
    from red_team_cases import judged

    case = {"verifier": "code", "input": {"response": f"```python\n{program}\n```", "tests": tests}}
    return judged(case)[0]


_NO_SANDBOX = pytest.mark.skipif(
    __import__("shutil").which("bwrap") is None, reason="bubblewrap is not installed"
)


@_NO_SANDBOX
@pytest.mark.parametrize(
    ("program", "tests", "paid"),
    [
        # a subclass that overrides how Python judges it answers for itself: the assert fails
        ("class S(str):\n    def __eq__(self, o):\n        return True\n    __hash__ = str.__hash__"
         "\ndef f():\n    return S('no')", "assert f() == 'yes'", False),
        ("class L(list):\n    def __len__(self):\n        return 0\ndef f():\n"
         "    return L([1, 2, 3])", "assert len(f()) == 3", False),
        ("from enum import IntEnum\nclass C(IntEnum):\n    RED = 1\n    def __eq__(self, o):\n"
         "        return True\n    __hash__ = int.__hash__\ndef f():\n    return C.RED",
         "assert f() == 2", False),
        # one that overrides nothing Python judges it by is its base: a namedtuple (a field named
        # like a tuple method too), an IntEnum, a subclass with a method of its own or a repr
        ("from collections import namedtuple\nP = namedtuple('P', 'x count')\ndef f():\n"
         "    return P(1, 2)", "assert f() == (1, 2)", True),
        ("from enum import IntEnum\nclass C(IntEnum):\n    RED = 1\ndef f():\n    return C.RED",
         "assert f() == 1", True),
        ("class S(str):\n    def shout(self):\n        return self.upper()\n    def __repr__(self):"
         "\n        return 'S'\ndef f():\n    return S('ab')", "assert f() == 'ab'", True),
    ],
)  # fmt: skip
def test_round16_subclass_edges(program: str, tests: str, paid: bool) -> None:
    assert _paid(program, tests) is paid
