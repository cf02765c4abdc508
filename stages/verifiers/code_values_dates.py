"""date, datetime, time and timedelta values the sandbox sent back as their fields, rebuilt out
here (a part of `code_values`' decoding): ints only, a fixed-offset zone by its offset and name,
ValueError for anything malformed or out of range."""

from __future__ import annotations

import datetime
from typing import Any

DATES = frozenset(["td", "date", "time", "dt"])


def _ints(raw: Any, count: int) -> list[int]:
    """`count` ints, and a time zone last where there are more fields."""
    if not isinstance(raw, list) or len(raw) != count + (count > 3):
        raise ValueError("malformed date or time")
    if any(type(x) is not int for x in raw[:count]):
        raise ValueError("malformed date or time")
    return raw[:count]


def _zone(raw: Any) -> datetime.timezone | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 4:
        raise ValueError("malformed time zone")
    days, seconds, micros = _ints(raw[:3], 3)
    offset = datetime.timedelta(days, seconds, micros)
    plain = datetime.timezone(offset)  # UTC for a zero offset, as Python gives it
    return plain if raw[3:] == [plain.tzname(None)] else datetime.timezone(offset, str(raw[3])[:60])


def decode_dates(tag: str, raw: Any) -> Any:
    """date, datetime, time and timedelta values from their fields (ValueError out of range)."""
    if tag == "td":
        return datetime.timedelta(*_ints(raw, 3))
    if tag == "date":
        return datetime.date(*_ints(raw, 3))
    if tag == "time":
        *clock, fold = _ints(raw, 5)
        return datetime.time(*clock, tzinfo=_zone(raw[5]), fold=fold)
    *fields, fold = _ints(raw, 8)
    return datetime.datetime(*fields, tzinfo=_zone(raw[8]), fold=fold)
