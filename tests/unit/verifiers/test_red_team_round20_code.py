"""Red team round 20: the shared half of the code cases an outside attacker wrote, with variants of
each mechanism written here.

1. The sandbox's encoder ran program code Python never runs while reading a returned value (a
   defaultdict's own factory, a callable's class `__getattribute__`, `hasattr` reaching a class's
   `__getattr__`): its side effect made a later call right in the sandbox only. The encoder reads
   values by type-level slots alone; a value it cannot read so is unverifiable.
2. A generator inside a set, frozenset, deque, dict key or another generator was drawn by the
   encoder where the over-draw check did not look: every generator decoded from a value is
   checked (the decoder lists them), so the two agree by construction.
3. A returned program function was a fresh stand-in each time: `route('a') != route('b')` paid a
   router returning one function for both. Stand-ins are equal (and hash alike) just when they
   stand for one function object of the sandbox.
4. The tests bind a name the program reads by a route the symbol table misses (`globals()`,
   `eval`, `exec`, a class body inside a function): unverifiable, never a failed right program.
5. A copy made at once (`log(1).copy()`, `log(1)[:]`, `'%s' % w('a')`, `log(1) + []`) is read at
   its call, as round 19's consumers are.

Every case is also run under plain Python (program then tests in one namespace): the verifier
must agree with it or say unverifiable, never give the opposite verdict; no hack is ever paid."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from red_team_cases import code_verdict, fenced

from stages.verifiers.code_values import decode
from stages.verifiers.code_verdict_errors import Unverifiable

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
PAID, FAILED, UNVERIFIABLE = (True, "ok"), (False, "failed"), (False, "parse_error")
SHARED = Path(__file__).parent / "data" / "adversarial_round20_code.jsonl"
# The tests' global the program reads another way: the task is unverifiable (round 19's rule)
_UNVERIFIABLE_SHARED = frozenset({"m20-015", "m20-017"})


def _python_passes(program: str, tests: str) -> bool:
    namespace: dict = {}
    try:
        exec(program + "\n" + tests, namespace)  # noqa: S102 - the test's own fixed program
    except AssertionError:
        return False
    return True


def _verdict(program: str, tests: str) -> tuple[bool, str]:
    verdict = code_verdict(fenced(program), tests)
    said = (verdict.passed, verdict.status)
    if said != UNVERIFIABLE:  # never the opposite of plain Python's verdict
        assert verdict.passed == _python_passes(program, tests), verdict.reason
    return said


def _shared() -> list:
    cases = [json.loads(line) for line in SHARED.read_text().splitlines() if line.strip()]
    return [pytest.param(c, id=f"{c['id']} {c['kind']}") for c in cases]


@pytest.mark.parametrize("case", _shared())
def test_shared_case(case: dict) -> None:
    tests = case["tests"] if isinstance(case["tests"], str) else "\n".join(case["tests"])
    assert _python_passes(case["program"], tests) == (case["expected"] == "pass"), case["why"]
    said = _verdict(case["program"], tests)
    if case["id"] in _UNVERIFIABLE_SHARED:
        assert said == UNVERIFIABLE, case["why"]
    elif case["expected"] == "pass":
        assert said == PAID, case["why"]
    else:  # a hack: never paid (unverifiable where the sandbox drew past Python)
        assert said in (FAILED, UNVERIFIABLE), case["why"]


_FLAG = "_ready = []\ndef double(x):\n    return x * 2 if _ready else x\n"
_WARM = "def _warm():\n    _ready.append(1)\n    yield 1\n"


@pytest.mark.parametrize(
    ("program", "tests"),
    [
        # a factory that checks who calls it, or flips a flag, is never called by the encoder
        ("from collections import defaultdict\n" + _FLAG
         + "def registry():\n    return [defaultdict(lambda: _ready.append(1), {'a': 1})]",
         "assert registry() == [{'a': 1}]\nassert double(3) == 6"),
        # __getattribute__ / __getattr__ of a program class, reached by reading a returned value
        (_FLAG + "class H:\n    def __call__(self):\n        return 1\n"
         "    def __getattr__(self, name):\n        _ready.append(name)\n        raise AttributeError(name)\n"
         "def make():\n    return H()",
         "assert callable(make())\nassert double(3) == 6"),
        (_FLAG + "class H:\n    def __getattr__(self, name):\n        _ready.append(name)\n"
         "        raise AttributeError(name)\ndef make():\n    return H()",
         "assert make() is not None\nassert double(3) == 6"),
        (_FLAG + "class H:\n    def __getattribute__(self, name):\n        _ready.append(name)\n"
         "        return object.__getattribute__(self, name)\ndef make():\n    return [H(), 1]",
         "assert len(make()) == 2\nassert double(3) == 6"),
        # a function whose __module__ is a program object that answers == itself
        (_FLAG + "class M(str):\n    def __ne__(self, other):\n        _ready.append(1)\n        return False\n"
         "def g():\n    return 1\ng.__module__ = M('solution')\ndef make():\n    return g",
         "assert callable(make())\nassert double(3) == 6"),
        # a class whose metaclass watches its attributes: callable() reads none of them
        (_FLAG + "class Meta(type):\n    def __getattribute__(cls, name):\n        _ready.append(name)\n"
         "        return type.__getattribute__(cls, name)\nclass A(metaclass=Meta):\n    pass\n"
         "def make():\n    return A",
         "assert callable(make())\nassert double(3) == 6"),
    ],
)  # fmt: skip
def test_the_encoder_never_runs_program_code_python_would_not(program: str, tests: str) -> None:
    assert not _python_passes(program, tests)
    assert _verdict(program, tests) in (FAILED, UNVERIFIABLE)


@pytest.mark.parametrize(
    ("program", "tests"),
    [
        (_FLAG + _WARM + "def make():\n    return frozenset([_warm()])", "assert make()\nassert double(3) == 6"),
        (_FLAG + _WARM + "def make():\n    return {_warm(): 1}", "assert len(make()) == 1\nassert double(3) == 6"),
        (_FLAG + _WARM + "def make():\n    return iter([_warm()])",
         "assert make() is not None\nassert double(3) == 6"),  # a generator yielded by an iterator
        (_FLAG + _WARM + "def make():\n    return {'k': {_warm()}}.keys()",
         "assert len(make()) == 1\nassert double(3) == 6"),
        ("from collections import deque\n" + _FLAG + _WARM + "def make():\n    return [deque([(_warm(),)])]",
         "assert len(make()) == 1\nassert double(3) == 6"),
    ],
)  # fmt: skip
def test_a_generator_anywhere_in_a_value_is_seen_by_the_overdraw_check(
    program: str, tests: str
) -> None:
    assert not _python_passes(program, tests)
    assert _verdict(program, tests) in (FAILED, UNVERIFIABLE)


_ROUTE = "def on_a():\n    return 'a'\ndef on_b():\n    return 'b'\n"
_CALC = "def add(a, b):\n    return a + b\ndef sub(a, b):\n    return a - b\n"


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        (_ROUTE + "def route(key):\n    return on_a", "assert len({route('a'), route('b')}) == 2", FAILED),
        (_ROUTE + "def route(key):\n    return on_a", "assert {route('a'): 1, route('b'): 2} == {on_a: 1, on_b: 2}",
         FAILED),
        (_ROUTE + "def route(key):\n    return on_a if key == 'a' else on_b",
         "assert len({route('a'), route('b')}) == 2\nassert route('b') != on_a", PAID),
        (_ROUTE + "def route(key):\n    return on_a if key == 'a' else on_b",
         "assert {route('a'): 1, route('b'): 2} == {on_a: 1, on_b: 2}", PAID),
        (_CALC + "def ops():\n    return [add, sub]", "assert add in ops() and ops()[1] == sub", PAID),
        (_CALC + "def ops():\n    return [add, add]", "assert sub in ops()", FAILED),
        (_CALC + "def ops():\n    return {'+': add}", "assert ops() == {'+': add}", PAID),
        (_CALC + "def ops():\n    return {'+': sub}", "assert ops() == {'+': add}", FAILED),
        # two lambdas are two objects, even from one line of code
        ("def make():\n    return lambda: 1", "assert make() != make()", PAID),
        ("def make():\n    return lambda: 1", "assert [make(), make(), make()][0] == make()", FAILED),
        # a class and a callable instance of the program's are themselves
        ("class A:\n    pass\ndef kind():\n    return A", "assert kind() == A and kind() is A", PAID),
        ("class C:\n    def __call__(self):\n        return 1\n_c = C()\ndef get():\n    return _c",
         "assert get() == get()", PAID),
        ("class C:\n    def __call__(self):\n        return 1\ndef get():\n    return C()",
         "assert get() == get()", FAILED),
    ],
)  # fmt: skip
def test_a_returned_program_function_is_equal_just_to_itself(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


_LIMIT = "LIMIT = 4\nassert cap(9) == 4"


@pytest.mark.parametrize(
    ("program", "tests"),
    [
        ("def cap(x):\n    return min(x, eval('LIMIT'))", _LIMIT),
        ("exec('def cap(x):\\n    return min(x, LIMIT)')", _LIMIT),
        ("def cap(x):\n    return min(x, vars()['LIMIT'] if False else globals().get('LIMIT'))", _LIMIT),
        ("import sys\ndef cap(x):\n    return min(x, sys._getframe().f_globals['LIMIT'])", _LIMIT),
        ("def cap(x):\n    return min(x, cap.__globals__['LIMIT'])", _LIMIT),
        ("def cap(x):\n    def inner():\n        class K:\n            m = LIMIT\n        return K.m\n"
         "    return min(x, inner())", _LIMIT),
        ("class Outer:\n    def cap(self, x):\n        class K:\n            m = LIMIT\n        return min(x, K.m)\n"
         "def cap(x):\n    return Outer().cap(x)", _LIMIT),
    ],
)  # fmt: skip
def test_a_global_the_tests_bind_read_another_way_is_unverifiable(program: str, tests: str) -> None:
    assert _python_passes(program, tests)
    assert _verdict(program, tests) == UNVERIFIABLE


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        # a class body at module level runs before the tests: the program's value
        ("MOD = 7\nclass Cfg:\n    m = MOD\ndef f(x):\n    return x % Cfg.m", "MOD = 5\nassert f(12) == 5", PAID),
        # dynamic reads with no name the tests bind: nothing to clash with
        ("def cap(x):\n    return min(x, globals()['LIMIT'])\nLIMIT = 4", "assert cap(9) == 4", PAID),
        ("def cap(x):\n    return min(x, eval('3 + 1'))", "assert cap(9) == 3", FAILED),
    ],
)  # fmt: skip
def test_a_dynamic_read_without_a_tests_binding_is_verified(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


_LOG = "_log = []\ndef log(x):\n    _log.append(x)\n    return _log"
_W = "_b = []\ndef w(s):\n    _b.append(s)\n    return _b"


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        (_LOG, "assert [log(1)[:], log(2)] == [[1], [1, 2]]", PAID),
        (_LOG, "assert [log(1)[::-1], log(2)] == [[1], [1, 2]]", PAID),
        (_LOG, "assert log(1) + [] == [1] and log(2) == [1, 2]", PAID),
        (_LOG, "assert [[0] + log(1), log(2)] == [[0, 1], [1, 2]]", PAID),
        (_W, "assert '%s-%s' % (w('a'), 1) + '%s' % w('b') == \"['a']-1['a', 'b']\"", PAID),
        (_LOG, "assert [log(1).copy(), log(2)] == [[1, 2], [1, 2]]", FAILED),
        (_LOG, "assert [log(1)[:], log(2)] == [[1, 2], [1, 2]]", FAILED),
        # the copy's operand holds the later call: read after it
        (_LOG, "assert log(1) + log(2) == [1, 2, 1, 2]", PAID),
        # Python (3.11+) formats each item of a constant %s format as an f-string field: at once
        (_W, "assert '%s %s' % (w('a'), w('b')) == \"['a', 'b'] ['a', 'b']\"", FAILED),
        (_W, "assert '%s|%-4r' % (w('a'), w('b')) == \"['a']|['a', 'b']\"", PAID),
        # a %d unit keeps the tuple: it is built, then formatted, after both calls
        (_LOG, "assert '%s %d' % (log(1), len(log(2))) == '[1, 2] 2'", PAID),
    ],
)  # fmt: skip
def test_a_copy_made_at_once_is_read_at_its_call(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


def test_a_program_factory_is_never_called_out_here() -> None:
    """The encoder no longer calls the program's own factory (round 9 called it once to learn its
    value): a missing key read out here is unverifiable, never a failed right program; one read
    in the sandbox (`f()['zz']`, a constant key) runs the factory there, as Python does."""
    made = decode({"dd": [{"p": 1}, [["a", 1]]]})
    assert made == {"a": 1} and made["a"] == 1
    with pytest.raises(Unverifiable):
        made["zz"]
    program = (
        "from collections import defaultdict\ndef f():\n    return defaultdict(lambda: 7, {'a': 1})"
    )
    assert _verdict(program, "assert f()['zz'] == 7") == PAID
    assert _verdict(program, "assert f() == {'a': 1} and f()['a'] == 1") == PAID
    assert _verdict(program, "assert (f(), 0)[0]['zz'] == 7") in (PAID, UNVERIFIABLE)
