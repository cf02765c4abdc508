"""Tests taken apart by ast in the trusted process: which shapes work, and that the expected values
never go into the sandbox."""

import pytest

from stages.verifiers.code_tests import UnsupportedTests, plan
from stages.verifiers.code_verifier import CodeVerifier
from stages.verifiers.config import CodeVerifierConfig


@pytest.fixture(scope="module")
def verifier():
    return CodeVerifier(CodeVerifierConfig(timeout_s=3.0))


MBPP = "import math\nassert area(2) == 12.566370614359172\nassert math.isclose(area(1), 3.14159, rel_tol=1e-3)"
PYTEST = "def test_small():\n    assert rev('ab') == 'ba'\n\ndef test_empty():\n    assert rev('') == ''\n"
HUMANEVAL = (
    "METADATA = {}\n\ndef check(candidate):\n    assert candidate([1, 2]) == [2, 1]\n"
    "    assert candidate([]) == []\n\ncheck(rev)\n"
)


def test_calls_carry_inputs_only_never_expected_values():
    p = plan("X = (3, 1, 2)\nassert sorted_copy(X) == [1, 2, 3]\nassert not is_even(7)")
    assert p.calls == ["sorted_copy((3, 1, 2))", "is_even(7)"]
    assert all("[1, 2, 3]" not in c for c in p.calls)


def test_a_table_of_inputs_and_expected_values_goes_in_as_the_input_alone():
    p = plan("CASES = [(2, 4), (3, 9)]\nassert square(CASES[0][0]) == CASES[0][1]")
    assert p.calls == ["square(2)"] and p.bindings == []


def test_a_list_passed_to_the_program_is_one_object_that_later_asserts_read_back(verifier):
    tests = "xs = [3, 1, 2]\nassert sorted_copy(xs) == [1, 2, 3]\nassert xs == [3, 1, 2]"
    assert plan(tests).bindings == [["xs", "[3, 1, 2]"]]
    assert verifier.verify("def sorted_copy(xs):\n    return sorted(xs)", tests).passed
    assert not verifier.verify("def sorted_copy(xs):\n    xs.sort()\n    return xs", tests).passed
    in_place = "xs = [3, 1, 2]\nsort_in_place(xs)\nassert xs == [1, 2, 3]"
    assert verifier.verify("def sort_in_place(xs):\n    xs.sort()", in_place).passed
    assert not verifier.verify("def sort_in_place(xs):\n    return sorted(xs)", in_place).passed
    assert not verifier.verify("def sort_in_place(xs):\n    raise ValueError", in_place).passed


@pytest.mark.parametrize(
    ("tests", "right", "wrong"),
    [
        (
            MBPP,
            "import math\ndef area(r): return math.pi * r * r * 1.0 if r else 0",
            "def area(r): return 3.0 * r * r",
        ),
        (PYTEST, "def rev(s): return s[::-1]", "def rev(s): return s"),
        (HUMANEVAL, "def rev(xs): return xs[::-1]", "def rev(xs): return list(xs)"),
        (
            "from solution import f\nassert f(2) is None",
            "def f(x): return None",
            "def f(x): return 0",
        ),
        (
            "assert set(f()) == {1, 2} and f()[0] == 2",
            "def f(): return [2, 1]",
            "def f(): return [1, 2]",
        ),
    ],
)
def test_supported_shapes_pass_right_and_fail_wrong_programs(verifier, tests, right, wrong):
    assert verifier.verify(right, tests).passed, verifier.verify(right, tests)
    assert not verifier.verify(wrong, tests).passed


def test_a_raising_call_fails_every_assert_that_uses_it_even_a_negated_one(verifier):
    verdict = verifier.verify(
        "def f(x): raise ValueError('no')", "assert f(1) != 3\nassert not f(2)"
    )
    assert not verdict.passed and "ValueError" in verdict.reason


@pytest.mark.parametrize(
    "tests",
    [
        "for i in range(3):\n    assert f(i) == i",
        "import pytest\nwith pytest.raises(ValueError):\n    f(-1)",
        "assert all(f(i) == i for i in range(3))",
        "def helper():\n    return 3\nassert f(1) == helper()",
        "import os\nassert f(1) == os.getpid()",
        "assert f(1) == open('x').read()",
        "assert f(1).__class__ is int",
    ],
)
def test_other_shapes_make_the_task_unverifiable_never_a_pass(verifier, tests):
    with pytest.raises(UnsupportedTests):
        plan(tests)
    verdict = verifier.verify("def f(x): return x", tests)
    assert not verdict.passed and verdict.reason.startswith("unverifiable task")


@pytest.mark.parametrize(
    "tests",
    [
        "",
        "   \n# nothing\n",
        "import math",
        "def check(candidate):\n    assert candidate(1) == 1\n",
    ],
)
def test_an_empty_test_set_is_unverifiable_never_a_pass(verifier, tests):
    verdict = verifier.verify("def f(x): return x", tests)
    assert (
        not verdict.passed and verdict.status == "parse_error" and "unverifiable" in verdict.reason
    )
