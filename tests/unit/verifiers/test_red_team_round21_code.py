"""Red team round 21: the shared half of the code cases an outside attacker wrote, with variants of
each mechanism written here.

1. Lifetimes: the harness held the previous call's value until the next call returned, results
   an identity check named for the whole run, and every function it encoded for the whole run,
   so `__del__`, a generator's `finally` or `with`, `weakref.finalize`, weak sets and
   dictionaries saw objects alive that Python had freed. The harness now drops a value once the
   assert that reads it is over (or at once where the assert reads it before its next call).
2. The tests' imports ran before every call wherever they stood: each now runs just before the
   first call written after it (a test function's calls where it is called, or pytest's after
   the module's end).
3. An id reused: Python hands a freed argument's id to the next assert's argument, the sandbox
   (whose harness allocates in between) does not, so a program reading `id` that keeps state
   between calls is unverifiable; so is one counting references or allocations.
4. The verifier's own process decodes the report under another string hash seed: a set subclass
   of strings is unverifiable there (never 'malformed'), and scored on the trusted worker.

Every case is also run under plain Python (program then tests in one namespace): the verifier
must agree with it or say unverifiable, never give the opposite verdict; no hack is ever paid."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from red_team_cases import code_verdict, fenced

from stages.verifiers.code_tests import plan

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
PAID, FAILED, UNVERIFIABLE = (True, "ok"), (False, "failed"), (False, "parse_error")
SHARED = Path(__file__).parent / "data" / "shared_round21_code.jsonl"
_SATISFIES = {"pass": (PAID,), "fail": (FAILED, UNVERIFIABLE), "unverifiable": (UNVERIFIABLE, PAID)}


def _python_passes(program: str, tests: str) -> bool:
    namespace: dict = {}
    try:
        exec(program + "\n" + tests, namespace)  # noqa: S102 - the test's own fixed program
    except Exception:  # noqa: BLE001 - an assert failed or a call raised: the tests fail
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
    return [pytest.param(c, id=f"{c['id']} {c['kind'][:60]}") for c in cases]


@pytest.mark.parametrize("case", _shared())
def test_shared_case(case: dict) -> None:
    if case["expected"] != "unverifiable":
        assert _python_passes(case["program"], case["tests"]) == (case["expected"] == "pass")
    said = _verdict(case["program"], case["tests"])
    assert said in _SATISFIES[case["expected"]], case["why"]


_FLAG = "_freed = []\ndef double(x):\n    return x * 2 if not _freed else x\n"
_TRACKED = "class Tracked(list):\n    def __del__(self):\n        _freed.append(1)\n"
_TICKS = "def ticks():\n    try:\n        while True:\n            yield 1\n    finally:\n        _freed.append(1)\n"
_RES = ("class Res:\n    def __enter__(self):\n        return self\n"
        "    def __exit__(self, *exc):\n        _freed.append(1)\n")  # fmt: skip

# Wrong programs Python fails because a value is freed before double(3) runs
LIFETIME_WRONG = [
    (_FLAG + _TRACKED + "def make():\n    return Tracked([1, 2])",
     "assert make() == [1, 2] and double(3) == 6"),  # freed within the assert, after its ==
    (_FLAG + _TRACKED + "def make():\n    return {'k': Tracked([1])}", "assert make() == {'k': [1]}\nassert double(3) == 6"),
    (_FLAG + _TRACKED + "def make():\n    return Tracked([1])",
     "assert sorted(make()) == [1]\nassert double(3) == 6"),
    (_FLAG + _TRACKED + "def make():\n    return Tracked([1])", "assert make() + make() == [1, 1] and double(3) == 6"),
    (_FLAG + _TRACKED + "def make():\n    return Tracked([1])", "assert type(make()) is not list and double(3) == 6"),
    (_FLAG + _TRACKED + "def make():\n    return Tracked([])", "assert not make() and double(3) == 6"),
    (_FLAG + _TRACKED + "def get():\n    return Tracked([1])", "assert get() is not get()\nassert double(3) == 6"),
    (_FLAG + _TRACKED + "def get():\n    return Tracked([1])", "assert get() != get() or True\nassert double(3) == 6"),
    (_FLAG + _TICKS, "from itertools import islice\nassert list(islice(ticks(), 3)) == [1, 1, 1]\nassert double(3) == 6"),
    (_FLAG + _TICKS, "assert list(zip(range(2), ticks())) == [(0, 1), (1, 1)]\nassert double(3) == 6"),
    (_FLAG + _RES + "def lines():\n    with Res():\n        while True:\n            yield 'x'",
     "from itertools import islice\nassert list(islice(lines(), 2)) == ['x', 'x']\nassert double(3) == 6"),
    ("import weakref\n" + _FLAG + "class L(list):\n    pass\n"
     "def make():\n    v = L([1])\n    weakref.finalize(v, _freed.append, 1)\n    return v",
     "assert make() == [1]\nassert double(3) == 6"),
    (_FLAG + "class T:\n    def __del__(self):\n        _freed.append(1)\n"
     "def make():\n    t = T()\n    def h(x, _t=t):\n        return x\n    return [h]",
     "assert callable(make()[0])\nassert double(3) == 6"),
    (_FLAG + "class T:\n    def __del__(self):\n        _freed.append(1)\n"
     "def make():\n    t = T()\n    return lambda x, _t=t: x", "assert callable(make()) and double(3) == 6"),
]  # fmt: skip


@pytest.mark.parametrize(("program", "tests"), LIFETIME_WRONG)
def test_a_value_python_has_freed_is_freed_in_the_sandbox_too(program: str, tests: str) -> None:
    assert not _python_passes(program, tests)
    assert _verdict(program, tests) in (FAILED, UNVERIFIABLE)


_LIVE = "import weakref\n_refs = []\ndef live():\n    return sum(r() is not None for r in _refs)\n"
_BOX = "class Box(list):\n    pass\ndef box(x):\n    b = Box([x])\n    _refs.append(weakref.ref(b))\n    return b\n"
_OPEN = ("_open = [0]\ndef reader(items):\n    _open[0] += 1\n    try:\n        yield from items\n"
         "    finally:\n        _open[0] -= 1\ndef open_count():\n    return _open[0]\n")  # fmt: skip

# Right programs counting what is alive: paid, and a value Python still holds is held too
LIFETIME_RIGHT = [
    (_LIVE + _BOX, "assert box(1) == [1]\nassert live() == 0"),
    (_LIVE + _BOX, "assert box(1) == [1] and live() == 0"),
    (_LIVE + _BOX, "assert [box(1), live()] == [[1], 1]"),  # the list holds box(1) during live()
    (_LIVE + _BOX, "assert box(1) is not box(1)\nassert live() == 0"),
    (_LIVE + _BOX, "assert len(box(1)) == 1\nassert live() == 0"),
    (_LIVE + _BOX, "assert box(1) + box(2) == [1, 2] and live() == 0"),  # one call, in there
    (_LIVE + _BOX, "assert not box(1) == [2] and live() == 0"),
    (_LIVE + "def make():\n    def f():\n        return 1\n    _refs.append(weakref.ref(f))\n    return f",
     "assert callable(make())\nassert live() == 0"),
    (_LIVE + "def make():\n    def f():\n        return 1\n    _refs.append(weakref.ref(f))\n    return f",
     "assert callable(make()) and live() == 0"),
    (_LIVE + "def make():\n    def f():\n        return 1\n    _refs.append(weakref.ref(f))\n    return [f, f]",
     "assert make()[0] != make()[1]\nassert live() == 0"),
    (_OPEN, "from itertools import islice\nassert list(islice(reader([1, 2, 3]), 1)) == [1]\nassert open_count() == 0"),
    (_OPEN, "assert list(zip([0], reader([1, 2, 3]))) == [(0, 1)]\nassert open_count() == 0"),
    ("import weakref\n_done = []\nclass L(list):\n    pass\n"
     "def make():\n    v = L([1])\n    weakref.finalize(v, _done.append, 1)\n    return v\n"
     "def finalized():\n    return len(_done)", "assert make() == [1]\nassert finalized() == 1"),
    # a module's own object the program returns stays alive: the module holds it
    (_LIVE + "_kept = []\ndef keep(x):\n    b = Box([x])\n    _refs.append(weakref.ref(b))\n    _kept.append(b)\n    return b\n"
     "class Box(list):\n    pass", "assert keep(1) == [1]\nassert live() == 1"),
]  # fmt: skip


@pytest.mark.parametrize(("program", "tests"), LIFETIME_RIGHT)
def test_a_right_program_counting_live_objects_is_paid(program: str, tests: str) -> None:
    assert _python_passes(program, tests)
    assert _verdict(program, tests) == PAID


# Where the verifier cannot place when Python frees a value the assert holds across a later call,
# a program that sees lifetimes is unverifiable: never paid where Python fails, never failed
LIFETIME_UNPLACED = [
    (_LIVE + _BOX, "assert box(1) and live() == 0", True),
    (_LIVE + _BOX, "assert box(1) == box(1) == [1] and live() == 0", True),
    (_FLAG + _TRACKED + "def make():\n    return Tracked([1])", "assert make() and double(3) == 6", False),
    (_FLAG + _TRACKED + "def get():\n    return Tracked([1])", "assert get() is not get() and double(3) == 6", False),
    (_FLAG + "def _gone(self):\n    _freed.append(1)\nT = type('T', (list,), {'__del__': _gone})\n"
     "def make():\n    return T([1])", "assert make() and double(3) == 6", False),
]  # fmt: skip


@pytest.mark.parametrize(("program", "tests", "python"), LIFETIME_UNPLACED)
def test_a_value_held_to_an_unplaced_time_is_unverifiable_where_lifetimes_show(
    program: str, tests: str, python: bool
) -> None:
    assert _python_passes(program, tests) == python
    assert _verdict(program, tests) == UNVERIFIABLE


_HYP = "def hyp(a, b):\n    return sqrt(a * a + b * b)\n"
_CHECK = "def check(candidate):\n    assert candidate(3, 4) == 5\n"

IMPORTS = [
    # a later import never supplies what the program forgot, nor replaces its helper
    (_HYP, "assert hyp(3, 4) == 5\nfrom math import sqrt\nassert hyp(6, 8) == 10", FAILED),
    ("def sqrt(x):\n    return x / 2\n" + _HYP, "assert hyp(3, 4) == 5\nfrom math import sqrt", FAILED),
    (_HYP, _CHECK + "check(hyp)\nfrom math import sqrt", FAILED),
    ("def area(r):\n    return m.pi * r * r", "assert area(1) == 3.141592653589793\nimport math as m", FAILED),
    # one written before the calls is in force for them, as in Python
    (_HYP, "from math import sqrt\nassert hyp(3, 4) == 5", PAID),
    (_HYP, _CHECK + "from math import sqrt\ncheck(hyp)", PAID),
    ("def add(a, b):\n    return a + b\n" + _HYP,
     "assert add(1, 2) == 3\nfrom math import sqrt\nassert hyp(3, 4) == 5", PAID),
    # the program's own helper serves until the tests' import replaces it (the lcm stays right)
    ("def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n"
     "def lcm(a, b):\n    return a * b // gcd(a, b)",
     "assert lcm(4, 6) == 12\nfrom math import gcd\nassert lcm(3, 5) == 15 and gcd(4, 6) == 2", PAID),
    # the program's ceil(a, b) serves its asserts; math.ceil only the last one's trusted read
    ("def ceil(a, b):\n    return -(-a // b)\ndef pages(n, k):\n    return ceil(n, k)",
     "assert pages(7, 2) == 4\nfrom math import ceil\nassert ceil(2.5) == 3", PAID),
]  # fmt: skip


@pytest.mark.parametrize(("program", "tests", "verdict"), IMPORTS)
def test_the_tests_imports_take_effect_where_they_stand(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


def test_pytest_functions_run_after_every_import_of_the_module() -> None:
    """pytest imports the whole module before it runs a test function written above an import."""
    tests = "def test_hyp():\n    assert hyp(3, 4) == 5\nfrom math import sqrt"
    assert plan(tests, {"hyp"}).imports == [[0, "from math import sqrt"]]
    assert code_verdict(fenced(_HYP), tests).passed
    placed = plan("assert hyp(3, 4) == 5\nimport math\nassert hyp(1, 0) == 1", {"hyp"}).imports
    assert placed == [[1, "import math"]]


ID_AND_COUNTS = [
    # an id-keyed cache that outlives a call: Python reuses a freed argument's id
    ("def total(xs, _cache={}):\n    k = id(xs)\n    if k not in _cache:\n        _cache[k] = sum(xs)\n"
     "    return _cache[k]", "assert total([1, 2]) == 3\nassert total([3, 4, 5]) == 12", UNVERIFIABLE),
    ("class _Memo:\n    seen = {}\ndef size(d):\n    return _Memo.seen.setdefault(id(d), len(d))",
     "assert size({'a': 1}) == 1\nassert size({'x': 1, 'y': 2}) == 2", UNVERIFIABLE),
    ("_last = [None, None]\ndef first(xs):\n    if _last[0] != id(xs):\n        _last[:] = [id(xs), xs[0]]\n"
     "    return _last[1]", "assert first([1, 2]) == 1\nassert first([5, 6]) == 5", UNVERIFIABLE),
    ("import sys\ndef size(d):\n    seen = vars(sys).setdefault('_seen', {})\n"
     "    return seen.setdefault(id(d), len(d))", "assert size({'a': 1}) == 1\nassert size({'x': 1, 'y': 2}) == 2",
     UNVERIFIABLE),
    # counts of references or allocations include the harness's
    ("import gc\n_d = [1]\ndef double(x):\n    return x * 2 if len(gc.get_referrers(_d)) > 1 else x\n"
     "def get():\n    return _d", "assert get() == [1]\nassert double(3) == 6", UNVERIFIABLE),
    ("from sys import getrefcount as rc\n_d = [1]\ndef double(x):\n    return x * 2 if rc(_d) > 2 else x\n"
     "def get():\n    return _d", "assert get() == [1]\nassert double(3) == 6", UNVERIFIABLE),
    ("import ctypes\n_d = (1, 2)\ndef double(x):\n    n = ctypes.c_ssize_t.from_address(id(_d)).value\n"
     "    return x * 2 if n > 2 else x\ndef get():\n    return _d", "assert get() == (1, 2)\nassert double(3) == 6",
     UNVERIFIABLE),
    # ids taken within one call: nothing kept, verified
    ("def distinct(items):\n    seen = set()\n    for x in items:\n        seen.add(id(x))\n    return len(seen)",
     "assert distinct([[1], [2], [1]]) == 3\nassert distinct([]) == 0", PAID),
    ("LIMIT = 3\ndef distinct(items):\n    return min(LIMIT, len({id(x) for x in items}))",
     "assert distinct([[1], [2]]) == 2", PAID),
    # a method of the program's own named like a counter is no counter of gc's
    ("class Counter2:\n    def __init__(self):\n        self.n = 0\n    def get_count(self):\n        return self.n\n"
     "def count():\n    return Counter2().get_count()", "assert count() == 0", PAID),
]  # fmt: skip


@pytest.mark.parametrize(("program", "tests", "verdict"), ID_AND_COUNTS)
def test_ids_and_reference_counts_the_harness_shares(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


SET_SUBCLASSES = [
    ("class Tags(frozenset):\n    pass\ndef tags(*xs):\n    return Tags(xs)",
     "assert tags('ann', 'bob', 'cy', 'dee', 'eve', 'fay', 'gus', 'hal') == "
     "frozenset({'ann', 'bob', 'cy', 'dee', 'eve', 'fay', 'gus', 'hal'})", PAID),
    ("class Team(set):\n    pass\ndef teams():\n    return [Team(['ann', 'bob', 'cy', 'dee', 'eve', 'fay']), Team()]",
     "assert teams() == [{'ann', 'bob', 'cy', 'dee', 'eve', 'fay'}, set()]", PAID),
    ("class Team(set):\n    pass\ndef team(*xs):\n    return {'a': Team(xs)}",
     "assert team('ann', 'bob', 'cy', 'dee', 'eve') == {'a': {'ann', 'bob', 'cy', 'dee', 'eve'}}", PAID),
    ("class Team(set):\n    pass\ndef team(*xs):\n    return Team(xs[1:])",
     "assert team('ann', 'bob', 'cy', 'dee', 'eve', 'fay') == {'ann', 'bob', 'cy', 'dee', 'eve', 'fay'}", FAILED),
]  # fmt: skip


@pytest.mark.parametrize(("program", "tests", "verdict"), SET_SUBCLASSES)
def test_a_set_subclass_of_strings_is_read_on_the_workers_hash_seed(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict
