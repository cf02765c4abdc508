"""`re` as the trusted side offers it to the tests: run by the `regex` module, which can stop a
runaway match (a pattern or a string from the program may backtrack for ever)."""

from __future__ import annotations

import functools
import re
from types import SimpleNamespace
from typing import Any

REGEX_TIMEOUT_S = 0.5  # a pattern or a string from the program may backtrack for ever


class _TimedPattern:
    """A compiled pattern whose matching stops after REGEX_TIMEOUT_S (TimeoutError: a fail)."""

    def __init__(self, pattern: Any) -> None:
        self.pattern = pattern

    def __getattr__(self, name: str) -> Any:
        if name not in _REGEX_CALLS:
            raise AttributeError(name)
        return functools.partial(getattr(self.pattern, name), timeout=REGEX_TIMEOUT_S)


_REGEX_CALLS = ("fullmatch", "match", "search", "findall", "sub", "subn", "split")


def timed_re() -> SimpleNamespace:
    """`re` as the tests use it, run by the `regex` module, which can stop a runaway match."""
    import regex

    timed = {n: functools.partial(getattr(regex, n), timeout=REGEX_TIMEOUT_S) for n in _REGEX_CALLS}
    flags = "I IGNORECASE M MULTILINE S DOTALL X VERBOSE A ASCII"
    names = {n: getattr(re, n) for n in flags.split()}
    return SimpleNamespace(
        **names, escape=re.escape, compile=lambda p, f=0: _TimedPattern(regex.compile(p, f)),
        **timed,
    )  # fmt: skip
