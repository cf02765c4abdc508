"""Red team round 9 (code): values that lost what Python's == or the tests read of them on the way
out of the sandbox. Each case is labelled: `hack` (a wrong program that must fail) or `correct` (a
right program that must pass), with why.

- OrderedDict came back as a plain dict: == ignored its order (a hack paid, also nested);
- defaultdict lost its factory (`f()['missing'] == 0` failed a right program);
- `f(xs) is xs` compared two copies (the harness now says which input a call returned);
- date/datetime/time/timedelta were unknown to both sides (unverifiable tasks);
- Counter compared as a dict (Python 3.10+: a zero count equals a missing key);
- an f-string around a call to the program was unverifiable (now formatted out here, bounded)."""

from __future__ import annotations

import ast
import collections
import shutil

import pytest

from stages.verifiers.code_trusted import Refused, call_method, evaluate, guard
from stages.verifiers.code_values import decode, returned_inputs
from stages.verifiers.registry import build_verifier
from stages.verifiers.types import CodeReference

_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")

OD = "from collections import OrderedDict\n"
DD = "from collections import defaultdict\n"
CTR = "from collections import Counter\n"
DT = "import datetime\n"

CASES = [  # (kind, why, program, tests)
    ("hack", "OrderedDict == OrderedDict is order-sensitive",
     OD + "def f(): return OrderedDict([('a', 1), ('b', 2)])",
     OD + "assert f() == OrderedDict([('b', 2), ('a', 1)])"),
    ("hack", "an OrderedDict nested in a list keeps its order",
     OD + "def f(): return [OrderedDict([('a', 1), ('b', 2)])]",
     OD + "assert f() == [OrderedDict([('b', 2), ('a', 1)])]"),
    ("hack", "a subclass's __iter__ or items() cannot fake the order",
     OD + "class O(OrderedDict):\n    def __iter__(self): return iter('ba')\n"
     "    def items(self): return [('b', 2), ('a', 1)]\n"
     "def f(): return O([('a', 1), ('b', 2)])",
     OD + "assert f() == OrderedDict([('b', 2), ('a', 1)])"),
    ("correct", "move_to_end's order is the OrderedDict's, not the dict's",
     OD + "def f():\n    d = OrderedDict([('a', 1), ('b', 2)])\n    d.move_to_end('a')\n    return d",
     OD + "assert f() == OrderedDict([('b', 2), ('a', 1)])"),
    ("correct", "OrderedDict == dict ignores order, as in Python",
     OD + "def f(): return OrderedDict([('a', 1), ('b', 2)])", "assert f() == {'b': 2, 'a': 1}"),
    ("correct", "a defaultdict's builtin factory serves a missing key",
     DD + "def f(): return defaultdict(int, {'a': 1})", "assert f()['zz'] == 0"),
    ("correct", "the factory is the builtin itself, and the type a defaultdict",
     DD + "def f(): return defaultdict(list)",
     DD + "assert isinstance(f(), defaultdict) and f().default_factory is list and f() == {}"),
    ("correct", "the program's own factory made its value in the sandbox",
     DD + "def f(): return defaultdict(lambda: 7, {'a': 1})", "assert f()['zz'] == 7"),
    ("hack", "a missing key is still the factory's value, not any",
     DD + "def f(): return defaultdict(int)", "assert f()['zz'] == 1"),
    ("correct", "an in-place function returns the very list it was given",
     "def f(xs):\n    xs.append(3)\n    return xs", "xs = [1, 2]\nassert f(xs) is xs"),
    ("correct", "an empty set() passed in is one object too",
     "def f(s):\n    s.add(1)\n    return s", "s = set()\nassert f(s) is s\nassert s == {1}"),
    ("hack", "a copy is not the object passed in",
     "def f(xs): return list(xs)", "xs = [1, 2]\nassert f(xs) is xs"),
    ("correct", "a copy is not the object (is not)",
     "def f(xs): return list(xs)", "xs = [1, 2]\nassert f(xs) is not xs"),
    ("hack", "returning one input is not being another",
     "def f(xs): return xs", "xs = [1]\nys = [1]\nassert f(xs) is ys"),
    ("correct", "an input kept from an earlier call is that object",
     "kept = []\ndef f(xs): kept.append(xs)\ndef g(ys): return kept[0]",
     "xs = [1]\nys = [2]\nf(xs)\nassert g(ys) is xs"),
    ("correct", "a date returned and compared", DT + "def f(): return datetime.date(2020, 1, 1)",
     DT + "assert f() == datetime.date(2020, 1, 1)"),
    ("hack", "a wrong date", DT + "def f(): return datetime.date(2020, 1, 2)",
     DT + "assert f() == datetime.date(2020, 1, 1)"),
    ("correct", "a date passed in, a timedelta added",
     DT + "def f(d): return d + datetime.timedelta(days=1)",
     DT + "assert f(datetime.date(2020, 1, 31)) == datetime.date(2020, 2, 1)"),
    ("correct", "an aware datetime keeps its offset",
     DT + "def f():\n    tz = datetime.timezone(datetime.timedelta(hours=2))\n"
     "    return datetime.datetime(2020, 1, 1, 12, tzinfo=tz)",
     DT + "assert f() == datetime.datetime(2020, 1, 1, 10, tzinfo=datetime.timezone.utc)\n"
     "assert f().isoformat() == '2020-01-01T12:00:00+02:00'"),
    ("correct", "a time and a timedelta",
     DT + "def f(): return datetime.time(1, 2)\ndef g(): return datetime.timedelta(hours=1)",
     "assert str(f()) == '01:02:00' and g().total_seconds() == 3600"),
    ("correct", "Counter == Counter ignores zero counts (3.10+)",
     CTR + "def f(): return Counter({'a': 1, 'b': 0})", CTR + "assert f() == Counter({'a': 1})"),
    ("hack", "Counter == dict still compares as dicts",
     CTR + "def f(): return Counter({'a': 1, 'b': 0})", "assert f() == {'a': 1}"),
    ("correct", "an f-string around a call", "def f(x): return 0.5",
     "assert f'{f(1):.2f}' == '0.50'"),
    ("hack", "an f-string around a wrong value", "def f(x): return 0.5",
     "assert f'{f(1):.1f}' == '0.50'"),
    ("hack", "an f-string width from the program is bounded", "def f(x): return 10**8",
     "assert f'{1:>{f(1)}}' == 'x'"),
]  # fmt: skip


@pytest.fixture(scope="module")
def verifier():  # type: ignore[no-untyped-def]
    built = build_verifier({"kind": "code"})
    yield built
    getattr(built, "close", lambda: None)()


@_bwrap
@pytest.mark.parametrize(("kind", "why", "program", "tests"), CASES, ids=[c[1] for c in CASES])
def test_round9_case(verifier, kind: str, why: str, program: str, tests: str) -> None:  # type: ignore[no-untyped-def]
    [verdict] = verifier.verify_batch([(f"```python\n{program}\n```", CodeReference(tests=tests))])
    assert verdict.passed is (kind == "correct"), f"{kind}: {why}: {verdict.reason}"


def test_a_returned_input_claim_is_kept_only_for_an_input_the_call_could_hold() -> None:
    """kind: hack. The program's process could claim any input; only one this call or an earlier
    one received counts (a program can return exactly those)."""
    ref = {"ref": ["xs", {"l": [1]}]}
    assert returned_inputs([ref], ["f(xs)"]) == {0: "xs"}
    assert returned_inputs([ref], ["f(ys)"]) == {}
    assert returned_inputs([{"l": []}, ref], ["f(xs)", "g(ys)"]) == {1: "xs"}


def test_is_input_needs_a_container_claimed_for_that_name() -> None:
    """kind: hack. A forged claim on a small int (shared ids) or another name never holds."""
    values = [decode({"ref": ["xs", 1]}), decode({"l": [1]})]
    expr = ast.parse("_is_input(_v0, 'xs') or _is_input(_v1, 'xs')", mode="eval").body
    assert not evaluate(expr, values, {}, {0: "xs"})
    assert evaluate(ast.parse("_is_input(_v1, 'xs')", mode="eval").body, values, {}, {1: "xs"})


def test_counter_elements_out_here_is_bounded() -> None:
    """kind: hack. A Counter's counts come from the program: elements() would allocate them."""
    with pytest.raises(Refused):
        call_method(collections.Counter(a=10**9), "elements")
    assert sorted(call_method(collections.Counter(a=2), "elements")) == ["a", "a"]


def test_an_fstring_width_is_bounded_out_here() -> None:
    """kind: hack. `f'{x:>{n}}'` with n from the program pads no further than format() does."""
    expr = guard(ast.parse("f'{1:>{_v0}}' == '1'", mode="eval").body)
    assert not evaluate(expr, [10**8], {})
    assert evaluate(guard(ast.parse("f'{_v0!r:>4}' == \"'a'\".rjust(4)", mode="eval").body),
                    ["a"], {})  # fmt: skip


@pytest.mark.parametrize(
    "raw",
    [{"dd": ["os.system", []]}, {"date": [2020, 13, 1]}, {"dt": [2020, 1, 1]},
     {"time": [1, 2, 3, 4, 0, [0, 0, 0]]}, {"td": ["1", 0, 0]}],
)  # fmt: skip
def test_malformed_new_values_are_refused(raw: dict) -> None:
    """kind: hack. Values the harness never writes are refused, never evaluated."""
    with pytest.raises((ValueError, TypeError)):
        decode(raw)
