"""Which rows of `judge_address`'s rules can match a text at all (red team round 15): a row of
rules written in a script a text does not use is skipped. `script_gate` builds, from a row's
patterns, a class of the non-ASCII letters every match of them must hold."""

from __future__ import annotations

import re

_F = re.IGNORECASE | re.MULTILINE
# characters IGNORECASE matches with an ASCII letter (the dotted I, the dotless i, long s, Kelvin)
_FOLDS_TO_ASCII = frozenset("\u0130\u0131\u017f\u212a")


def script_gate(*patterns: str) -> re.Pattern[str] | None:
    """A class of the letters outside ASCII that `patterns` spell, where every match of each of
    them holds one (None where one may match without): a text it finds nothing in matches none of
    them, so a row of rules in a script the text does not use is skipped (red team round 15: the
    eleven non-Latin rows read every 50 KB English or German text in full, twice per view)."""
    parsed = [re._parser.parse(p, _F) for p in patterns]
    if not all(_needs(items) for items in parsed):
        return None
    letters: set[str] = set()
    for items in parsed:
        _letters_of(items, letters)
    return re.compile("[" + "".join(sorted(letters)) + "]", _F)


def _needs(items: object) -> bool:
    """Whether every match of the parsed `items` holds one of their non-ASCII literal letters."""
    return any(_item_needs(op, arg) for op, arg in items)


def _item_needs(op: object, arg: object) -> bool:
    constants = re._constants
    if op is constants.LITERAL:
        char = chr(arg)
        forms = (char, char.lower(), char.upper(), char.casefold())
        return char not in _FOLDS_TO_ASCII and not any(form.isascii() for form in forms)
    if op is constants.IN:  # a class of single letters, "(?:é|ñ)": each must be one
        return all(kind is constants.LITERAL and _item_needs(kind, value) for kind, value in arg)
    if op is constants.SUBPATTERN:
        return _needs(arg[-1])
    if op is constants.BRANCH:
        return all(_needs(branch) for branch in arg[1])
    if op in (constants.MAX_REPEAT, constants.MIN_REPEAT, constants.POSSESSIVE_REPEAT):
        low, _high, item = arg
        return low >= 1 and _needs(item)
    return False


def _letters_of(items: object, into: set[str]) -> None:
    """Every non-ASCII literal letter anywhere in the parsed `items`, escaped for a class."""
    constants = re._constants
    for op, arg in items:
        if op is constants.LITERAL and arg > 127:
            into.add(re.escape(chr(arg)))
        elif op is constants.IN:
            _letters_of(arg, into)
        elif op is constants.SUBPATTERN:
            _letters_of(arg[-1], into)
        elif op is constants.BRANCH:
            for branch in arg[1]:
                _letters_of(branch, into)
        elif op in (constants.MAX_REPEAT, constants.MIN_REPEAT, constants.POSSESSIVE_REPEAT):
            _letters_of(arg[2], into)
