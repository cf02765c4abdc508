"""Near variants of the round 18 code mechanisms (issue 27), written here: an assert's calls read
as Python reads them (a live result, a reused buffer, an iterator a later call feeds), sets and
string hashes, builtin functions, `[*f(x)]`. Beside each hack, the honest idioms that must keep
passing (fresh lists, generators of fresh items, sets compared with ==, sorted(set(...)))."""

from __future__ import annotations

import ast
import shutil

import pytest
from red_team_cases import code_verdict, fenced

from stages.verifiers.code_groups import apply_fixes, call_group

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
PAID, FAILED, UNVERIFIABLE = (True, "ok"), (False, "failed"), (False, "parse_error")


def _verdict(program: str, tests: str) -> tuple[bool, str]:
    verdict = code_verdict(fenced(program), tests)
    return verdict.passed, verdict.status


_LOG = "_log = []\ndef log(x):\n    _log.append(x)\n    return _log"
_BUMP = "_c = {}\ndef bump(k):\n    _c[k] = _c.get(k, 0) + 1\n    return _c"
_VIEW = "_d = {'a': 1}\ndef keys():\n    return _d.keys()\ndef add(k):\n    _d[k] = 0\n    return len(_d)"


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        (_LOG, "assert (log('a'), log('b')) == (['a'], ['a', 'b'])", FAILED),  # one live list
        (_BUMP, "assert bump('x') != bump('x')", FAILED),
        (_VIEW, "assert [keys(), add('b')] == [{'a'}, 2]", FAILED),  # the view shows 'b'
        (_LOG, "assert [log(1), log(2)] == [[1, 2], [1, 2]]", PAID),  # the live list, as Python
        (_LOG, "assert log(1) == [1] and log(2) == [1, 2]", PAID),  # compared before log(2)
        (_LOG, "assert log(1) and log(2) == [1, 2]", UNVERIFIABLE),  # truth read, then changed
        ("def pair(x):\n    return [x, x]", "assert [pair(1), pair(2)] == [[1, 1], [2, 2]]", PAID),
        ("def new():\n    return {}", "assert new() is not new() and new() == {}", PAID),
    ],
)  # fmt: skip
def test_a_value_is_read_when_the_assert_first_uses_it(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


_CHUNKS = "def chunks(xs):\n    buf = []\n    for x in xs:\n        buf.clear()\n        buf.append(x)\n        yield buf"
_ROWS = (
    "def rows(n):\n    row = {}\n    for i in range(n):\n        row['i'] = i\n        yield row"
)
_FRESH_ROWS = "def rows(n):\n    for i in range(n):\n        yield {'i': i}"
_ISLICE = "from itertools import islice\nassert list(islice(rows(3), 2)) == [{'i': 0}, {'i': 1}]"


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        (_CHUNKS, "assert list(zip(range(2), chunks([1, 2]))) == [(0, [1]), (1, [2])]",
         UNVERIFIABLE),  # Python's items are both the final buffer
        (_ROWS, _ISLICE, UNVERIFIABLE),
        (_FRESH_ROWS, _ISLICE, PAID),
        ("def gen(n):\n    yield from range(n)", "assert list(zip('abc', gen(3))) == "
         "[('a', 0), ('b', 1), ('c', 2)]", PAID),
        ("def squares(n):\n    return (i * i for i in range(n))",
         "assert list(squares(3)) == [0, 1, 4] and sum(squares(4)) == 14", PAID),
    ],
)  # fmt: skip
def test_a_generator_yielding_one_buffer_is_never_paid(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


_QUEUE = (
    "_q = [1]\ndef stream():\n    return iter(_q)\ndef push(x):\n    _q.append(x)\n    return x"
)
_SCALE = (
    "_k = [1]\ndef setk(v):\n    _k[0] = v\n    return v\n"
    "def mul(xs):\n    return map(lambda x: x * _k[0], xs)"
)
_COUNT = "def count(n):\n    yield from range(n)"


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        (_QUEUE, "assert list(zip(stream(), [push(2), 0])) == [(1, 2), (2, 0)]", PAID),
        (_SCALE, "assert list(zip(mul([1]), [setk(5)])) == [(1, 5)]", FAILED),  # Python: (5, 5)
        (_SCALE, "assert list(zip(mul([1]), [setk(5)])) == [(5, 5)]", PAID),
        # two iterators Python draws in turn: never drawn one after the other and failed
        (_COUNT, "assert list(zip(count(2), count(2))) == [(0, 0), (1, 1)]", UNVERIFIABLE),
        (_QUEUE, "assert stream() and push(2) == 2", UNVERIFIABLE),  # drawn before push(2)
    ],
)  # fmt: skip
def test_an_iterator_is_drawn_after_the_calls_python_makes_first(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


_UNIQ = "def uniq(xs):\n    return set(xs)"
_KEEP = "def keep():\n    s = set(range(5000))\n    s.intersection_update({7, 4103})\n    return s"


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        (_UNIQ, "assert uniq([3, 1, 3]) == {1, 3}", PAID),
        (_UNIQ, "assert sorted(uniq(['b', 'a', 'b'])) == ['a', 'b']", PAID),
        (_UNIQ, "assert uniq(['x', 'y']) == {'y', 'x'} and len(uniq('abca')) == 3", PAID),
        (_UNIQ, "assert uniq([7, 7]).pop() == 7", PAID),  # one item: no order to it
        (_UNIQ, "assert uniq([1, 2]).pop() == 1", UNVERIFIABLE),  # where the program's set popped
        ("def words(s):\n    return list(set(s.split()))",
         "assert words('a b c a') == list(set('a b c'.split()))", PAID),  # one hash seed
        ("def first(s):\n    return next(iter(set(s)))",
         "assert first('hello') == next(iter(set('hello')))", PAID),
    ],
)  # fmt: skip
def test_sets_and_string_hashes_read_as_in_one_python(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


@pytest.mark.parametrize(
    "tests",
    [
        "assert ' '.join(map(str, keep())) == '4103 7'",
        "assert ' '.join(map(str, keep())) == '7 4103'",
        "assert f'{keep()}' == '{4103, 7}'",
        "assert list(keep()) == [4103, 7]",
    ],
)
def test_a_sets_order_is_never_read_from_a_rebuilt_table(tests: str) -> None:
    # In Python the shrunk table iterates 7, 4103; a rebuilt one iterates 4103, 7: the order is
    # the program's (read in the sandbox) or the test is unverifiable. Never a paid wrong order,
    # never a failed right one.
    paid, status = _verdict(_KEEP, tests)
    namespace: dict = {}
    exec(_KEEP, namespace)  # noqa: S102 - our own program: what Python says of the test
    try:
        exec(tests, namespace)  # noqa: S102
        python_holds = True
    except AssertionError:
        python_holds = False
    assert (paid, status) != ((False, "failed") if python_holds else (True, "ok"))


@pytest.mark.parametrize(
    ("program", "tests", "verdict"),
    [
        ("import math\ndef pick(name):\n    return {'sqrt': math.sqrt}[name]",
         "import math\nassert pick('sqrt') is math.sqrt", PAID),
        ("def agg(kind):\n    return max", "assert agg('min') != max", FAILED),
        ("import operator\ndef op(c):\n    return {'+': operator.add, '*': operator.mul}[c]",
         "import operator\nassert op('*') == operator.mul and op('+')(2, 3) == 5", PAID),
        ("import statistics\ndef avg():\n    return statistics.mean",
         "import statistics\nassert avg() != statistics.mean", UNVERIFIABLE),  # a Python function
        ("import functools\ndef inc():\n    return functools.partial(pow, 2)",
         "assert inc() != 0", UNVERIFIABLE),
        ("def helper():\n    return 1\ndef get():\n    return helper",
         "assert callable(get()) and get()() == 1", PAID),  # the program's own stays its own
    ],
)  # fmt: skip
def test_a_returned_builtin_is_the_one_the_tests_name(
    program: str, tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(program, tests) == verdict


_EVENS = "def evens(n):\n    return (i for i in range(0, n, 2))"


@pytest.mark.parametrize(
    ("tests", "verdict"),
    [
        ("assert [*evens(4)] == [0, 2]", PAID),
        ("assert (*evens(6),) == (0, 2, 4)", PAID),
        ("assert [*evens(4)] == [0, 2, 4]", FAILED),
        ("assert {*evens(4)} == {2, 0}", PAID),
    ],
)
def test_one_unpacked_call_in_a_display_reads_as_the_builtin(
    tests: str, verdict: tuple[bool, str]
) -> None:
    assert _verdict(_EVENS, tests) == verdict


@pytest.mark.parametrize(
    ("test", "group"),
    [
        ("[_v0, _v1] == x", [0, 1, [0], [], [], []]),  # compared after both calls: late
        ("_v0 == [1] and _v1 == 2", [0, 1, [], [0], [], []]),  # compared before the next: early
        ("_v0 and _v1 == 2", [0, 1, [], [], [], []]),  # its truth read in between: neither
        ("list(zip(_v0, [_v1, 0])) == x", [0, 1, [0], [], [], []]),
        ("f'{_v0}{_v1}' == x", [0, 1, [], [], [0], []]),  # formatted before the next: round 19
    ],
)
def test_the_groups_reading_of_an_assert(test: str, group: list) -> None:
    assert call_group(ast.parse(test, mode="eval").body, 0, 2) == group


def test_a_settled_value_never_forges_which_input_a_call_returned() -> None:
    forged = [{"l": [1]}, {"fix": [[[0, {"ref": ["xs", {"l": []}]}]], 2]}]
    assert apply_fixes(forged)[0] == {"e": "the program forged a settled value"}
    kept = [{"ref": ["xs", {"l": [1]}]}, {"fix": [[[0, {"l": [1, 2]}]], 2]}]
    assert apply_fixes(kept) == [{"ref": ["xs", {"l": [1, 2]}]}, 2]
