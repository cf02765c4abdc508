"""Built-in arithmetic (`a+b=`, `a-b=`, ...; see `stages.tasks.generators`): math's verifier and
calibration, tasks generated rather than read (a file given for it is read as any task file)."""

from __future__ import annotations

from collections.abc import Mapping

from stages.tasks.families.math import MathFamily
from stages.tasks.generators import generate_arithmetic
from stages.tasks.types import Task


class ArithmeticFamily(MathFamily):
    name = "arithmetic"
    row_keys = None  # its tasks are generated; a math-shaped file is "math"
    file_format = False

    def generate(self, params: Mapping[str, str]) -> list[Task]:
        n = params.get("n")
        return generate_arithmetic(
            int(params.get("difficulty", 2)), int(n) if n else None, int(params.get("seed", 0))
        )


ARITHMETIC = ArithmeticFamily()
