"""Built-in arithmetic (`a+b=`, `a-b=`, ...; see `stages.tasks.generators`): math's verifier and
calibration, tasks generated rather than read (a file given for it is read as any task file)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from stages.tasks.families.math import MathFamily
from stages.tasks.generators import generate_arithmetic
from stages.tasks.types import Task

_BARE_INTEGER = re.compile(r"-?\d{1,12}")


class ArithmeticFamily(MathFamily):
    name = "arithmetic"
    row_keys = None  # its tasks are generated; a math-shaped file is "math"
    file_format = False

    def stated_final(self, response: str, task: Task) -> float:
        """`format`: 1 when the response is one bare integer, the form its SFT data answers in."""
        return float(_BARE_INTEGER.fullmatch(response.strip()) is not None)

    def generate(self, params: Mapping[str, str]) -> list[Task]:
        n = params.get("n")
        return generate_arithmetic(
            int(params.get("difficulty", 2)), int(n) if n else None, int(params.get("seed", 0))
        )


ARITHMETIC = ArithmeticFamily()
