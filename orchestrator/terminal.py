"""Text from the log (and from files a user gave) shown on a terminal as text.

Payloads hold model output, task text, file names and reasons written by code that quotes them:
none of it may drive the terminal. `plain` makes control characters visible (an ANSI escape
cannot recolour or clear the screen, a newline cannot forge a line of output) and escapes rich
markup (a `[/]` cannot crash the print, a `[detail]` cannot vanish as an unknown tag).
"""

from __future__ import annotations

import re
from typing import Any

from rich.markup import escape

# C0 and C1 controls except TAB, DEL, and the bidirectional overrides that reorder what follows.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\x1b": "\\x1b"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(value: Any) -> str:
    """`value` as text with control characters shown as escapes (for output without markup)."""
    return _UNSAFE.sub(_visible, str(value))


def plain(value: Any) -> str:
    """`value` as text safe to embed in a rich markup string: controls escaped, markup inert."""
    return escape(visible(value))
