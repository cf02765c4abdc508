"""`re` as the trusted side offers it to the tests: Python's own `re`, whose semantics the tests
were written for (the `regex` module's `\\w` takes combining marks and refuses `²`, `½`; its sets
and flags differ too). A pattern or a string from the program may backtrack for ever, so every
match runs under a wall-clock alarm (REGEX_TIMEOUT_S: TimeoutError, the assert fails); `re` checks
for signals while it matches. The alarm is set only on the main thread (the trusted worker's);
elsewhere the worker's own time limit bounds it."""

from __future__ import annotations

import contextlib
import re
import signal
import threading
from collections.abc import Iterator
from typing import Any

from stages.verifiers.code_trusted_names import TrustedGap, TrustedNamespace

REGEX_TIMEOUT_S = 0.5
_CALLS = ("fullmatch", "match", "search", "findall", "finditer", "sub", "subn", "split")
_ATTRIBUTES = ("pattern", "flags", "groups", "groupindex")


def _expired(_signum: int, _frame: Any) -> None:
    raise TimeoutError(f"a regular expression ran past {REGEX_TIMEOUT_S} s")


_ARMED = [False]  # a match inside another's callback (`re.sub(p, lambda m: ...)`) keeps its alarm


@contextlib.contextmanager
def _deadline() -> Iterator[None]:
    if _ARMED[0] or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _expired)
    signal.setitimer(signal.ITIMER_REAL, REGEX_TIMEOUT_S)
    _ARMED[0] = True
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        _ARMED[0] = False


def _timed(method: Any, name: str) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        args = tuple(a._pattern if isinstance(a, TimedPattern) else a for a in args)
        with _deadline():
            found = method(*args, **kwargs)
            return iter(list(found)) if name == "finditer" else found  # matched under the alarm

    return call


class TimedPattern:
    """A compiled pattern whose matching runs under the alarm; what it does not offer is a
    TrustedGap (the test is unverifiable)."""

    def __init__(self, pattern: re.Pattern) -> None:
        self._pattern = pattern

    def __getattr__(self, name: str) -> Any:
        if name in _CALLS:
            return _timed(getattr(self._pattern, name), name)
        if name in _ATTRIBUTES:
            return getattr(self._pattern, name)
        raise TrustedGap(f"Pattern.{name} is not offered by the trusted evaluator")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TimedPattern) and self._pattern == other._pattern

    def __hash__(self) -> int:
        return hash(self._pattern)

    def __repr__(self) -> str:
        return repr(self._pattern)


def _compile(pattern: Any, flags: int = 0) -> TimedPattern:
    with _deadline():
        return TimedPattern(re.compile(pattern, flags))


def timed_re() -> TrustedNamespace:
    """`re` as the tests use it: Python's own, each match bounded by the alarm."""
    timed = {n: _timed(getattr(re, n), n) for n in _CALLS}
    flags = "I IGNORECASE M MULTILINE S DOTALL X VERBOSE A ASCII U UNICODE NOFLAG"
    names = {n: getattr(re, n) for n in flags.split()}
    return TrustedNamespace(
        **names, **timed, escape=re.escape, compile=_compile, error=re.error, Match=re.Match
    )
