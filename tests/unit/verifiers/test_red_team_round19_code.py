"""Red team round 19: the shared half of the code cases an outside attacker wrote (no paid hack;
correct programs judged wrongly), with variants of each mechanism written here.

1. A value read at once (by a builtin or method call, or an f-string field) before a later call
   of its assert changes it: Python reads the value at that call (`any(log(0))`, `sorted(log(3))`,
   `f'{log(1)}{log(2)}'`), so its snapshot is what Python read.
2. The tests bind a name the program's functions read as a global (MBPP and HumanEval run program
   and tests in one namespace): `MOD = 5` over the program's `MOD = 7`. The tests' value may be an
   answer key, so it never goes in: the task is unverifiable, never a failed program.

Every case is also run under plain Python (program then tests in one namespace): the verifier
must agree with it or say unverifiable, never give the opposite verdict."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from red_team_cases import code_verdict, fenced

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
PAID, FAILED, UNVERIFIABLE = (True, "ok"), (False, "failed"), (False, "parse_error")
SHARED = Path(__file__).parent / "data" / "adversarial_round19_code.jsonl"


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
    want = PAID if case["expected"] == "pass" else FAILED
    assert _python_passes(case["program"], tests) == (case["expected"] == "pass"), case["why"]
    if case["id"] == "m19-011":  # the tests' constant could be an answer key: never sent in
        want = UNVERIFIABLE
    assert _verdict(case["program"], tests) == want, case["why"]


_LOG = "_log = []\ndef log(x):\n    _log.append(x)\n    return _log"
_NEST = "_log = []\ndef log(x):\n    _log.append([x])\n    return _log"  # mutable items
_PAIRS = "_d = {}\ndef put(k):\n    _d[k] = [k]\n    return _d"


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        (_LOG, "assert min(log(3), key=abs) + len(log(-1)) == 5", PAID),
        (_LOG, "assert [sum(log(1), 0), log(2)] == [1, [1, 2]]", PAID),
        (_LOG, "assert [log(1).index(1), log(2)] == [0, [1, 2]]", PAID),
        (_LOG, "assert [all(log(1)), len(log(0))] == [True, 2]", PAID),
        (_LOG, "assert [max(log(1)), log(5)] == [1, [1, 5]]", PAID),
        (_LOG, "assert f'{log(1)!r}-{log(2)}' == '[1]-[1, 2]'", PAID),
        (_LOG, "assert sorted(log(3)) + sorted(log(1)) == [3, 1, 3, 1]", FAILED),  # Python: [3]
        (_LOG, "assert f'{log(1)}{log(2)}' == '[1, 2][1, 2]'", FAILED),  # each read at its field
        (_LOG, "assert [any(log(0)), log(5)] == [True, [0, 5]]", FAILED),
        # Python reads late here: both sides are the one list after both calls
        (_LOG, "assert log(1) == log(2)", PAID),
        (_LOG, "assert [tuple(log(1)), log(2)] == [(1,), [1, 2]]", PAID),
    ],
)  # fmt: skip
def test_a_value_a_call_reads_at_once_is_its_snapshot(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        # the consumer keeps the program's mutable items, which a later call changes
        (_NEST, "assert [sorted(log(1)), log(2)] == [[[1]], [[1], [2]]]", PAID),  # unchanged item
        ("_a = [[0]]\ndef get():\n    return _a\ndef bump():\n    _a[0].append(1)\n    return 1",
         "assert [list(get()), bump()] == [[[0]], 1]", FAILED),  # Python: [[0, 1]]
        ("_a = [[0]]\ndef get():\n    return _a\ndef bump():\n    _a[0].append(1)\n    return 1",
         "assert [max(get()), bump()] == [[0], 1]", FAILED),  # max keeps the item bump changed
        (_PAIRS, "assert [dict(put('a')), put('a')] == [{'a': ['a']}, {'a': ['a']}]", PAID),
        # a call whose own arguments hold the later call reads the value after it (Python)
        (_LOG, "assert log(1).index(log(2)[1]) == 1", PAID),
        (_LOG, "assert dict.fromkeys(log(1), log(2)) == {1: [1, 2], 2: [1, 2]}", PAID),
        # a lazy consumer reads later: never a snapshot
        ("_q = [1]\ndef q():\n    return _q\ndef push(x):\n    _q.append(x)\n    return x",
         "assert list(zip(reversed(q()), [push(2)])) == [(2, 2)]", FAILED),  # Python: (1, 2)
        ("_q = [1]\ndef q():\n    return _q\ndef push(x):\n    _q.append(x)\n    return x",
         "assert [x for x in [0]] == [0] and list(map(abs, q())) + [push(2)] == [1, 2]", PAID),
    ],
)  # fmt: skip
def test_a_value_mutated_after_its_read_never_pays_what_python_fails(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) in (verdict, UNVERIFIABLE)


_MOD = "MOD = 7\ndef f(x):\n    return x % MOD"


@pytest.mark.parametrize(
    ("program", "tests", "verdict", "named"),
    [
        (_MOD, "MOD = 5\nassert f(12) == 2", UNVERIFIABLE, "MOD"),
        ("def cap(x):\n    return min(x, LIMIT)", "LIMIT = 4\nassert cap(9) == 4", UNVERIFIABLE,
         "LIMIT"),
        ("def f():\n    return EXPECTED", "EXPECTED = 5\nassert f() == EXPECTED", UNVERIFIABLE,
         "EXPECTED"),  # the answer key is never sent in to make this pass
        ("class C:\n    def g(self):\n        return K + 1\ndef f():\n    return C().g()",
         "K = 1\nassert f() == 2", UNVERIFIABLE, "K"),
        # the tests' helper (a function or class) the program calls
        ("def f(x):\n    return helper(x) + 1", "def helper(x):\n    return x * 2\nassert f(3) == 7",
         UNVERIFIABLE, "helper"),
        ("def f():\n    return Box(3).v", "class Box:\n    def __init__(self, v):\n        self.v = v\n"
         "assert f() == 3", UNVERIFIABLE, "Box"),
    ],
)  # fmt: skip
def test_a_global_the_tests_bind_for_the_program_is_unverifiable(
    program: str, tests: str, verdict: tuple[bool, str], named: str
) -> None:
    assert _verdict(program, tests) == verdict
    assert named in code_verdict(fenced(program), tests).reason


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        # a name only the program's module level reads (before the tests run), or a local
        ("MOD = 7\nM2 = MOD\ndef f(x):\n    return x % M2", "MOD = 5\nassert f(12) == 5", PAID),
        ("def f(n):\n    return n + 1", "n = 3\nassert f(n) == 4", PAID),
        # a wrong program stays failed where the tests bind nothing it reads
        (_MOD, "N = 12\nassert f(N) == 2", FAILED),
    ],
)  # fmt: skip
def test_a_tests_binding_the_program_never_reads_changes_nothing(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict
