"""The rules behind round 16's code cases closed in round 17 (issue 27), each pinned by a variant
that is not the attacker's case: an input handed over inside a display, starred or as `**kwargs`
is shared; `type()` of a returned builtin subclass is not its base; an input Python reads after a
later program call is unverifiable; an iterator drawn past Python's draws before later calls is
never paid, and a read past the draws sent back is unverifiable; zip draws as Python does; deep
nesting and values past the report's size are unverifiable, never failed; helpers in blocks of
their own run; a returned `re.Match` is read as one; a lambda argument goes in with its call
unless it could carry the answer key; a constant index is read in the sandbox."""

from __future__ import annotations

import shutil

import pytest
from red_team_cases import code_verdict, fenced

from stages.verifiers.code_tests import UnsupportedTests, plan
from stages.verifiers.types import Verdict

_NO_SANDBOX = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed"
)


def _verdict(program: str, tests: str) -> Verdict:
    return code_verdict(fenced(program), tests)


def _paid(program: str, tests: str) -> bool:
    return _verdict(program, tests).passed


_SORTS_ROWS = "def f(rows):\n    rows['a'].sort()\n    return rows['a'][0]"
_SORTS_KW = "def f(a):\n    a.sort()\n    return a[0]"


@_NO_SANDBOX
@pytest.mark.parametrize(
    ("program", "call", "paid"),
    [
        # the program sorts the caller's list through a dict display or **kwargs: Python sees it
        (_SORTS_ROWS, "f({'a': xs})", False),
        (_SORTS_KW, "f(**{'a': xs})", False),
        ("def f(pair):\n    pair[0].reverse()\n    return 1", "f((xs, 0))", False),
        # one that leaves it alone is paid
        ("def f(rows):\n    return min(rows['a'])", "f({'a': xs})", True),
    ],
)  # fmt: skip
def test_an_input_inside_a_display_or_unpacked_is_the_programs_object(
    program: str, call: str, paid: bool
) -> None:
    tests = f"xs = [3, 1, 2]\nassert {call} == 1\nassert xs == [3, 1, 2]"
    assert _paid(program, tests) is paid


_TWO_STRS = "class A(str):\n    pass\nclass B(str):\n    pass\ndef a():\n    return A('x')\n"


@_NO_SANDBOX
@pytest.mark.parametrize(
    ("program", "tests", "paid"),
    [
        # type() of a program's subclass of a builtin is that subclass, not the builtin
        ("class L(list):\n    pass\ndef f():\n    return L([1])", "assert type(f()) == list", False),
        ("class D(dict):\n    pass\ndef f():\n    return D(a=1)", "assert type(f()) is dict", False),
        (_TWO_STRS + "def b():\n    return B('x')", "assert type(a()) is type(b())", False),
        # the same class twice is one class; isinstance and == see the base, as in Python
        (_TWO_STRS + "def b():\n    return A('y')", "assert type(a()) is type(b())", True),
        (_TWO_STRS, "assert isinstance(a(), str) and a() == 'x'", True),
        ("class D(dict):\n    pass\ndef f():\n    return D(a=1)", "assert f() == {'a': 1}", True),
        ("def f():\n    return 'x'", "assert type(f()) is str", True),
    ],
)  # fmt: skip
def test_type_of_a_returned_builtin_subclass_is_not_its_base(
    program: str, tests: str, paid: bool
) -> None:
    assert _paid(program, tests) is paid


@pytest.mark.parametrize(
    "expr",
    ["[nums, 0] == [f(nums), 0]", "nums + f(nums) == [1, 2, 0, 1]", "(nums or []) == f(nums)",
     "f(nums) == 1 and nums == g(nums)"],
)  # fmt: skip
def test_an_input_python_reads_after_a_later_program_call_is_unsupported(expr: str) -> None:
    """kind: hack. Python holds the object and reads it after the call may have changed it; the
    read as written is not what Python compares, so the tests are unverifiable."""
    with pytest.raises(UnsupportedTests, match="after a later program call"):
        plan(f"nums = [1, 2]\nassert {expr}", frozenset({"f", "g"}))


@pytest.mark.parametrize(
    ("expr", "calls"),
    [("len(nums) == f(nums)", ["f(nums)"]), ("sorted(nums)[0] == f(nums)", ["f(nums)"]),
     ("nums == [1, 2] and f(nums) == 3", ["f(nums)"]), ("f(nums) == nums", ["f(nums)", "nums"])],
)  # fmt: skip
def test_an_input_read_before_a_call_and_done_with_is_read_as_written(
    expr: str, calls: list[str]
) -> None:
    """kind: correct. `len(nums)` is read before f runs, and done with: as written."""
    assert plan(f"nums = [1, 2]\nassert {expr}", frozenset({"f"})).calls == calls


_LOGS = "def gen(log):\n    for i in range(3):\n        yield i\n        log.append(i)\n"
_COUNTS = "N = [0]\ndef gen():\n    for i in range(3):\n        N[0] += 1\n        yield i\ndef count():\n    return N[0]\n"  # fmt: skip


@_NO_SANDBOX
@pytest.mark.parametrize(
    ("program", "tests", "paid"),
    [
        # Python stops drawing early (any, in); the sandbox drew on, running the program's code
        (_LOGS, "log = []\nassert any(gen(log))\nassert log == [0, 1, 2]", False),
        (_COUNTS, "assert 1 in gen()\nassert count() == 3", False),
        # drawn to its end out here as in Python: later calls see what Python's would
        (_LOGS, "log = []\nassert list(gen(log)) == [0, 1, 2]\nassert log == [0, 1, 2]", True),
        (_COUNTS, "assert sorted(gen()) == [0, 1, 2]\nassert count() == 3", True),
    ],
)  # fmt: skip
def test_an_iterator_drawn_past_python_before_later_calls_is_never_paid(
    program: str, tests: str, paid: bool
) -> None:
    verdict = _verdict(program, tests)
    assert verdict.passed is paid
    assert paid or "further than Python would" in verdict.reason


@_NO_SANDBOX
def test_reading_past_the_draws_sent_back_is_unverifiable_not_failed() -> None:
    """kind: correct. Python would draw 12,001 items; the sandbox sent 10,000."""
    program = "def count_up(n):\n    yield from range(n)"
    verdict = _verdict(program, "assert 12000 in count_up(12001)")
    assert verdict.status == "parse_error" and "read past the generator" in verdict.reason


_NESTS = "def nest(n):\n    out = []\n    for _ in range(n):\n        out = [out]\n    return out"


@_NO_SANDBOX
def test_a_value_nested_deep_is_read_and_one_past_the_harness_limit_is_unverifiable() -> None:
    """kind: correct. 90 levels are read; 150 pass the harness's 100: unverifiable, not failed."""
    assert _paid(_NESTS, "assert nest(90)[0] == nest(89)")
    verdict = _verdict(_NESTS, "assert nest(150) != []")
    assert verdict.status == "parse_error" and "nested past 100 levels" in verdict.reason


_GROWS = "def grow():\n    x = 7\n    while True:\n        yield x\n        x = x ** 3\n"
_DRAWS = "N = [0]\ndef gen():\n    while True:\n        N[0] += 1\n        yield N[0]\ndef count():\n    return N[0]\n"  # fmt: skip


@_NO_SANDBOX
@pytest.mark.parametrize(
    ("program", "tests", "paid"),
    [
        # an endless generator of growing values, zipped with constants: drawn as Python draws it
        (_GROWS, "assert list(zip('ab', grow()))[1] == ('b', 343)", True),
        # zip draws in order: the generator first is drawn once more than the shortest after it
        (_DRAWS, "assert list(zip(gen(), range(2))) == [(1, 0), (2, 1)]\nassert count() == 3", True),
        (_DRAWS, "assert list(zip(gen(), range(2))) == [(1, 0), (2, 1)]\nassert count() == 2", False),
        (_DRAWS, "assert list(zip((0, 1), gen(), [5, 6, 7])) == [(0, 1, 5), (1, 2, 6)]\n"
                 "assert count() == 2", True),
    ],
)  # fmt: skip
def test_zip_draws_a_program_iterator_as_far_as_python_does(
    program: str, tests: str, paid: bool
) -> None:
    assert _paid(program, tests) is paid


@_NO_SANDBOX
def test_values_past_the_report_size_make_the_task_unverifiable_not_failed() -> None:
    """kind: correct. Two million characters back pass the report's 1 MiB: a harness limit."""
    verdict = _verdict("def f():\n    return 'ab' * 1_000_000", "assert f()[:2] == 'ab'")
    assert verdict.status == "parse_error" and "passed the report's" in verdict.reason


_FENCE = "```python\n{}```\n"


def _blocks(*texts: str) -> str:
    return "Parts:\n\n" + "\nthen\n\n".join(_FENCE.format(t) for t in texts)


def test_helpers_in_blocks_of_their_own_run_with_the_block_that_reads_them() -> None:
    """kind: correct. A constant and a helper (which reads another helper) in earlier blocks, and
    one after: the program as the blocks read together; a usage example stays out."""
    from stages.verifiers.code_blocks import extract_code

    scale = "SCALE = 3\n"
    double = "def double(x):\n    return triple(x) * 2 // SCALE\n"
    triple = "def triple(x):\n    return x * SCALE\n"
    main = "def f(x):\n    return double(x) + 1\n"
    usage = "print(f(2))\n"
    response = _blocks(scale, double, main, usage, triple)
    assert extract_code(response, "assert f(2) == 5") == scale + double + main + triple


@pytest.mark.parametrize(
    "other",
    [
        "def double(x):\n    return 0\n",  # a second, different helper of the same name
        "def f(x):\n    return 0\ndef double(x):\n    return x\n",  # a helper that redefines f
        "import builtins\nbuiltins.abs = round\ndef double(x):\n    return x * 2\n",  # rewrites
    ],
)
def test_a_helper_block_that_disagrees_or_rewrites_is_refused(other: str) -> None:
    """kind: hack. No one program: refused, never a guess at which runs."""
    from stages.verifiers.code_blocks import CodeBlocksDisagree, extract_code

    helper = "def double(x):\n    return x * 2\n"
    main = "def f(x):\n    return double(x) + 1\n"
    with pytest.raises(CodeBlocksDisagree):
        extract_code(_blocks(helper, other, main), "assert f(2) == 5")


_SEARCH = "import re\ndef find(s):\n    return re.search(r'(?P<n>\\d+)(x)?', s)\n"


@_NO_SANDBOX
@pytest.mark.parametrize(
    ("program", "tests", "paid"),
    [
        # a returned Match is read as Python reads it: truth, groups by number or name, spans
        (_SEARCH, "assert find('ab12') and not find('ab')", True),
        (_SEARCH, "assert find('ab12')[0] == '12' and find('ab12')['n'] == '12'", True),
        (_SEARCH, "assert find('a7x')[2] == 'x' and find('a7')[2] is None", True),
        (_SEARCH, "assert find('ab12') is not None\nassert find('ab') is None", True),
        # one that matches where it should not is truthy out here too
        ("import re\ndef find(s):\n    return re.search(r'\\d*', s)\n", "assert not find('ab')",
         False),
    ],
)  # fmt: skip
def test_a_returned_match_is_read_as_python_reads_it(program: str, tests: str, paid: bool) -> None:
    assert _paid(program, tests) is paid


def test_a_match_read_for_what_was_not_sent_back_is_unverifiable() -> None:
    """kind: correct. `m.lastindex` never came back: unverifiable, not a failed assert."""
    from stages.verifiers.code_match import decode_match
    from stages.verifiers.code_trusted import Unverifiable
    from stages.verifiers.code_values import decode

    match = decode_match([["12", "12"], [[2, 4], [2, 4]], [["n", 1]]], decode)
    assert match.groupdict() == {"n": "12"} and match.span("n") == (2, 4) and match.end() == 4
    with pytest.raises(Unverifiable):
        _ = match.lastindex


_COMPOSE = "def compose(f, g):\n    return lambda x: f(g(x))\n"
_SORT_BY = "def sort_by(xs, key):\n    return sorted(xs, key=key)\n"


@_NO_SANDBOX
@pytest.mark.parametrize(
    ("program", "tests", "paid"),
    [
        # lambdas as inputs go in with the call: curried, by keyword, with a builtin
        (_COMPOSE, "assert compose(lambda x: x + 1, lambda x: x * 3)(2) == 7", True),
        (_SORT_BY, "assert sort_by(['bb', 'a', 'ccc'], key=lambda s: len(s)) == ['a', 'bb', 'ccc']",
         True),
        # a wrong program is still judged wrong
        ("def compose(f, g):\n    return lambda x: g(f(x))\n",
         "assert compose(lambda x: x + 1, lambda x: x * 3)(2) == 7", False),
    ],
)  # fmt: skip
def test_a_lambda_argument_goes_in_with_the_call(program: str, tests: str, paid: bool) -> None:
    assert _paid(program, tests) is paid


@pytest.mark.parametrize(
    "expr",
    ["apply(lambda x: x * 12, 1) == 12", "apply(lambda x: x + 5, 0) == [5, 6]",
     "apply(lambda x: [y for y in x], 1) == 1", "apply(lambda x, k=7: x * k, 1) == 1",
     "apply(lambda x: helper(x), 1) == 1", "apply([lambda x: x * 2], 1) == 1"],
)  # fmt: skip
def test_a_lambda_holding_an_expected_value_or_more_than_its_parameters_stays_out(
    expr: str,
) -> None:
    """kind: hack. A lambda holding the expected value (12), a comprehension, a default, a name
    of the tests' or one not passed directly: unverifiable, never sent in."""
    with pytest.raises(UnsupportedTests, match="lambda or comprehension"):
        plan(f"assert {expr}", frozenset({"apply"}))


def test_a_constant_index_of_a_program_call_is_read_in_the_sandbox() -> None:
    """kind: correct. `make(n)[-1]` sends back one item, never the whole list; `f()[0] is g()`
    is then the harness's identity report on that item, as `f() is g()` is."""
    assert plan("assert make(400000)[-1] == 399999", frozenset({"make"})).calls == [
        "make(400000)[-1]"
    ]
    p = plan("assert f()[0] is g()", frozenset({"f", "g"}))
    assert p.calls == ["f()[0]", "g()"] and p.keep == [0]


@_NO_SANDBOX
def test_an_item_of_a_list_past_the_report_size_is_read() -> None:
    program = "def squares(n):\n    return [k * k for k in range(n)]"
    assert _paid(program, "assert squares(300000)[-2] == 299998 ** 2")
    assert not _paid(program, "assert squares(300000)[0] == 1")
