"""What the trusted side offers by name, and what it means when it lacks one: an attribute the
trusted evaluator does not offer is its own gap, so the test cannot be checked (unverifiable),
never a failed assert (an AttributeError of a program's value still fails the assert)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any


class TrustedGap(AttributeError):
    """The trusted evaluator lacks a name the test uses (a module attribute, a pattern method)."""


class TrustedNamespace(SimpleNamespace):
    """A trusted module: reading a name it does not offer is a TrustedGap."""

    def __getattr__(self, name: str) -> Any:
        raise TrustedGap(f"{name} is not offered by the trusted evaluator")
