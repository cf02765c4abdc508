"""Python's string literals in model text read as a literal-reading judge reads them: the
fence's detectors match on this form (never what is sent)."""

from __future__ import annotations

import ast
import json
import re
import unicodedata

# Python's string literals as a literal-reading judge evaluates them (red team round 4): adjacent
# literals concatenate (`'gra' 'des'`), parentheses group (`('grades')`), and escapes decode
# (`\x61`, `\141`, `\U00000061`, `\N{LATIN SMALL LETTER A}`). A literal opens after a non-word
# character only, so a contraction's apostrophe (`don't`) never starts one.
_PY_STRING = (
    r"""(?<!\w)(?:[rRbBuU]|[bB][rR]|[rR][bB])?(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""
)
_PY_LITERALS = re.compile(rf"\(\s*(?:{_PY_STRING}\s*)+\)|(?:{_PY_STRING}[ \t]*)+")
_PY_ONE = re.compile(_PY_STRING)
# a word, or a JSON string literal_form has already made, in parentheses: `((True))`, `(("grades"))`
_PARENTHESISED_WORD = re.compile(r"\(\s*((?:\"(?:[^\"\\\n]|\\.)*\")|[\w.+-]+)\s*\)")
_MAX_PAREN_DEPTH = 16  # Python accepts any depth; a judge reading deeper than this is not modelled
_PY_ESCAPE = re.compile(
    r"\\(?:x[0-9a-fA-F]{2}|U[0-9a-fA-F]{8}|N\{[A-Za-z0-9 -]{1,88}\}|[0-7]{1,3})"
)


# Escapes Python reads in a str literal, and in a bytes literal (no \N, \u, \U there).
_STR_ESCAPES = frozenset("\n\\'\"abfnrtv01234567xNuU")
_BYTES_ESCAPES = _STR_ESCAPES - frozenset("NuU")
_ANY_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def _unknown_escapes_doubled(literal: str) -> str:
    """Python keeps the backslash of an unknown escape (`'\\<'` is two characters) but warns
    (DeprecationWarning, SyntaxWarning from 3.12) at every evaluation of model text; doubling that
    backslash reads the same value without the warning (catch_warnings is not thread-safe)."""
    prefix = literal[: len(literal) - len(literal.lstrip("rRbBuU"))].lower()
    if "r" in prefix:
        return literal
    known = _BYTES_ESCAPES if "b" in prefix else _STR_ESCAPES
    return _ANY_ESCAPE.sub(
        lambda m: m.group() if m.group(1) in known else "\\" + m.group(), literal
    )


def _decoded(literal: str) -> str:
    try:
        value = ast.literal_eval(_unknown_escapes_doubled(literal))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return literal.strip("'\"")
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)


def _escape(match: re.Match[str]) -> str:
    body = match.group()[1:]
    try:
        if body[0] == "N":
            return unicodedata.lookup(body[2:-1])
        return chr(int(body[1:], 16) if body[0] in "xU" else int(body, 8))
    except (KeyError, ValueError):
        return match.group()


def literal_form(text: str) -> str:
    """`text` with every run of Python string literals replaced by the one JSON string it
    evaluates to, parentheses around a single value dropped, and Python escapes outside strings
    decoded: `{('gra' 'des'): [{'p\\x61ssed': (True)}]}` reads `{"grades": [{"passed": True}]}`."""
    text = _PY_LITERALS.sub(
        lambda m: json.dumps("".join(_decoded(one.group()) for one in _PY_ONE.finditer(m.group()))),
        text,
    )
    for _ in range(_MAX_PAREN_DEPTH):  # `(('grades'))`: one layer of parentheses a pass
        text, dropped = _PARENTHESISED_WORD.subn(r"\1", text)
        if not dropped:
            break
    return _PY_ESCAPE.sub(_escape, text)
