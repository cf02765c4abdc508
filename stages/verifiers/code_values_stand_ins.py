"""Stand-ins out here for what the program returned that has no plain value: one of its functions
(or classes, or callable objects), its defaultdict's own factory, the items its iterator yielded.
Nothing of the program runs out here; where the tests would need it to, the task is unverifiable."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from stages.verifiers.code_trusted_names import TrustedGap
from stages.verifiers.code_verdict_errors import PastDraws, Unverifiable


class ProgramFunction:
    """A function, class or callable object of the program: callable, never called out here.
    Equal (and hashing alike) just when it stands for one object of the sandbox (its id there,
    kept alive by the harness), as Python's `==` and `is` of functions are identity (round 20:
    `route('a') != route('b')` paid a router returning one function for both)."""

    def __init__(self, name: str, key: int | None = None) -> None:
        self.name, self.key = name, key

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProgramFunction):
            return NotImplemented
        return self is other or (self.key is not None and self.key == other.key)

    def __hash__(self) -> int:
        return hash(("program function", self.key if self.key is not None else id(self)))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{self.name} runs only in the sandbox")

    def __getattr__(self, name: str) -> Any:  # the function's own attributes stayed in there
        raise TrustedGap(f"{self.name}.{name} is not sent back from the sandbox")

    def __repr__(self) -> str:
        return f"<program function {self.name}>"


class ProgramFactory:
    """A defaultdict's factory of the program's own: never called in the sandbox (round 20: its
    side effect would show there only), so a missing key out here is unverifiable."""

    def __call__(self) -> Any:
        raise Unverifiable("a missing key of the program's defaultdict: its own factory never runs")

    def __repr__(self) -> str:  # Python shows the function's address: nothing to compare with
        raise Unverifiable("the repr of the program's default factory")


# The replays made while decoding one value (round 20): every generator the encoder drew, at any
# depth and in any container (a set, a deque, a dict key), is checked for over-draws.
_MADE: contextvars.ContextVar[list[Replay] | None] = contextvars.ContextVar("made", default=None)


@contextlib.contextmanager
def collecting_replays(into: list[Replay]) -> Iterator[None]:
    token = _MADE.set(into)
    try:
        yield
    finally:
        _MADE.reset(token)


class Replay:
    """The values a candidate's generator yielded; reading past those sent makes the task
    unverifiable. `drawn_as_python` says whether the reads out here drew it as far as the sandbox
    did (its every item, and its end where the sandbox met it), so no more of its code ran there
    than Python would have run."""

    def __init__(self, items: list[Any], more: bool) -> None:
        self.items, self.more, self.next, self.ended = items, more, 0, False
        made = _MADE.get()
        if made is not None:
            made.append(self)

    def __iter__(self) -> Replay:
        return self

    def __getattr__(self, name: str) -> Any:  # send, close, gi_frame: the generator's, in there
        raise TrustedGap(f"the program's iterator's {name} is not sent back from the sandbox")

    def __next__(self) -> Any:
        if self.next < len(self.items):
            self.next += 1
            return self.items[self.next - 1]
        if self.more:
            raise PastDraws("read past the generator values sent back")
        self.ended = True
        raise StopIteration

    def drawn_as_python(self) -> bool:
        return self.next == len(self.items) and (self.more or self.ended)
