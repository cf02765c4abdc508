"""One quantity in two units of the closed list: "500 cm" answers "5 m". A plain number is
converted exactly (Fraction factors, no floats) into the reference's unit and then compared as any
number is; units of different kinds, and units whose size is not one number, never convert."""

from __future__ import annotations

from fractions import Fraction

from stages.verifiers.math_parse import Node
from stages.verifiers.math_values import eval_rational, is_plain_number

_F = Fraction
# Each unit's size in its kind's base unit. Left out on purpose: ton (short, long or metric), month and
# year (their lengths vary), kilobytes (1000 or 1024), degrees/radians (an irrational factor) and
# temperatures (an offset, not a factor).
_LENGTH = {"mm": _F(1), "cm": _F(10), "m": _F(1000), "km": _F(10**6)}
_LENGTH |= {"in": _F("25.4"), "ft": _F("304.8"), "yd": _F("914.4"), "mi": _F("1609344")}
_LENGTH |= {"nmi": _F(1852000)}
_VOLUME = {"ml": _F(1), "cm3": _F(1), "l": _F(1000), "m3": _F(10**6)}
_VOLUME |= {"in3": _F("16.387064"), "ft3": _F("28316.846592"), "gal": _F("3785.411784")}
_VOLUME |= {"qt": _F("946.352946"), "pt": _F("473.176473"), "floz": _F("29.5735295625")}
_VOLUME |= {"impgal": _F("4546.09"), "impqt": _F("1136.5225"), "imppt": _F("568.26125")}
_KINDS: dict[str, dict[str, Fraction]] = {
    "length": _LENGTH,
    # in mm^2: 1 m^2 is 10^6 of them, a hectare (10^4 m^2) 10^10
    "area": {f"{name}2": size**2 for name, size in _LENGTH.items()} | {"ha": _F(10**10)},
    "volume": _VOLUME,
    "mass": {"mg": _F(1), "g": _F(1000), "kg": _F(10**6), "lb": _F("453592.37")}
    | {"oz": _F("28349.523125"), "ozt": _F("31103.4768"), "t": _F(10**9)}
    | {"shortton": _F("907184740"), "longton": _F("1016046908.8")},
    "time": {"ms": _F(1, 1000), "s": _F(1), "min": _F(60), "h": _F(3600), "day": _F(86400)}
    | {"week": _F(604800)},
    "speed": {"m/s": _F(1), "kmh": _F(1000, 3600), "mph": _F("1609.344") / 3600}
    | {"ft/s": _F("0.3048")},
    "acceleration": {"m/s2": _F(1), "ft/s2": _F("0.3048")},
    "density": {"kg/m3": _F(1), "g/cm3": _F(1000)},
    # a dollar is exactly 100 cents (no other currency converts: their rates vary)
    "money": {"cent": _F(1), "usd": _F(100)},
}
_SIZE = {unit: (kind, size) for kind, units in _KINDS.items() for unit, size in units.items()}
_SIZE["acre"] = ("area", _F("4046.8564224") * 10**6)  # m^2 in mm^2, as "ha" above


def factor(answer_unit: str | None, reference_unit: str | None) -> Fraction | None:
    """How many reference units one answer unit is, or None when they do not convert."""
    a, r = _SIZE.get(answer_unit or ""), _SIZE.get(reference_unit or "")
    if a is None or r is None or a[0] != r[0]:
        return None
    return a[1] / r[1]


def converted(answer: Node, by: Fraction) -> Node | None:
    """A plain-number answer scaled into the reference's unit, or None (not a plain number)."""
    value = eval_rational(answer) if is_plain_number(answer) and answer[0] != "pct" else None
    if value is None:
        return None
    value *= by
    if value.denominator == 1:
        return ("num", value, str(value.numerator))
    return ("div", ("num", _F(value.numerator), str(value.numerator)), _denominator(value))


def _denominator(value: Fraction) -> Node:
    return ("num", _F(value.denominator), str(value.denominator))
