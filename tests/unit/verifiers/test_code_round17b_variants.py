"""Near variants of the round 17 code cases closed here (issue 27): the trusted `re` is Python's
own, and a name the trusted evaluator lacks makes the test unverifiable, never a failed program."""

from __future__ import annotations

import shutil
import time

import pytest
from red_team_cases import code_verdict, fenced

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


def _verdict(program: str, tests: str) -> tuple[bool, str]:
    verdict = code_verdict(fenced(program), tests)
    return verdict.passed, verdict.status


_RETURNS = "def f(s):\n    return s"


@pytest.mark.parametrize(
    ("text", "pattern", "paid"),
    [
        ("cafe\u0301", r"\w+", False),  # a combining mark is no \w in Python's re
        ("x\u00bd", r"\w+", True),  # ½ is alphanumeric to str.isalnum, so \w
        ("\u0663\u0661", r"\d+", True),  # Arabic-Indic digits are \d
        ("e\u0301t\u00e9", r"\b\w+\b", False),
        ("ab", r"[[:alpha:]]+", False),  # a set of ':' 'a' ... in re, a class in `regex`
        ("\u212a", r"(?i)k", True),  # the Kelvin sign folds to k
    ],
)  # fmt: skip
def test_the_trusted_re_reads_patterns_as_pythons_re_does(
    text: str, pattern: str, paid: bool
) -> None:
    tests = f"import re\nassert re.fullmatch(r'{pattern}', f({text!r}))"
    assert _verdict(_RETURNS, tests) == (paid, "ok" if paid else "failed")


@pytest.mark.parametrize(
    "tests",
    [
        "import re\nassert len(list(re.finditer(r'\\d', f('a1b2')))) == 2",
        "import re\nassert next(re.compile(r'\\d').finditer(f('a1b2'))).group() == '1'",
        "import re\nassert re.compile(f('a+')).pattern == 'a+' and re.compile(f('x')).groups == 0",
        "import re\nassert re.compile(r'a+').fullmatch(f('aa')).regs == ((0, 2),)",
        "import re\nassert re.match(re.compile(r'a'), f('ab'))",
        "import re\nassert re.sub(r'\\s+', lambda m: '-', f('a  b')) == 'a-b'",
    ],
)  # fmt: skip
def test_a_correct_program_passes_pattern_methods_and_attributes(tests: str) -> None:
    assert _verdict(_RETURNS, tests)[0] is True


@pytest.mark.parametrize(
    "tests",
    [
        "import re\nassert re.compile(f('a')).scanner('a').match()",
        "import re\nassert re.compile(r'a').fullmatch(f('a')) and re.compile(r'a').copy_me",
    ],
)  # fmt: skip
def test_a_pattern_attribute_the_trusted_side_lacks_is_unverifiable_not_failed(tests: str) -> None:
    assert _verdict(_RETURNS, tests) == (False, "parse_error")


def test_a_runaway_match_on_the_programs_string_fails_within_the_alarm() -> None:
    program = "def f():\n    return 'a' * 60"
    started = time.monotonic()
    assert _verdict(program, "import re\nassert re.fullmatch(r'(a+)+b', f())") == (False, "failed")
    assert time.monotonic() - started < 8


@pytest.mark.parametrize(
    ("program", "tests", "paid"),
    [
        # one nan object equals itself in a container and keeps its identity; a fresh one does not
        ("import math\ndef f():\n    return [math.nan]", "import math\nassert f() == [math.nan]", True),
        ("def f():\n    return [float('nan')]", "import math\nassert f() == [math.nan]", False),
        ("import math\ndef f():\n    return [math.nan]", "assert f() == [float('nan')]", False),
        ("def f():\n    return float('nan')", "import math\nassert f() is not math.nan", True),
        ("def f():\n    x = float('nan')\n    return [x, x]", "assert len(set(f())) == 1", True),
        ("def f():\n    return [float('nan'), float('nan')]", "assert len(set(f())) == 1", False),
        ("N = float('nan')\ndef f():\n    return N", "assert [f()] == [f()]", True),
        ("def f():\n    return float('nan')", "assert [f()] == [f()]", False),
        ("import math\ndef f():\n    return {math.nan: 1}", "import math\nassert f()[math.nan] == 1", True),
        ("import cmath\ndef f():\n    return [cmath.nan]", "import math\nassert f() == [math.nan]", False),
        ("import cmath\ndef f():\n    return (cmath.nanj,)", "import cmath\nassert f() == (cmath.nanj,)", True),
        ("def f():\n    return (complex('nanj'),)", "import cmath\nassert f() == (cmath.nanj,)", False),
        ("import math\ndef f():\n    return math.inf", "import math\nassert f() is math.inf", True),
        ("def f():\n    return float('inf')", "import math\nassert f() is math.inf", False),
        ("from math import pi\ndef f():\n    return pi", "import math\nassert f() is math.pi", True),
    ],
)  # fmt: skip
def test_a_nan_or_a_float_constant_keeps_the_identity_python_sees(
    program: str, tests: str, paid: bool
) -> None:
    assert _verdict(program, tests)[0] is paid


_DIGITS = "def {}(n):\n    return 0 if n == 0 else n % 10 + {}(n // 10)"


@pytest.mark.parametrize(
    ("program", "tests", "paid"),
    [
        # one builtin name the program redefines, on both sides: the program's on both, as Python
        (_DIGITS.format("max", "max"), "assert max(123) == max(321)\nassert max(45) == 9", True),
        (_DIGITS.format("abs", "abs"), "assert abs(19) == abs(91) + abs(0)\nassert abs(7) == 7", True),
        ("def round(x):\n    return int(x) + 1", "assert round(1.2) == round(1.7)\nassert round(2.0) == 3", True),
        ("def min(xs):\n    return xs[-1]", "assert min([3, 1]) == min([2, 1])\nassert min([1, 9]) == 9", True),
        # and it still answers for itself: a constant fails the one-sided assert
        ("def sum(n):\n    return 0", "assert sum(123) == sum(321)\nassert sum(45) == 9", False),
        (_DIGITS.format("max", "max"), "assert max(123) == max(322)", False),
        # two different builtin names are each checked against the trusted other, as before
        ("def sorted(s):\n    return 1\ndef list(s):\n    return 1", "assert sorted('ba') == list('ab')", False),
    ],
)  # fmt: skip
def test_a_builtin_name_the_program_redefines_on_both_sides_is_its_own_on_both(
    program: str, tests: str, paid: bool
) -> None:
    assert _verdict(program, tests)[0] is paid


_SET = "def set_cell(g, r, c):\n    g[r][c] = 1\n    return g"
_ADD = "def add(d, k, x):\n    d[k].append(x)\n    return d"


@pytest.mark.parametrize(
    ("program", "tests", "paid"),
    [
        # an input whose value shares objects goes in as written, so the program sees what Python's
        (_SET, "assert set_cell([[0, 0]] * 2, 1, 1) == [[0, 1], [0, 1]]", True),
        (_SET, "assert set_cell(2 * [[0, 0]], 1, 1) == [[0, 1], [0, 1]]", True),
        (_SET, "assert set_cell([[0, 0]] * 2, 1, 1) == [[0, 0], [0, 1]]", False),
        (_SET, "assert set_cell([[0] * 2 for _ in range(2)], 0, 0) == [[1, 0], [1, 0]]", False),
        (_ADD, "assert add(dict.fromkeys('ab', []), 'a', 1) == {'a': [1], 'b': [1]}", True),
        (_ADD, "assert add(dict.fromkeys('ab', []), 'a', 1) == {'a': [1], 'b': []}", False),
        (_ADD, "assert add([[]] * 3, 0, 'x') == [['x'], ['x'], ['x']]", True),
        # and a nan inside one keeps its identity
        ("def f(xs):\n    return xs", "import math\nassert f([math.nan] * 2) == [math.nan, math.nan]", True),
        ("def f(x):\n    return [x]", "import math\nassert f(math.nan) == [math.nan]", True),
        ("def f(x):\n    return [x]", "assert f(float('nan')) == [float('nan')]", False),
    ],
)  # fmt: skip
def test_an_input_that_shares_objects_is_shared_in_the_sandbox_as_in_python(
    program: str, tests: str, paid: bool
) -> None:
    assert _verdict(program, tests)[0] is paid


def test_an_expected_value_whose_pattern_runs_away_makes_the_task_unverifiable() -> None:
    tests = "import re\nassert bool(f()) == bool(re.fullmatch(r'(a+)+b', 'a' * 40))"
    assert _verdict("def f():\n    return 0", tests) == (False, "parse_error")


_ITER = (
    "class Ticks:\n    def __init__(self):\n        self.n = 0\n    def __iter__(self):\n"
    "        return self\n    def __next__(self):\n        self.n += 1\n        return self.n\n"
    "    def count(self, x):\n        return 7\ndef f():\n    return Ticks()\n"
    "def gen():\n    yield 1"
)


@pytest.mark.parametrize(
    ("tests", "verdict"),
    [
        # a method of the program's iterator, read out here on the values it yielded: the
        # stand-in lacks it (the program's class may define it), so the test is unverifiable
        ("assert f().count(1) == 7", (False, "parse_error")),
        ("assert gen().index(1) == 0", (False, "parse_error")),
        # what the stand-in has still decides
        ("assert next(f()) == 1 and list(gen()) == [1]", (True, "ok")),
        ("assert next(f()) == 2", (False, "failed")),
    ],
)  # fmt: skip
def test_an_attribute_a_stand_in_of_the_programs_lacks_is_unverifiable_not_failed(
    tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(_ITER, tests) == verdict


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        # one list of the tests read twice in one input: Python passes one object twice, and so
        # does the sandbox (an input inside a display is shared, round 16 c16-011)
        (_SET, "row = [0, 0]\nassert set_cell([row, row], 0, 0) == [[1, 0], [1, 0]]", (True, "ok")),
        (_SET, "row = [0, 0]\nassert set_cell([row, row], 0, 0) == [[1, 0], [0, 0]]", (False, "failed")),
        (_ADD, "xs = []\nassert add({'a': xs, 'b': xs}, 'a', 1) == {'a': [1], 'b': [1]}", (True, "ok")),
        # passed whole twice it is shared, as before
        ("def both(a, b):\n    a.append(1)\n    return b", "xs = [0]\nassert both(xs, xs) == [0, 1]", (True, "ok")),
        ("def both(a, b):\n    a.append(1)\n    return b", "assert both([0], [0]) == [0]", (True, "ok")),
    ],
)  # fmt: skip
def test_one_list_of_the_tests_twice_in_one_input_is_one_object(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


def test_a_match_inside_a_substitution_callback_keeps_the_outer_alarm() -> None:
    import re

    from stages.verifiers.code_trusted_re import timed_re

    timed = timed_re()

    def callback(_match: object) -> str:  # a quick inner match, then a runaway one
        timed.fullmatch(r"b", "b")
        re.fullmatch(r"(a+)+b", "a" * 60)
        return ""

    started = time.monotonic()
    with pytest.raises(TimeoutError):
        timed.sub(r"x", callback, "x")
    assert time.monotonic() - started < 3
