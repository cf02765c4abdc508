"""The task families, one module each, and the one registry every consumer reads: config
validation (`data.task_family`), the loaders, the verifier registry (kind and reference),
calibration (stage 3) and `rlvr check`.

To add a family: write a module with a `TaskFamily` subclass (see `stages.tasks.types`) and add
one `register(...)` line below (a test or plug-in may call `register` itself)."""

from __future__ import annotations

from stages.tasks.families.arithmetic import ARITHMETIC
from stages.tasks.families.base import TaskFamily
from stages.tasks.families.code import CODE
from stages.tasks.families.fractions import FRACTIONS
from stages.tasks.families.math import MATH
from stages.tasks.families.qa import QA
from stages.tasks.families.reverse import REVERSE
from stages.tasks.families.rubric import RUBRIC

FAMILIES: dict[str, TaskFamily] = {}


def register(family: TaskFamily) -> TaskFamily:
    """Make `family` known by its name (replacing one of that name)."""
    FAMILIES[family.name] = family
    return family


def check_family(name: str) -> str:
    """`name` if a family of that name is registered, else a ValueError listing the known ones."""
    if name not in FAMILIES:
        raise ValueError(f"unknown task family {name!r}: known families are {', '.join(FAMILIES)}")
    return name


def family(name: str) -> TaskFamily:
    return FAMILIES[check_family(name)]


def verifier_kinds() -> list[str]:
    """Every verifier kind some family uses, in registration order."""
    return list(dict.fromkeys(f.verifier_kind for f in FAMILIES.values()))


def family_for_kind(kind: str) -> TaskFamily:
    """The first registered family checked by verifier `kind` (its `rlvr check` input shape)."""
    return next(f for f in FAMILIES.values() if f.verifier_kind == kind)


# Registration order is the order `rlvr check` lists verifier kinds in.
register(MATH)
register(CODE)
register(QA)
register(RUBRIC)
register(REVERSE)
register(ARITHMETIC)
register(FRACTIONS)

__all__ = [
    "FAMILIES",
    "TaskFamily",
    "check_family",
    "family",
    "family_for_kind",
    "register",
    "verifier_kinds",
]
