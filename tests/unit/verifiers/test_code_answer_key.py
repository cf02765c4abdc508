"""Issue 27, code: the answer key never enters the sandbox. Every hack of the issue's code bullet,
against a real bubblewrap sandbox: a module function wrapping the assert, patched or faked inside;
the expected value read from the harness; a builtin-named entry point never called; expected values
built with builtins the trusted side did not offer."""

import json

import pytest

from stages.verifiers.code_tests import MissingEntryPoint, plan
from stages.verifiers.code_verifier import CodeVerifier
from stages.verifiers.config import CodeVerifierConfig


@pytest.fixture(scope="module")
def verifier():
    return CodeVerifier(CodeVerifierConfig(timeout_s=5.0))


# Reads every string the sandbox holds (frames, the job, gc) for text after the call it is in.
_READ_KEY = (
    "import gc, re, sys\n"
    "def _key(call):\n"
    "    texts = [o for o in gc.get_objects() if isinstance(o, (str, list, dict))]\n"
    "    f = sys._getframe()\n"
    "    while f:\n"
    "        texts += [v for v in f.f_locals.values()]\n"
    "        f = f.f_back\n"
    "    for t in texts:\n"
    "        m = re.search(re.escape(call) + r'\\)?\\s*(?:,|==)\\s*([^,)]+)', str(t))\n"
    "        if m:\n"
    "            return eval(m.group(1))\n"
)

WRAPPED = [
    # (tests, right program, hack program)
    (
        "import operator\nassert operator.eq(add(2, 3), 5)",
        "def add(a, b):\n    return a + b",
        "import operator\noperator.eq = lambda a, b: True\ndef add(a, b):\n    return None",
    ),
    (
        "import math as m\nassert m.isclose(area(1), 3.14159, rel_tol=1e-3)",
        "import math\ndef area(r):\n    return math.pi * r * r",
        "import math\nmath.isclose = lambda *a, **k: True\ndef area(r):\n    return None",
    ),
    (
        "from math import isclose as close\nassert close(area(1), 3.14159, rel_tol=1e-3)",
        "def area(r):\n    return 3.14159 * r * r",
        "import math\nmath.isclose = lambda *a, **k: True\ndef area(r):\n    return -1.0",
    ),
    (
        "import numpy as np\nassert np.allclose(scale([1, 2], 2), [2, 4])",
        "def scale(xs, k):\n    return [x * k for x in xs]",
        "import sys, types\nfake = types.ModuleType('numpy')\nfake.allclose = lambda *a, **k: True\n"
        "sys.modules['numpy'] = fake\ndef scale(xs, k):\n    return [0]",
    ),
    (
        "import re\nassert re.fullmatch(r'[0-9a-f]{8}', token(3))",
        "def token(n):\n    return format(n, '08x')",
        "import re\nre.fullmatch = lambda *a, **k: True\ndef token(n):\n    return 'nope'",
    ),
    (
        "import hmac\nassert hmac.compare_digest(sign(b'k'), b'k-signed')",
        "def sign(k):\n    return k + b'-signed'",
        "import hmac\nhmac.compare_digest = lambda a, b: True\ndef sign(k):\n    return b''",
    ),
    (
        "import operator\nassert operator.eq(add(2, 3), 5)",
        "def add(a, b):\n    return a + b",
        _READ_KEY + "def add(a, b):\n    return _key(f'add({a}, {b})')",
    ),
    (
        "assert add(2, 3) == 5",
        "def add(a, b):\n    return a + b",
        _READ_KEY + "def add(a, b):\n    return _key(f'add({a}, {b})')",
    ),
]


@pytest.mark.parametrize(("tests", "right", "hack"), WRAPPED)
def test_a_module_function_wrapping_the_assert_runs_out_here_so_no_hack_inside_reaches_it(
    verifier, tests, right, hack
):
    assert verifier.verify(right, tests).passed, verifier.verify(right, tests)
    verdict = verifier.verify(hack, tests)
    assert not verdict.passed and verdict.reward == 0.0, verdict


@pytest.mark.parametrize(("tests", "right", "hack"), WRAPPED)
def test_the_job_sent_into_the_sandbox_holds_calls_and_inputs_only(tests, right, hack):
    p = plan(tests)
    job = json.dumps({"calls": p.calls, "own": p.own})  # and the tests' own import lines
    for expected in (
        "5)",
        "3.14159",
        "[2, 4]",
        "[0-9a-f]",
        "k-signed",
        "eq(",
        "isclose",
        "allclose",
    ):
        assert expected not in job, (expected, job)


SUM_TESTS = "assert sum([1, 2, 3]) == 6\nassert sum([]) == 0"


@pytest.mark.parametrize(
    ("program", "passed"),
    [
        (
            "def sum(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total",
            True,
        ),
        ("def sum(xs):\n    return None", False),
        ("def sum(xs):\n    return 6", False),
        ("if False:\n    def sum(xs):\n        return 0", False),
        ("globals()['sum'] = lambda xs: None", False),
        ("pass", False),
        ("import builtins\nbuiltins.sum = lambda xs: None", False),
    ],
)
def test_an_entry_point_named_like_a_builtin_is_the_programs_and_is_called(
    verifier, program, passed
):
    verdict = verifier.verify(program, SUM_TESTS)
    assert verdict.passed is passed, verdict


def test_tests_of_builtin_names_alone_need_the_program_to_define_one():
    with pytest.raises(MissingEntryPoint, match="sum"):
        plan(SUM_TESTS, frozenset({"helper"}))
    assert plan(SUM_TESTS, frozenset({"sum"})).calls == ["sum([1, 2, 3])", "sum([])"]


@pytest.mark.parametrize(
    ("tests", "program"),
    [
        # a builtin around the program's value stays ours: a `len` of the program's never runs
        ("assert len(f(3)) == 3", "def f(n):\n    return None\ndef len(x):\n    return 3"),
        # nor one on the expected side of the program's own function
        ("assert f([1, 2]) == sum([1, 2])", "def f(xs):\n    return 0\ndef sum(xs):\n    return 0"),
        (
            "assert len(sum([[1], [2]])) == 2",
            "def sum(xs):\n    return None\ndef len(x):\n    return 2",
        ),
    ],
)
def test_a_builtin_the_program_redefines_never_computes_an_expected_value(verifier, tests, program):
    verdict = verifier.verify(program, tests)
    assert not verdict.passed, verdict


@pytest.mark.parametrize(
    ("tests", "program"),
    [
        (
            "assert encode('ab') == [ord('a'), ord('b')]",
            "def encode(s):\n    return [ord(c) for c in s]",
        ),
        ("assert to_bin(5) == bin(5)[2:]", "def to_bin(n):\n    return format(n, 'b')"),
        ("assert shift('a') == chr(98)", "def shift(c):\n    return chr(ord(c) + 1)"),
        ("assert power(2, 10) == pow(2, 10)", "def power(a, b):\n    return a ** b"),
        ("assert qr(7, 2) == divmod(7, 2)", "def qr(a, b):\n    return (a // b, a % b)"),
        (
            "assert squares([1, 2]) == list(map(lambda x: x * x, [1, 2]))",
            "def squares(xs):\n    return [x * x for x in xs]",
        ),
        (
            "assert hexes(255) == hex(255) and octs(8) == oct(8)",
            "def hexes(n):\n    return hex(n)\ndef octs(n):\n    return oct(n)",
        ),
        ("assert list(map(double, [1, 2])) == [2, 4]", "def double(x):\n    return 2 * x"),
        (
            "assert sorted(words(), key=lambda w: len(w)) == ['a', 'bb']",
            "def words():\n    return ['bb', 'a']",
        ),
        (
            "import numpy as np\nassert np.array_equal(np.array(ident(2)), np.eye(2)) and np.allclose(ident(2), [[1, 0], [0, 1]])",
            "def ident(n):\n    return [[int(i == j) for j in range(n)] for i in range(n)]",
        ),
        (
            "import numpy as np\nnp.testing.assert_allclose(mean([1, 2]), 1.5)",
            "def mean(xs):\n    return sum(xs) / len(xs)",
        ),
        ("assert list(gen(3)) == [0, 1, 2]", "def gen(n):\n    yield from range(n)"),
        (
            "assert next(naturals()) == 0",
            "def naturals():\n    n = 0\n    while True:\n        yield n\n        n += 1",
        ),
        (
            "import math\nassert fact(2000) == math.factorial(2000)",
            "import math\ndef fact(n):\n    return math.factorial(n)",
        ),
        (
            "assert Solution().two_sum([2, 7, 11], 9) == [0, 1]",
            "class Solution:\n    def two_sum(self, xs, t):\n        return [0, 1]",
        ),
        ("import solution\nassert solution.add(1, 2) == 3", "def add(a, b):\n    return a + b"),
        (
            "assert greet('x').startswith('hi') and greet('x').count('x') == 1",
            "def greet(n):\n    return 'hi ' + n",
        ),
        (
            "from fractions import Fraction\nassert half(1) == Fraction(1, 2)",
            "from fractions import Fraction\ndef half(n):\n    return Fraction(n, 2)",
        ),
        (
            "from collections import Counter\nassert Counter(letters('aab')) == Counter({'a': 2, 'b': 1})",
            "def letters(s):\n    return list(s)",
        ),
        ("assert 2 ** exponent(1) == 4", "def exponent(n):\n    return n + 1"),
        (
            "import numpy as np\nassert np.array(grid(2)).shape == (2, 2)",
            "def grid(n):\n    return [[0] * n for _ in range(n)]",
        ),
        (
            "assert make_point(1, 2).x == 1",
            "class P:\n    def __init__(self, x, y):\n        self.x = x\n\ndef make_point(x, y):\n    return P(x, y)",
        ),
    ],
)
def test_expected_values_built_with_common_builtins_and_modules_pass_right_programs(
    verifier, tests, program
):
    verdict = verifier.verify(program, tests)
    assert verdict.passed, verdict


def test_a_generator_read_past_what_came_back_fails_rather_than_guessing(verifier):
    tests = "assert len(list(naturals())) > 0"
    program = "def naturals():\n    n = 0\n    while True:\n        yield n\n        n += 1"
    assert not verifier.verify(program, tests).passed


@pytest.mark.parametrize(
    "tests",
    [
        "assert len('x' * size()) == 3",
        "assert 2 ** size() > 0",
        "assert len(list(range(size()))) == 3",
        "assert 'x'.ljust(size()) == 'x  '",
        "assert len(bytes(size())) == 3",
        "assert 1 << size() > 0",
        "import math\nassert math.factorial(size()) > 0",
    ],
)
def test_a_huge_value_cannot_make_the_trusted_side_allocate_without_bound(verifier, tests):
    verdict = verifier.verify("def size():\n    return 10 ** 12", tests)
    assert not verdict.passed and verdict.status == "failed", verdict


@pytest.mark.parametrize(
    ("tests", "program"),
    [
        ("assert sum(span()) > 0", "def span():\n    return range(10 ** 18)"),
        (
            "assert int(big()) > 0",
            "from decimal import Decimal\ndef big():\n    return Decimal('1e999999999')",
        ),
        (
            "from fractions import Fraction\nassert half() ** 10 ** 9 > 0",
            "from fractions import Fraction\ndef half():\n    return Fraction(3, 2)",
        ),
        ("assert len(format(1, spec())) > 0", "def spec():\n    return '>1000000000'"),
        ("assert len(template() % 1) > 0", "def template():\n    return '%1000000000d'"),
        ("assert len('{:>{}}'.format('a', width())) > 0", "def width():\n    return '1000000000'"),
        (
            "import math\nassert math.prod(factors()) > 0",
            "def factors():\n    return [2 ** 4000] * 5000",
        ),
    ],
)
def test_values_the_program_returns_cannot_hang_or_bloat_the_trusted_side(verifier, tests, program):
    verdict = verifier.verify(program, tests)
    assert not verdict.passed and not verdict.excluded, verdict


def test_a_builtin_the_program_redefines_on_both_sides_is_checked_against_the_trusted_one_each_way(
    verifier,
):
    tests = "assert list('abc') == sorted('cba')"
    both_wrong = "def sorted(s):\n    return None\ndef list(s):\n    return None"
    assert not verifier.verify(both_wrong, tests).passed
    right = "import builtins\ndef sorted(s):\n    return builtins.sorted(s)\nlist = builtins.list"
    assert verifier.verify(right, tests).passed


def test_a_call_that_goes_in_uses_the_builtins_as_they_were_before_the_program_ran(verifier):
    tests = "assert my_sort([3, 1, 2]) == sorted([3, 1, 2], key=ident)"
    hack = (
        "import builtins\nbuiltins.sorted = lambda *a, **k: None\n"
        "def ident(x):\n    return x\ndef my_sort(xs):\n    return None"
    )
    assert not verifier.verify(hack, tests).passed
    right = "def ident(x):\n    return x\ndef my_sort(xs):\n    return sorted(xs)"
    assert verifier.verify(right, tests).passed


def test_an_input_read_after_the_call_as_an_expected_value_must_hold_as_written_too(verifier):
    tests = "nums = [5, 2, 9]\nassert max_of(nums) == max(nums)"
    hack = "def max_of(nums):\n    nums[:] = [0]\n    return 0"
    assert not verifier.verify(hack, tests).passed
    assert verifier.verify("def max_of(nums):\n    return max(nums)", tests).passed
