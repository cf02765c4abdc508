"""Text from the log (and from files a user gave) shown on a terminal as text.

Payloads hold model output, task text, file names and reasons written by code that quotes them:
none of it may drive the terminal. `plain` makes control characters visible (an ANSI escape
cannot recolour or clear the screen, a newline cannot forge a line of output) and escapes rich
markup (a `[/]` cannot crash the print, a `[detail]` cannot vanish as an unknown tag).
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape

_NAMED = {"\n": "\\n", "\r": "\\r", "\x1b": "\\x1b"}


def _escaped(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(value: Any) -> str:
    """`value` as text with every character Python does not call printable shown as an escape
    (for output without markup), TAB aside: controls (Cc), format characters (Cf: the bidi
    overrides, U+200B ZERO WIDTH SPACE, U+FEFF, which make k<U+200B>l look like kl), line and
    paragraph separators (Zl, Zp: U+2028 ends a line in some terminals and viewers), surrogates,
    unassigned and private-use code points, and spaces other than ' ' (red team round 18)."""
    text = str(value)
    if text.isprintable():  # the usual case, checked in C
        return text
    return "".join(c if c.isprintable() or c == "\t" else _escaped(c) for c in text)


def plain(value: Any) -> str:
    """`value` as text safe to embed in a rich markup string: controls escaped, markup inert."""
    return escape(visible(value))
