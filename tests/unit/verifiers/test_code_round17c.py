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
_OVERRIDES = (
    "open, now unverifiable (it was failed): a returned builtin "
    "subclass's stand-in (code_values._refusing) refuses the dunders its class defines; paying it "
    "needs the sandbox to apply the assert's operators to the program's own object"
)
_UNVERIFIABLE = (
    "open, now unverifiable (it was failed): code_conditional refuses a program call behind a "
    "condition on a program value; paying it needs the sandbox to decide the condition first"
)
OPEN: dict[str, str] = {
    "c17-017": _OVERRIDES,
    "c17-025": _UNVERIFIABLE,
    "c17-027": _UNVERIFIABLE,
}

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


_POINT = "from collections import namedtuple\nPoint = namedtuple('Point', 'x y')\n"


@_NO_SANDBOX
@pytest.mark.parametrize(
    ("program", "tests", "paid"),
    [
        # a dunder of the base's that the harness's word list never named: not paid
        ("class N(int):\n    def __mul__(self, o):\n        return 0\ndef f(x):\n    return N(x)",
         "assert f(2) * 3 == 6", False),
        ("class N(float):\n    def __floor__(self):\n        return 0\ndef f(x):\n    return N(x)",
         "import math\nassert math.floor(f(2.5)) == 2", False),
        ("class S(str):\n    def __repr__(self):\n        return 'no'\ndef f():\n    return S('a')",
         "assert f'{f()!r}' == \"'a'\"", False),
        ("class T(tuple):\n    def __hash__(self):\n        return 1\ndef f():\n    return T((1,))",
         "assert f() in {(1,)}", False),
        ("class L(list):\n    def __mod__(self, o):\n        return []\ndef f():\n    return L([1])",
         "assert f() % 2 == []", False),
        ("class L(list):\n    def __mod__(self, o):\n        return []\ndef f():\n    return L([1])",
         "assert f() == [1] and len(f()) == 1", True),
        # a key or member whose class hashes its own way: unverifiable, never a verifier error
        ("class K(str):\n    def __hash__(self):\n        return 1\ndef f():\n    return {K('a'): 1}",
         "assert f() == {'a': 1}", False),
        ("class K(int):\n    def __hash__(self):\n        return 1\ndef f():\n    return {K(2)}",
         "assert f() == {2}", False),
        # dict subclasses: any dunder or method of dict's answers for itself, never the plain dict
        ("class D(dict):\n    def get(self, k, d=None):\n        return 1\ndef f():\n    return D()",
         "assert f().get('a') is None", False),
        ("class D(dict):\n    def __getitem__(self, k):\n        return 1\ndef f():\n    return D(a=2)",
         "assert f()['a'] == 2", False),
        # an override the assert never reaches: plain, as Python's == reads it (dict's own items)
        ("class D(dict):\n    def __missing__(self, k):\n        return 7\ndef f():\n    return D()",
         "assert f() == {}", True),
        # what changes no operation is still plain: a method of its own, its constructor, a field
        ("class V(tuple):\n    def norm(self):\n        return sum(self)\ndef f():\n    return V((1, 2))",
         "assert f() == (1, 2)", True),
        ("class D(dict):\n    def __init__(self, *a):\n        super().__init__(*a)\ndef f():\n"
         "    return D(a=1) if False else D({'a': 1})", "assert f() == {'a': 1}", True),
        ("from collections import Counter\ndef f(s):\n    return Counter(s)",
         "assert f('aab') == {'a': 2, 'b': 1}", True),
        (_POINT + "def f():\n    return Point(1, 2)", "assert f() == (1, 2) and f().x == 1", True),
    ],
)  # fmt: skip
def test_a_returned_subclass_that_defines_what_the_assert_reaches_is_never_paid(
    program: str, tests: str, paid: bool
) -> None:
    got, why = _verdict(program, tests)
    assert got is paid and "verifier raised" not in why, why


@_NO_SANDBOX
@pytest.mark.parametrize(
    ("tests", "paid"),
    [
        ("assert f'{make(1, 2)}' == 'Point(x=1, y=2)'", True),
        ("assert f'{make(1, 2)}' == '(1, 2)'", False),
        ("assert '%s' % (make(1, 2),) == 'Point(x=1, y=2)'", True),
        ("assert repr(make(1, 'a')) == \"Point(x=1, y='a')\"", True),
        ("assert str([make(1, 2)]) == '[Point(x=1, y=2)]'", True),
        ("assert 'at {!r}'.format(make(1, 2)) == 'at Point(x=1, y=2)'", True),
        ("assert make(1, 2) == (1, 2) and type(make(1, 2)) is type(make(3, 4))", True),
    ],
)
def test_a_namedtuple_formats_as_python_formats_it(tests: str, paid: bool) -> None:
    got, why = _verdict(_POINT + "def make(a, b):\n    return Point(a, b)", tests)
    assert got is paid, why


@_NO_SANDBOX
@pytest.mark.parametrize(
    "program",
    [
        _POINT + "Point.__repr__.__closure__[0].cell_contents = '(1, 2)'\n",
        _POINT + "class Q(Point):\n    def __repr__(self):\n        return '(1, 2)'\nPoint = Q\n",
        _POINT + "Point.__name__ = ''\n",
    ],
)
def test_a_namedtuple_whose_repr_was_rewritten_is_never_paid(program: str) -> None:
    tests = "assert f'{make(1, 2)}' == '(1, 2)'"
    got, why = _verdict(program + "def make(a, b):\n    return Point(a, b)", tests)
    assert got is False, why


_VEC = (
    "class Vec(tuple):\n    def __add__(self, o):\n        return Vec(a + b for a, b in zip(self, o))\n"
    "    def __neg__(self):\n        return Vec(-a for a in self)\ndef vec(*xs):\n    return Vec(xs)\n"
    "class M(int):\n    def __add__(self, o):\n        return M((int(self) + int(o)) % 7)\n"
    "def m(x):\n    return M(x)\n"
    "class Z(int):\n    def __add__(self, o):\n        return 0\ndef z(x):\n    return Z(x)"
)


@_NO_SANDBOX
@pytest.mark.parametrize(
    ("tests", "verdict"),
    [
        ("assert vec(1, 2) + vec(3, 4) + vec(1, 1) == (5, 7)", "passed"),
        ("assert -(vec(1, 2) + vec(1, 1)) == (-2, -3)", "passed"),
        ("assert m(5) + m(4) == 2", "passed"),
        ("assert z(2) + z(3) == 5", "failed"),
        ("assert z(2) + z(3) == 0", "passed"),  # Python's own answer: the program's __add__
        # an operand the tests wrote stays out here: the stand-in refuses the program's __add__
        ("assert vec(1, 2) + (3, 4) == (4, 6)", "unverifiable"),
        ("assert z(2) + 3 == 5", "unverifiable"),
    ],
)
def test_arithmetic_over_program_calls_alone_runs_by_the_programs_own_classes(
    tests: str, verdict: str
) -> None:
    paid, why = _verdict(_VEC, tests)
    assert paid is (verdict == "passed") and verdict in why, why
