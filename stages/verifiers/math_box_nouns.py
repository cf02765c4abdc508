"""A count with its noun inside the box: "\\boxed{9 \\text{ eggs}}" states 9 eggs as "\\boxed{9} eggs"
does (round 21's m21-025). The noun must be a word problem's own, spoken of before the answer and
changing nothing about the number (`math_commit.named_count`: never "dozen", "more", "tens"); the
extraction then reads it as what the answer counts, against the reference's noun (`math_nouns`)."""

from __future__ import annotations

import re

from stages.verifiers.math_commit import named_count
from stages.verifiers.math_prefix import Final
from stages.verifiers.math_read import ReadError, read

# A count with its noun inside the box ("\\boxed{9 \\text{ eggs}}"): a value, then one text command.
_BOXED_COUNT = re.compile(
    r"(?P<value>[^\\{}]*\d[^{}]{0,60}?)\s*\\(?:text|mathrm|textnormal|mbox)\s*\{\s*"
    r"(?P<words>[A-Za-z][A-Za-z -]{0,60}?)\s*\}\s*"
)


def counted_in_box(final: Final, body: str) -> Final:
    """ "\\boxed{9 \\text{ eggs}}" states 9 as "\\boxed{9} eggs" does: the noun must be a word
    problem's own, spoken of before (`named_count`), and is then checked as what the answer counts
    (round 21's m21-025); any other text is left for the reader to refuse."""
    m = _BOXED_COUNT.fullmatch(final.text.strip())
    if m is None or not named_count(m.group("words"), body[: final.start]):
        return final
    try:
        read(final.text)
        return final  # the grammar reads it whole ("5 \\text{ cm}"): a unit, never a noun
    except ReadError:
        pass
    try:
        if read(m.group("value")).unit is not None:
            return final  # "5 \\text{ cm} \\text{ apples}": a unit and a noun, one too many
    except ReadError:
        return final
    return Final(final.start, final.end, m.group("value").strip(), final.kind, final.weak)
