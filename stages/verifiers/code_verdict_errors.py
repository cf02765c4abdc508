"""The verdict-shaping errors of the code verifier, in one module that imports none of the others
(so `code_trusted`, `code_values` and `code_values_order` can all raise or return them without
importing each other in a cycle)."""

from __future__ import annotations


class CandidateError:
    """A candidate call that raised or returned something not plain data: fails every assert."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __repr__(self) -> str:
        return f"<error {self.message[:60]}>"


class UnsupportedValue(CandidateError):
    """A value of the program's own class: Python would compare it, the trusted side cannot, so the
    check is unverifiable (never a failed right program)."""


class Unverifiable(Exception):  # noqa: N818 - a verdict, not a fault
    """The tests read something of the program's value that never came back from the sandbox:
    what Python would read there is not known, so the task is unverifiable."""


class PastDraws(Unverifiable):
    """A read of a program's iterator past what the sandbox drew of it (its first 10,000 items)."""
