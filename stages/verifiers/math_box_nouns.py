"""A count with its noun inside the box: "\\boxed{9 \\text{ eggs}}" states 9 eggs as "\\boxed{9} eggs"
does (round 21's m21-025). The noun must be a word problem's own, spoken of before the answer and
changing nothing about the number (`math_commit.named_count`: never "dozen", "more", "tens"); the
extraction then reads it as what the answer counts, against the reference's noun (`math_nouns`)."""

from __future__ import annotations

import re
from decimal import Decimal

from stages.verifiers.math_commit import named_count
from stages.verifiers.math_prefix import Final
from stages.verifiers.math_read import ReadError, read
from stages.verifiers.math_reference_words import SCALES

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


# A number and scale words alone ("1.2 \\text{ million}", "3 thousand"): the words multiply it
_SCALED = re.compile(
    r"(?P<value>-?\d+(?:\.\d+)?)\s*(?:\\(?:text|mathrm|textnormal|mbox)\s*\{\s*(?P<tex>[a-z ]+?)\s*\}"
    r"|(?P<plain>[a-z ]+?))\s*"
)


def scaled_in_box(final: Final) -> Final:
    """ "\\boxed{1.2 \\text{ million}}" states 1.2 * 1000000, as the reference's "1.2 million people"
    does (`math_reference_words`, round 22). Only exact scale words: "millions", "1.2 \\text{ million
    dollars}" or "mil" are left for the reader to refuse."""
    m = _SCALED.fullmatch(final.text.strip())
    words = (m.group("tex") or m.group("plain")).split() if m else []
    if not words or any(word not in SCALES for word in words):
        return final
    power = 1
    for word in words:  # "2 hundred thousand" is 200000: scales multiply
        power *= SCALES[word]
    # the product as a plain number, as the reference's number is compared (exact: decimal digits)
    text = format((Decimal(m.group("value")) * power).normalize(), "f")  # type: ignore[union-attr]
    return Final(final.start, final.end, text, final.kind, final.weak)
