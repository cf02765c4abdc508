"""A value whose type subclasses a builtin is read by the builtin's own slots inside the sandbox,
never by a method the program's class overrides (red team round 7: `class S(str)` with `__str__`
returning 'yes' was sent as 'yes'). Attack twins for each override, and the legitimate subclasses
(bool, namedtuple, OrderedDict, Counter, IntEnum, ...) that must still pass."""

from __future__ import annotations

import shutil

import pytest

from stages.verifiers.registry import build_verifier
from stages.verifiers.types import CodeReference

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


def _passed(program: str, tests: str) -> bool:
    verifier = build_verifier({"kind": "code"})
    try:
        [verdict] = verifier.verify_batch(
            [(f"```python\n{program}\n```", CodeReference(tests=tests))]
        )
    finally:
        getattr(verifier, "close", lambda: None)()
    return verdict.passed


LIES = [  # (program returning a subclass whose override lies, a test only the lie passes)
    ("class S(str):\n    def __str__(self): return 'yes'\ndef f(): return S('no')", "f() == 'yes'"),
    (
        "class S(str):\n    def __repr__(self): return \"'yes'\"\ndef f(): return S('no')",
        "f() == 'yes'",
    ),
    (
        "class S(str):\n    def __iter__(self): return iter('yes')\ndef f(): return S('no')",
        "f() == 'yes'",
    ),
    (
        "class S(str):\n    def __getitem__(self, i): return 'yes'[i]\ndef f(): return S('no')",
        "f() == 'yes'",
    ),
    (
        "class L(list):\n    def __iter__(self): return iter([1, 2, 3])\ndef f(): return L([9])",
        "f() == [1, 2, 3]",
    ),
    (
        "class L(list):\n    def __len__(self): return 3\n    def __getitem__(self, i): return [1, 2, 3][i]\n"
        "def f(): return L([9])",
        "f() == [1, 2, 3]",
    ),
    (
        "class L(list):\n    def copy(self): return [1, 2, 3]\ndef f(): return L([9])",
        "f() == [1, 2, 3]",
    ),
    (
        "class T(tuple):\n    def __iter__(self): return iter((1, 2))\ndef f(): return T((9,))",
        "f() == (1, 2)",
    ),
    (
        "class Q(set):\n    def __iter__(self): return iter({1, 2})\ndef f(): return Q({9})",
        "f() == {1, 2}",
    ),
    (
        "class Q(frozenset):\n    def __iter__(self): return iter({1})\ndef f(): return Q({9})",
        "f() == frozenset({1})",
    ),
    (
        "class D(dict):\n    def items(self): return [('a', 1)]\ndef f(): return D(b=2)",
        "f() == {'a': 1}",
    ),
    (
        "class D(dict):\n    def keys(self): return ['a']\n    def __getitem__(self, k): return 1\n"
        "    def __iter__(self): return iter(['a'])\ndef f(): return D(b=2)",
        "f() == {'a': 1}",
    ),
    (
        "class I(int):\n    def __int__(self): return 7\n    def __index__(self): return 7\n"
        "def f(): return I(3)",
        "f() == 7",
    ),
    (
        "class I(int):\n    def __repr__(self): return '7'\n    def __str__(self): return '7'\n"
        "def f(): return I(3)",
        "f() == 7",
    ),
    (
        "class F(float):\n    def __float__(self): return 2.5\n    def __repr__(self): return '2.5'\n"
        "def f(): return F(1.0)",
        "f() == 2.5",
    ),
    ("class C(complex):\n    def __complex__(self): return 2j\ndef f(): return C(1)", "f() == 2j"),
    (
        "class B(bytes):\n    def __bytes__(self): return b'yes'\n    def hex(self): return b'yes'.hex()\n"
        "def f(): return B(b'no')",
        "f() == b'yes'",
    ),
    (
        "class B(bytearray):\n    def hex(self): return b'yes'.hex()\n    def copy(self): return bytearray(b'yes')\n"
        "def f(): return B(b'no')",
        "f() == bytearray(b'yes')",
    ),
    (
        "class L(list):\n    pass\nclass M(type(L)):\n    def __eq__(cls, other): return True\n"
        "    def __hash__(cls): return hash(list)\nclass W(metaclass=M):\n"
        "    def __iter__(self): return iter([1, 2, 3])\ndef f(): return W()",
        "f() == [1, 2, 3]",
    ),
    (
        "class deque:\n    __module__ = 'collections'\n    def __iter__(self): return iter([1])\n"
        "def f(): return deque()",
        "f() == __import__('collections').deque([1])",
    ),
    (
        "class Fraction:\n    __module__ = 'fractions'\n    numerator, denominator = 1, 2\n"
        "def f(): return Fraction()",
        "f() == __import__('fractions').Fraction(1, 2)",
    ),
]


@pytest.mark.parametrize(("program", "test"), LIES)
def test_an_overriding_subclass_is_read_by_the_builtins_slots(program: str, test: str) -> None:
    assert not _passed(program, f"assert {test}")


HONEST = [
    ("def f(): return True", "f() == 1 and f() is True"),
    (
        "from collections import namedtuple\nP = namedtuple('P', 'x y')\ndef f(): return P(1, 2)",
        "f() == (1, 2)",
    ),
    (
        "from collections import OrderedDict\ndef f(): return OrderedDict([('b', 2), ('a', 1)])",
        "f() == {'a': 1, 'b': 2}",
    ),
    (
        "from collections import defaultdict\ndef f():\n    d = defaultdict(list)\n    d['a'].append(1)\n"
        "    return d",
        "f() == {'a': [1]}",
    ),
    (
        "from collections import Counter\ndef f(s): return Counter(s)",
        "f('aab') == {'a': 2, 'b': 1}",
    ),
    ("import enum\nclass E(enum.IntEnum):\n    A = 3\ndef f(): return E.A", "f() == 3"),
    ("import enum\nclass E(str, enum.Enum):\n    A = 'x'\ndef f(): return E.A", "f() == 'x'"),
    (
        "class S(str):\n    def shout(self): return self.upper()\ndef f(): return S('no')",
        "f() == 'no'",
    ),
    ("class L(list):\n    pass\ndef f(): return L([1, [2]])", "f() == [1, [2]]"),
    ("class T(tuple):\n    pass\ndef f(): return T((1,))", "f() == (1,)"),
    ("class F(float):\n    pass\ndef f(): return F(0.5)", "f() == 0.5"),
    ("class B(bytes):\n    pass\ndef f(): return B(b'ok')", "f() == b'ok'"),
    ("class B(bytearray):\n    pass\ndef f(): return B(b'ok')", "f() == bytearray(b'ok')"),
    ("class C(complex):\n    pass\ndef f(): return C(1, 2)", "f() == 1 + 2j"),
    ("from collections import deque\ndef f(): return deque([1, 2])", "f() == deque([1, 2])"),
    ("from fractions import Fraction\ndef f(): return Fraction(1, 2)", "f() == Fraction(1, 2)"),
    ("from decimal import Decimal\ndef f(): return Decimal('1.5')", "f() == Decimal('1.5')"),
    ("def f(): return map(abs, [-1, 2])", "list(f()) == [1, 2]"),
    ("def f(): return {'a': 1}.keys()", "list(f()) == ['a']"),
]


@pytest.mark.parametrize(("program", "test"), HONEST)
def test_a_plain_subclass_still_passes(program: str, test: str) -> None:
    assert _passed(program, f"assert {test}")
