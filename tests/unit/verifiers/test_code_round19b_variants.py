"""Test styles made verifiable after round 18 (c18-019 and its kin), with variants written here.

1. The program's object bound at module level (`s = Stack()`, `obj = Solution()`, `g = gen()`):
   it lives in the sandbox across the calls; only the calls and their inputs go in.
2. A test function's local read twice (`r = sq(3)`, `assert r > 0`, `assert r == 9`): kept in the
   sandbox the same way, under a name of that function's.
3. try/except/else expecting a raise: the sandbox reports which builtin exception classes the
   call raised (by its type's MRO, as `except` matches), the handler's classes stay out here.
4. `array.array` comes back as its typecode and items (read by its own C methods, the type told
   by identity) and is rebuilt out here; `import array` is the trusted module.

Every case is also run under plain Python (program then tests in one namespace): the verifier
must agree with it or say unverifiable, never give the opposite verdict."""

from __future__ import annotations

import shutil

import pytest
from red_team_cases import code_verdict, fenced

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
PAID, FAILED, UNVERIFIABLE = (True, "ok"), (False, "failed"), (False, "parse_error")


def _python_passes(program: str, tests: str) -> bool:
    """Program then tests in one namespace, then each `test_*` function, as pytest calls them."""
    namespace: dict = {}
    try:
        exec(program + "\n" + tests, namespace)  # noqa: S102 - the test's own fixed program
        for name, test in list(namespace.items()):
            if name.startswith("test") and callable(test):
                test()
    except Exception:  # noqa: BLE001 - any error of the tests fails them, as under pytest
        return False
    return True


def _verdict(program: str, tests: str) -> tuple[bool, str]:
    verdict = code_verdict(fenced(program), tests)
    said = (verdict.passed, verdict.status)
    if said != UNVERIFIABLE:  # never the opposite of plain Python's verdict
        assert verdict.passed == _python_passes(program, tests), verdict.reason
    return said


_STACK = (
    "class Stack:\n    def __init__(self):\n        self.items = []\n"
    "    def push(self, x):\n        self.items.append(x)\n"
    "    def pop(self):\n        return self.items.pop()\n"
    "    def __len__(self):\n        return len(self.items)\n"
)
_PUSHED = "s = Stack()\ns.push(1)\ns.push(2)\n"
_GEN = "def gen():\n    yield 1\n    yield 2\n"
_SOLUTION = "class Solution:\n    def add(self, a, b):\n        return a + b\n"
# reads the expected value from any frame it can reach: there is none in the sandbox
_PEEK = (
    "import sys, gc\nclass Stack:\n    def push(self, x):\n        pass\n"
    "    def pop(self):\n        f = sys._getframe()\n        while f:\n"
    "            for v in f.f_locals.values():\n"
    "                if type(v) is int and v > 1:\n                    return v\n"
    "            f = f.f_back\n        return 0\n"
)
# always equal: the assert's == must never be the program's
_ALWAYS = (
    "class Eq:\n    def __eq__(self, other):\n        return True\n"
    "class Stack:\n    def push(self, x):\n        pass\n    def pop(self):\n        return Eq()\n"
)


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        (_STACK, _PUSHED + "assert s.pop() == 2\nassert s.pop() == 1\n", PAID),
        (_STACK, _PUSHED + "assert len(s) == 2\nassert s.items == [1, 2]\n", PAID),
        (_STACK, _PUSHED + "assert s.pop() == 2 and len(s) == 1\n", PAID),
        (_SOLUTION, "obj = Solution()\nassert obj.add(2, 3) == 5\n", PAID),
        (_GEN, "g = gen()\nassert next(g) == 1\nassert next(g) == 2\n", PAID),
        (_GEN, "g = gen()\nassert next(g) == 1\nassert list(g) == [2]\n", PAID),
        # the object's arguments are read as bound where it is made
        ("class C:\n    def __init__(self, n):\n        self.n = n\n    def get(self):\n"
         "        return self.n", "n = 3\nn = 4\nc = C(n)\nassert c.get() == 4\n", PAID),
        # a wrong program fails: a queue where a stack is asked for
        (_STACK.replace("self.items.pop()", "self.items.pop(0)"),
         _PUSHED + "assert s.pop() == 2\n", FAILED),
        (_STACK, _PUSHED + "assert s.pop() == 1\n", FAILED),
        (_STACK, "s = Stack()\nassert s.pop() == 1\n", FAILED),  # IndexError, as in Python
        ("class Stack:\n    def __init__(self):\n        raise ValueError\n",
         "s = Stack()\nassert True\n", FAILED),
        (_GEN, "g = gen()\nassert next(g) == 1\nassert next(g) == 1\n", FAILED),
    ],
)  # fmt: skip
def test_a_program_object_the_tests_bind_lives_in_the_sandbox(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


@pytest.mark.parametrize(
    ("program", "tests"),
    [
        (_PEEK, "s = Stack()\ns.push(1)\nassert s.pop() == 2\n"),
        (_PEEK, "EXPECTED = 7\ns = Stack()\nassert s.pop() == EXPECTED\n"),
        (_ALWAYS, "s = Stack()\nassert s.pop() == 2\n"),
        # the program's own global named as the tests' object changes nothing it is asked
        ("class Stack:\n    def pop(self):\n        return 0\ns = [2]\n",
         "s = Stack()\nassert s.pop() == 2\n"),
    ],
)  # fmt: skip
def test_a_program_object_never_reads_the_expected_value_or_fakes_equality(
    program: str, tests: str
) -> None:
    # plain Python pays the frame reader (the expected value is in its frames): never paid here
    assert not code_verdict(fenced(program), tests).passed


@pytest.mark.parametrize(
    ("program", "tests"),
    [
        # the program's functions read the tests' name: in one namespace it is the tests' object
        ("class Stack:\n    def pop(self):\n        return 2\ndef top():\n    return s.pop()",
         "s = Stack()\nassert top() == 2\n"),
        # a name bound twice (object and literal, or two objects) is not tracked
        (_STACK, "s = Stack()\ns = Stack()\nassert s.pop() == 1\n"),
        (_STACK, "s = [1]\ns = Stack()\nassert len(s) == 0\n"),
        # a call that is not the program's (`list(...)`) is no object the sandbox makes
        (_STACK, "xs = list(range(3))\nassert len(xs) == 3\n"),
        # an iterator the sandbox would draw ahead of Python while the object is kept
        (_GEN, "g = gen()\nassert g is not None\nassert next(g) == 1\n"),
    ],
)  # fmt: skip
def test_what_a_kept_object_cannot_decide_is_unverifiable(program: str, tests: str) -> None:
    assert _verdict(program, tests) == UNVERIFIABLE


_SQ = "def sq(x):\n    return x * x\n"
_LOG = "_l = []\ndef log(x):\n    _l.append(x)\n    return _l\n"


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        (_SQ, "def test_sq():\n    r = sq(3)\n    assert r > 0\n    assert r == 9\n", PAID),
        (_SQ, "def test_sq():\n    r = sq(3)\n    assert r > 0 and r + 1 == 10\n", PAID),
        (_SQ, "def test_sq():\n    r = sq(3)\n    assert r > 0\n    assert r == 10\n", FAILED),
        (_SQ.replace("x * x", "x + x + 3"),
         "def test_sq():\n    r = sq(3)\n    assert r > 0\n    assert r == 9\n", PAID),
        (_SQ.replace("x * x", "x + x"),
         "def test_sq():\n    r = sq(3)\n    assert r > 0\n    assert r == 9\n", FAILED),
        # two functions' locals of one name are two objects; each reads its own
        (_SQ, "def test_a():\n    r = sq(3)\n    assert r == 9\n    assert r < 10\n"
         "def test_b():\n    r = sq(4)\n    assert r == 16\n    assert r > 9\n", PAID),
        # the value is read at each assert, as Python reads the one object
        (_LOG, "def test_l():\n    r = log(1)\n    assert r == [1]\n    assert log(2) == r\n"
         "    assert r == [1, 2]\n", PAID),
        (_LOG, "def test_l():\n    r = log(1)\n    assert r == [1]\n    assert log(2) == [1, 2]\n"
         "    assert r == [1]\n", FAILED),
        # HumanEval's check(candidate) with its local read twice
        (_SQ, "def check(candidate):\n    r = candidate(5)\n    assert r > 20\n    assert r == 25\n"
         "check(sq)\n", PAID),
    ],
)  # fmt: skip
def test_a_local_read_twice_is_kept_in_the_sandbox(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


_INV = "def inv(x):\n    if x == 0:\n        raise ValueError('zero')\n    return 1 / x\n"
_ELSE = "try:\n    inv(0)\nexcept ValueError:\n    pass\nelse:\n    assert False\nassert inv(2) == 0.5\n"
_IN_BODY = (
    "try:\n    inv(0)\n    assert False, 'no raise'\nexcept (TypeError, ValueError):\n    pass\n"
)


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        (_INV, _ELSE, PAID),
        (_INV, _IN_BODY, PAID),
        (_INV, "try:\n    inv(0)\nexcept ValueError:\n    pass\nelse:\n"
         "    raise AssertionError('no raise')\n", PAID),
        (_INV, "try:\n    inv(0)\nexcept:\n    pass\nelse:\n    assert False\n", PAID),
        (_INV, "try:\n    inv(1)\nexcept ValueError:\n    pass\n", PAID),  # may raise: need not
        # a subclass of the builtin is caught, as by Python's except
        ("class Zero(ValueError):\n    pass\ndef inv(x):\n    if x == 0:\n        raise Zero()\n"
         "    return 1 / x\n", _ELSE, PAID),
        # wrong programs: no raise, another exception, a raise not expected
        ("def inv(x):\n    return 0\n", _ELSE, FAILED),
        ("def inv(x):\n    return 1 / x\n", _ELSE, FAILED),  # ZeroDivisionError
        ("def inv(x):\n    return 1 / x\n", _IN_BODY, FAILED),
        (_INV, "try:\n    inv(0)\nexcept TypeError:\n    pass\n", FAILED),
        # a class of the program's that only bears the builtin's name is no ValueError
        ("class Fake(Exception):\n    pass\nFake.__name__ = Fake.__qualname__ = 'ValueError'\n"
         "def inv(x):\n    raise Fake('zero')\n", _IN_BODY, FAILED),
        ("class Fake(Exception):\n    __class__ = ValueError\ndef inv(x):\n    raise Fake()\n",
         _IN_BODY, FAILED),  # isinstance would believe __class__; except (and we) do not
    ],
)  # fmt: skip
def test_a_raise_the_tests_expect_is_decided_out_here(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


@pytest.mark.parametrize(
    ("program", "tests"),
    [
        # the program's own ValueError is what the handler names in one namespace
        ("class ValueError(Exception):\n    pass\ndef inv(x):\n    raise ValueError()\n", _ELSE),
        (_INV, "try:\n    inv(0)\nexcept ValueError as e:\n    assert str(e) == 'zero'\n"),
        (_INV, "try:\n    inv(0)\nexcept ValueError:\n    pass\nfinally:\n    pass\n"),
        (_INV, "try:\n    x = inv(0)\nexcept ValueError:\n    pass\n"),
        (_INV, "class Mine(Exception):\n    pass\ntry:\n    inv(0)\nexcept Mine:\n    pass\n"),
    ],
)  # fmt: skip
def test_a_try_statement_of_another_shape_is_unverifiable(program: str, tests: str) -> None:
    assert _verdict(program, tests) == UNVERIFIABLE


_ARRAY = "import array\ndef to_array(xs):\n    return array.array('i', xs)\n"


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        (_ARRAY, "import array\nassert to_array([1, 2]) == array.array('i', [1, 2])\n", PAID),
        (_ARRAY, "import array as a\nassert to_array([1, 2]) == a.array('l', [1, 2])\n", PAID),
        (_ARRAY, "assert to_array([1, 2]).typecode == 'i' and list(to_array([3])) == [3]\n", PAID),
        ("import array\ndef f():\n    return array.array('d', [0.5, 1.5])\n",
         "import array\nassert f() == array.array('d', [0.5, 1.5])\n", PAID),
        # wrong programs: other items, a list where an array is asked (and the reverse)
        (_ARRAY, "import array\nassert to_array([1, 2]) == array.array('i', [1, 3])\n", FAILED),
        (_ARRAY, "assert to_array([1, 2]) == [1, 2]\n", FAILED),
        ("def to_array(xs):\n    return list(xs)\n",
         "import array\nassert to_array([1, 2]) == array.array('i', [1, 2])\n", FAILED),
    ],
)  # fmt: skip
def test_an_array_comes_back_and_compares_as_python_compares_it(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


def test_an_array_subclass_of_the_programs_is_never_read_as_an_array() -> None:
    program = (
        "import array\nclass A(array.array):\n    def __eq__(self, other):\n        return True\n"
        "def to_array(xs):\n    return A('i', [9])\n"
    )
    tests = "import array\nassert to_array([1, 2]) == array.array('i', [1, 2])\n"
    assert not code_verdict(fenced(program), tests).passed  # always-equal: never paid
