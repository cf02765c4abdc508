"""Red-team round 3 (issue 27 item 2): a list/dict/set the tests pass to the program never sits in
the program's globals, so an expected value is never the program's to read or rewrite; a value is
compared with the type it has (a deque is not a list); a correct program returning its own class's
objects is read through `str`/`len`/`list`/... as Python reads it, and a comparison the trusted side
cannot read makes the task unverifiable, never a failed solution."""

import ast
import collections

import pytest

from stages.verifiers.code_tests import plan
from stages.verifiers.code_values import decode
from stages.verifiers.code_verifier import CodeVerifier
from stages.verifiers.config import CodeVerifierConfig

ROUND_TRIP = "plain = [1, 2, 3, 4]\ncipher = [4, 1, 2, 3]\n" \
    "assert rotate_right(plain) == cipher\nassert rotate_left(cipher) == plain"  # fmt: skip


@pytest.fixture(scope="module")
def verifier():
    return CodeVerifier(CodeVerifierConfig(timeout_s=5.0))


def test_an_input_read_before_any_call_received_it_is_the_literal_out_here():
    p = plan(ROUND_TRIP, frozenset({"rotate_right", "rotate_left"}))
    # `plain`, read after rotate_right received it, is also read back (as the program left it)
    assert p.calls == ["rotate_right(plain)", "rotate_left(cipher)", "plain"]
    first, second = (ast.unparse(a) for a in p.units[0].asserts)
    assert first == "_v0 == [4, 1, 2, 3]"  # `cipher` as written, out here
    # an expected value the program could have changed must hold as written too
    assert second == "_v1 == _v2 and _v1 == [1, 2, 3, 4]"


@pytest.mark.parametrize(
    ("program", "why"),
    [
        ("def rotate_right(xs):\n    return list(cipher)\ndef rotate_left(xs):\n    return list(plain)",
         "reads the answer key as a global"),
        ("def rotate_right(xs):\n    cipher[:] = []\n    return []\n"
         "def rotate_left(xs):\n    return []", "rewrites the answer key as a global"),
        ("def rotate_right(xs):\n    r = xs[-1:] + xs[:-1]\n    xs[:] = [0]\n    return r\n"
         "def rotate_left(xs):\n    return [0]",
         "rewrites an input it was passed, which a later assert uses as its expected value"),
    ],
)  # fmt: skip
def test_the_answer_key_is_never_the_programs(verifier, program, why):
    assert not verifier.verify(program, ROUND_TRIP).passed, why


def test_a_correct_round_trip_and_an_in_place_change_still_pass(verifier):
    right = "def rotate_right(xs):\n    return xs[-1:] + xs[:-1]\n" \
        "def rotate_left(xs):\n    return xs[1:] + xs[:1]"  # fmt: skip
    assert verifier.verify(right, ROUND_TRIP).passed
    in_place = "xs = [3, 1, 2]\nsort_in_place(xs)\nassert xs == [1, 2, 3]\nassert total(xs) == 6"
    program = "def sort_in_place(xs):\n    xs.sort()\ndef total(xs):\n    return sum(xs)"
    assert verifier.verify(program, in_place).passed


def test_a_deque_comes_back_as_a_deque_and_is_not_a_list(verifier):
    assert decode({"dq": [1, 2]}) == collections.deque([1, 2])
    hack = "from collections import deque\ndef first_two(xs):\n    return deque(xs[:2])"
    assert not verifier.verify(hack, "assert first_two([1, 2, 3]) == [1, 2]").passed
    assert verifier.verify(hack, "from collections import deque\n"
                           "assert first_two([1, 2, 3]) == deque([1, 2])").passed  # fmt: skip


POINT = "class Point:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n" \
    "    def __str__(self):\n        return f'Point({self.x}, {self.y})'\n" \
    "    def __len__(self):\n        return 2\n" \
    "    def __iter__(self):\n        return iter((self.x, self.y))"  # fmt: skip


@pytest.mark.parametrize(
    "test",
    [
        "assert str(Point(1, 2)) == 'Point(1, 2)'",
        "assert len(Point(1, 2)) == 2",
        "assert list(Point(1, 2)) == [1, 2]",
        "assert sorted(Point(2, 1), reverse=True) == [2, 1]",
    ],
)
def test_a_builtin_reads_the_programs_own_objects_as_python_does(verifier, test):
    assert verifier.verify(POINT, test).passed
    wrong = POINT.replace("f'Point({self.x}, {self.y})'", "'Point(2, 1)'").replace(
        "return 2", "return 3").replace("(self.x, self.y)", "(self.x, self.x)")  # fmt: skip
    assert not verifier.verify(wrong, test).passed


def test_a_comparison_of_objects_the_trusted_side_cannot_read_is_unverifiable(verifier):
    verdict = verifier.verify(POINT, "assert Point(1, 2) == Point(1, 2)")
    assert not verdict.passed and verdict.status == "parse_error"
    assert "unverifiable" in verdict.reason


@pytest.mark.parametrize(
    "test",
    ["assert list(reversed(list(Point(1, 2)))) == [2, 1]", "assert max(Point(1, 2)) == 2",
     "assert sum(Point(1, 2)) == 3", "assert format(Point(1, 2)) == 'Point(1, 2)'"],
)  # fmt: skip
def test_readers_nest_and_cover_the_common_builtins(verifier, test):
    assert verifier.verify(POINT, test).passed


# Hunts every container the sandbox holds (gc, every frame's locals) for the text of `cipher`, an
# input of the second call that is the first call's expected value.
_HUNT_LATER_INPUT = """
import gc, sys
def _seen():
    key = str([x for x in (4, 1, 2, 3)])
    places = [o for o in gc.get_objects() if isinstance(o, (list, dict, tuple))]
    f = sys._getframe().f_back
    while f:
        places.append(f.f_locals)
        f = f.f_back
    return any(key in str(p) for p in places)
def rotate_right(xs):
    return list((4, 1, 2, 3)) if _seen() else []
def rotate_left(xs):
    return xs[1:] + xs[:1]
"""


def test_a_later_calls_inputs_are_not_in_the_sandbox_before_that_call(verifier):
    verdict = verifier.verify(_HUNT_LATER_INPUT, ROUND_TRIP)
    assert not verdict.passed and "rotate_right(plain) returned []" in verdict.reason


def test_a_numpy_scalar_keeps_its_type_as_python_compares_it(verifier):
    np = pytest.importorskip("numpy")
    assert decode({"ns": ["bool", True]}) is np.True_  # so `is True` fails, as in Python
    assert type(decode({"ns": ["int64", 3]})) is np.int64 and decode({"ns": ["int64", 3]}) == 3
    assert decode({"ns": ["object", 3]}) == 3  # a dtype outside the list: the plain value


def test_a_numpy_bool_from_the_sandbox_is_not_true_by_identity(verifier):
    program = "import numpy as np\ndef is_even(n):\n    return np.bool_(n % 2 == 0)"
    if "No module named 'numpy'" in verifier.verify(program, "assert is_even(2)").reason:
        pytest.skip("the sandbox's Python has no numpy")
    assert verifier.verify(program, "assert is_even(2) == True").passed
    assert not verifier.verify(program, "assert is_even(2) is True").passed
