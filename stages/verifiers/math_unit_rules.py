"""Units an answer adds that its reference does not name (red team round 20). `math_units` lets an
answer add a unit to a bare reference ("30 degrees" for 30); it may not where the reference says
what it measures otherwise:

- a reference that counts a noun ("18 apples") is not answered by a unit, a currency or a percent
  ("18 kg", "$18", "3 hours", "18%"): another quantity;
- a reference whose value holds pi is in radians: "pi/6 degrees" is a 57 times smaller angle (no
  conversion is made, so "30 degrees" for pi/6 is no answer either);
- "20 pounds" answers a reference in pounds sterling ("£20"): the word names both."""

from __future__ import annotations

import re

from stages.verifiers.math_nouns import reference_noun
from stages.verifiers.math_parse import Node

_ANGLES = frozenset({"deg", "rad"})
_POUNDS_WORD = re.compile(r"(?i)(?<![a-z])pounds?(?![a-z])")


def _holds_pi(node: object) -> bool:
    if isinstance(node, tuple):
        return node == ("const", "pi") or any(_holds_pi(part) for part in node[1:])
    if isinstance(node, list):
        return any(_holds_pi(part) for part in node)
    return False


def added_unit_problem(
    answer_unit: str | None, reference_unit: str | None, reference: str, reference_node: Node
) -> str | None:
    """Why a unit the answer adds to a reference with none names another quantity, or None."""
    if answer_unit is None or reference_unit is not None:
        return None
    noun = reference_noun(reference)
    if noun is not None:  # "18%" is no count of "18 apples" either
        return f"the answer is in {answer_unit}, the reference counts {noun!r}"
    if answer_unit == "%":
        return None
    if answer_unit == "deg" and _holds_pi(reference_node):
        return "the answer is in degrees, the reference (a multiple of pi) in radians"
    return None


def pounds_sterling(
    answer_text: str, answer_unit: str | None, reference_unit: str | None
) -> str | None:
    """The answer's unit read as `gbp` where it says "pounds" against a reference in £."""
    if answer_unit == "lb" and reference_unit == "gbp" and _POUNDS_WORD.search(answer_text):
        return "gbp"
    return answer_unit
