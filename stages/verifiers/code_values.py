"""The program's values as they come back from the sandbox: tagged JSON decoded into plain values of
exactly the builtin types (and a few stand-ins: a call that raised, a function of the program, the
items a generator yielded). Nothing from the sandbox is unpickled or evaluated."""

from __future__ import annotations

import array
import cmath
import collections
import contextvars
import decimal
import fractions
import math
from typing import Any

from stages.verifiers.code_match import decode_match
from stages.verifiers.code_trusted import MAX_SIZE
from stages.verifiers.code_values_dates import DATES as _DATES
from stages.verifiers.code_values_dates import decode_dates as _decode_dates
from stages.verifiers.code_values_order import builtin_function, in_program_order
from stages.verifiers.code_values_stand_ins import (
    ProgramFactory,
    ProgramFunction,
    Replay,
    collecting_replays,
)
from stages.verifiers.code_verdict_errors import (  # noqa: F401  (CandidateError re-exported)
    CandidateError,
    UnsupportedValue,
    Unverifiable,
)

_SEQUENCES = {"l": list, "t": tuple, "s": set, "fs": frozenset}
_MAX_HEX = 250_000  # hex digits of a returned int (a million bits); more is refused
_NUMPY_DTYPES = frozenset(
    [
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    ]
)


class _Collapsed(ValueError):
    """Keys or members distinct in the program (a str subclass with its own hash) that are equal
    as plain values: the plain form would merge them."""


# (base, the class's id in the sandbox) -> a stand-in subclass, one per program class per report
_CLASSES: contextvars.ContextVar[dict[tuple[type, int], type]] = contextvars.ContextVar("classes")
_MARKABLE = frozenset([str, int, float, complex, bytes, bytearray, list, tuple, set, frozenset,
                       dict, collections.OrderedDict, collections.Counter,
                       collections.defaultdict])  # fmt: skip


def decode(obj: Any, classes: dict[tuple[type, int], type] | None = None) -> Any:
    """Tagged JSON -> a plain value of exactly the builtin types (ValueError when malformed);
    one whose keys or members would merge as plain values is an UnsupportedValue: Python would
    compare the program's own objects, which the trusted side cannot. Nothing from the sandbox
    is unpickled or evaluated. A value of a program's subclass of a builtin is an instance of a
    stand-in subclass (`classes`: one per program class, shared by a report's values)."""
    token = _CLASSES.set({} if classes is None else classes)
    try:
        return _decode(obj)
    except (_Collapsed, Unverifiable) as e:  # Unverifiable: a stand-in key's refused __hash__
        return UnsupportedValue(str(e))
    finally:
        _CLASSES.reset(token)


def _subclass(raw: Any) -> Any:
    """`type(v) is str` is False for a program's `class S(str)` in Python: so it is out here. The
    stand-in subclass adds nothing to its base but that; one per program class (`type(a) is
    type(b)` holds just when it does in Python)."""
    if not isinstance(raw, list) or len(raw) not in (2, 3) or type(raw[0]) is not int:
        raise ValueError("malformed subclass value")
    value = _decode(raw[1])
    if isinstance(value, UnsupportedValue):  # a set read under another string hash seed (round 21)
        return value
    base = type(value)
    if base not in _MARKABLE:
        raise ValueError(f"malformed subclass of {base.__name__}")
    classes = _CLASSES.get()
    extra = raw[2] if len(raw) == 3 else {}
    if not isinstance(extra, dict) or not set(extra) <= {"ov", "nt"}:
        raise ValueError("malformed subclass value")
    refused = _refusing(extra.get("ov", []))
    if "nt" in extra:
        return _namedtuple(raw[0], extra["nt"], value, classes, refused)
    made = classes.get((base, raw[0]))
    if made is None:
        try:
            made = type(f"{base.__name__}_subclass", (base,), refused)
        except Exception as e:  # noqa: BLE001 - a name type() will not take
            return UnsupportedValue(f"a subclass of {base.__name__} out here: {e}"[:100])
        classes[(base, raw[0])] = made
    if base is collections.defaultdict:
        return made(value.default_factory, value)
    return made(value)


def _refusing(names: Any) -> dict[str, Any]:
    """A stand-in's methods under the names the program's class defines over its base's: each
    makes the test unverifiable where an operation reaches it (`+` of a Vec, `hash` of an N)."""
    if not isinstance(names, list) or not all(type(n) is str for n in names):
        raise ValueError("malformed overrides")

    def refuser(name: str) -> Any:
        def refused(*_args: Any, **_kwargs: Any) -> Any:
            raise Unverifiable(f"the program's class defines {name[:60]}, which the tests reach")

        return refused

    # how the program's object is freed is no operation of the tests' on the value out here
    return {name: refuser(name) for name in names if name != "__del__"}


def _namedtuple(key: int, form: Any, value: Any, classes: dict[tuple[type, int], type],
                refused: dict[str, Any]) -> Any:  # fmt: skip
    """A namedtuple of the program's, as collections' own class of its name and fields: it
    formats as Python does (`f'{p}'` is 'Point(x=1, y=2)')."""
    if type(value) is not tuple or not isinstance(form, list) or len(form) != 2:
        raise ValueError("malformed namedtuple")
    name, fields = form
    if type(name) is not str or not isinstance(fields, list) or len(fields) != len(value):
        raise ValueError("malformed namedtuple")
    if not all(type(f) is str for f in fields):
        raise ValueError("malformed namedtuple")
    made = classes.get((tuple, key))
    if made is None:
        named = collections.namedtuple(name, fields)  # ValueError on a bad name
        made = classes.setdefault((tuple, key), type(name, (named,), {"__slots__": (), **refused}))
    if len(made._fields) != len(value):  # type: ignore[attr-defined]
        raise ValueError("malformed namedtuple")
    return made._make(value)  # type: ignore[attr-defined]


def _decode(obj: Any) -> Any:
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if type(obj) is int:  # JSON's own integers (small ones)
        return obj
    if not isinstance(obj, dict) or len(obj) not in (1, 2):
        raise ValueError(f"malformed value {str(obj)[:60]}")
    tag, raw = next(iter(obj.items()))
    if tag == "it" and isinstance(raw, list):
        return Replay([_decode(x) for x in raw], bool(obj.get("more")))
    if tag in ("f", "c") and list(obj) == [tag, "id"]:
        return _identified(_decode({tag: raw}), obj["id"])
    if len(obj) != 1:
        raise ValueError(f"malformed value {str(obj)[:60]}")
    if tag == "e":
        return CandidateError(str(raw)[:200])
    if tag == "raised" and isinstance(raw, list):  # the builtin classes a call raised: code_raises
        return frozenset(str(x) for x in raw)
    if tag == "sub":
        return _subclass(raw)
    if tag == "rm":
        return decode_match(raw, _decode)
    if tag == "u":
        return UnsupportedValue(f"the program returned a {str(raw)[:100]}, not plain data")
    if tag == "dq" and isinstance(raw, list):
        return collections.deque(_decode(x) for x in raw)
    if tag == "arr" and isinstance(raw, list) and len(raw) == 2 and isinstance(raw[1], list):
        return array.array(str(raw[0]), [_decode(x) for x in raw[1]])  # ValueError: malformed
    if tag == "bt" and raw in _FACTORIES:
        return _FACTORIES[raw]
    if tag == "fn" and isinstance(raw, list) and len(raw) == 2 and type(raw[1]) is int:
        return ProgramFunction(str(raw[0])[:100], raw[1])
    if tag == "bf" and isinstance(raw, list) and len(raw) == 2:
        return builtin_function(*raw)
    if tag == "i" and isinstance(raw, str) and len(raw) <= _MAX_HEX:
        return int(raw, 16)
    if tag == "f":
        return float(str(raw))
    if tag == "c":
        return complex(float(raw[0]), float(raw[1]))
    if tag in ("b", "ba"):
        return (bytes if tag == "b" else bytearray).fromhex(str(raw))
    if tag in _SEQUENCES and isinstance(raw, list):
        items = [_decode(x) for x in raw]
        made = _whole(_SEQUENCES[tag](items), raw)
        return made if tag in ("l", "t") else in_program_order(made, items)
    if tag == "ref" and isinstance(raw, list) and len(raw) == 2:
        return _decode(raw[1])  # which input it was: `returned_inputs`
    if tag in _MAPPINGS and isinstance(raw, list):
        return _MAPPINGS[tag](_whole({_decode(k): _decode(v) for k, v in raw}, raw))
    if tag == "dd" and isinstance(raw, list) and len(raw) == 2 and isinstance(raw[1], list):
        items = _whole({_decode(k): _decode(v) for k, v in raw[1]}, raw[1])
        return collections.defaultdict(_factory(raw[0]), items)
    if tag in ("dk", "dv", "di") and isinstance(raw, list):
        items = [_decode(x) for x in raw]
        if tag == "dk":
            return _whole(dict.fromkeys(items), raw).keys()
        return dict(enumerate(items)).values() if tag == "dv" else _whole(dict(items), raw).items()
    return _decode_dates(tag, raw) if tag in _DATES else _decode_bounded(tag, raw)


_CONSTANTS = {f"{m.__name__}.{n}": getattr(m, n) for m in (math, cmath)
              for n in ("nan", "inf", "pi", "e", "tau", "nanj", "infj") if hasattr(m, n)}  # fmt: skip
# One report's nans by the harness's index: the same object wherever the program returned it.
_SAME_NANS: contextvars.ContextVar[dict[int, Any] | None] = contextvars.ContextVar(
    "_SAME_NANS", default=None
)


def decode_all(tagged: list[Any], drawn: list[list[Replay]] | None = None) -> list[Any]:
    """Every value of one report: a nan the program returned twice as one object (a module's
    constant such as math.nan: the trusted side's own) decodes as one object, so `==` of
    containers and `is` see what Python saw; one stand-in class per program class among them.
    `drawn` gets, per value, every generator decoded in it (at any depth, in any container)."""
    classes: dict[tuple[type, int], type] = {}
    token = _SAME_NANS.set({})
    values: list[Any] = []
    try:
        for v in tagged:
            made: list[Replay] = []
            with collecting_replays(made):
                values.append(decode(v, classes))
            if drawn is not None:
                drawn.append(made)
        return values
    finally:
        _SAME_NANS.reset(token)


def _identified(value: Any, key: Any) -> Any:
    if isinstance(key, str):
        known = _CONSTANTS.get(key)
        if key == "numpy.nan":
            import numpy as np

            known = np.nan
        if known is None or repr(known) != repr(value):
            raise ValueError(f"malformed float constant {key[:40]!r}")
        return known
    if type(key) is not int or value == value:
        raise ValueError("malformed nan identity")
    same = _SAME_NANS.get()
    if same is None:
        return value
    first = same.setdefault(key, value)
    if type(first) is not type(value) or repr(first) != repr(value):
        raise ValueError("malformed nan identity")
    return first


def _whole(made: Any, raw: list[Any]) -> Any:
    """`made` (a set or a mapping, from a dict: Counter(pairs) would count) when it holds as many
    members as the program's value did."""
    if len(made) != len(raw):
        raise _Collapsed("the program returned keys or members that merge as plain values")
    return made


_MAPPINGS = {"d": dict, "od": collections.OrderedDict, "ctr": collections.Counter}
_FACTORIES = {t.__name__: t for t in (int, float, complex, str, bytes, bool, list, tuple, dict,
                                      set, frozenset)}  # fmt: skip


def _factory(spec: Any) -> Any:
    if spec is None:
        return None
    if isinstance(spec, str) and spec in _FACTORIES:
        return _FACTORIES[spec]
    if isinstance(spec, dict) and set(spec) == {"p"}:
        return ProgramFactory()
    raise ValueError("malformed default factory")


def returned_inputs(tagged: list[Any], calls: list[str]) -> dict[int, str | int]:
    """Call index -> the shared input (or the earlier call) it returned as the very object
    (`f(xs) is xs`, `f() is g()`), as the harness saw it. A claim is kept only for an input that
    call or an earlier one received (which the program could have returned), or for an earlier
    call."""
    received: set[str] = set()
    returned: dict[int, str | int] = {}
    for i, (value, call) in enumerate(zip(tagged, calls, strict=False)):
        received |= set(compile(call, "<call>", "eval").co_names)
        if isinstance(value, dict) and set(value) == {"ref"} and isinstance(value["ref"], list):
            name = value["ref"][0]
            if (isinstance(name, str) and name in received) or (
                type(name) is int and 0 <= name < i
            ):
                returned[i] = name
    return returned


def _decode_bounded(tag: str, raw: Any) -> Any:
    """The tags whose decoding could run away on a hostile size (ranges, fractions, decimals) and
    numpy's scalars and arrays; ValueError for anything else."""
    if tag == "r" and isinstance(raw, list) and len(raw) == 3:
        value = range(*(int(str(x)[:41], 16) for x in raw))
        if max(len(str(x)) for x in raw) > 40 or len(value) > MAX_SIZE:  # sum() would never end
            raise ValueError("a returned range past the size limit")
        return value
    if tag == "fr" and isinstance(raw, list) and len(raw) == 2:
        parts = [str(x) for x in raw]
        if max(len(x) for x in parts) <= _MAX_HEX // 10:  # gcd is quadratic: smaller parts
            return fractions.Fraction(int(parts[0], 16), int(parts[1], 16))
    if tag == "dec" and isinstance(raw, str) and len(raw) < 10_000:
        value = decimal.Decimal(raw)
        if not value.is_finite() or abs(value.adjusted()) <= 10**5:  # int(1e999999999) hangs
            return value
    if tag == "ns" and isinstance(raw, list) and len(raw) == 2:  # np.True_ is not True
        value = _decode(raw[1])
        if str(raw[0]) not in _NUMPY_DTYPES or not isinstance(value, (bool, int, float, complex)):
            return value
        import numpy as np

        return np.dtype(str(raw[0])).type(value)
    if tag == "nd" and isinstance(raw, list) and len(raw) == 2:
        import numpy as np

        dtype = str(raw[0]) if str(raw[0]) in _NUMPY_DTYPES else None
        return np.array(_decode(raw[1]), dtype=dtype)
    raise ValueError(f"malformed value tag {tag!r} (or a value past the size limits)")
