"""A trusted reference outside the grammar whose number is followed by words ("18 apples",
"5 \\text{ eggs}", "1.2 \\text{ million people}"). The words name what is counted, and the number
is the value; but a scale word right after the number multiplies it, whatever follows the scale
("1.2 million people" is 1,200,000 and "2 hundred" is 200, never 1.2 or 2: round 21's m21-001 and
m21-005). Words that would change the value in a way not read exactly here (a plural scale,
"thousands of", a fraction word, "and five", "point two") make the reference unparseable: a task
whose reference cannot be read is reported, never paid against a wrong value."""

from __future__ import annotations

import re
from fractions import Fraction

from stages.verifiers.math_parse import MathParseError
from stages.verifiers.math_read import Read, read

# The number, then words: one text command or plain words (a reference's own noun phrase).
_COUNTED = re.compile(
    r"(?P<value>.*?[\d}])\s*(?:\\(?:text|mathrm|textnormal)\s*\{\s*(?P<tex>[A-Za-z][A-Za-z ]*)\}"
    r"|(?P<plain>[A-Za-z][A-Za-z ]*))"
)
# Exact multipliers a reference may state in words after its number.
SCALES = {
    "dozen": 12,
    "hundred": 10**2,
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
}
# Words that change the value in a way not read exactly: plural or informal scales ("thousands",
# "grand", "lakh"), fractions ("halves", "tenths"), number words and arithmetic ("and five",
# "point two", "plus", "squared"). A reference holding one after its number is unparseable.
_NOT_EXACT = re.compile(
    r"(?i)^(?:(?:hundred|thousand|million|billion|trillion|dozen)s|tens|score|gross|grand|k"
    r"|lakhs?|crores?|bn|mn|mln|mil|mils|mio|bln|bil|tn|[kmbt]|halves|half|thirds|fourths|fifths|sixths|sevenths|eighths|ninths"
    r"|tenths|hundredths|thousandths|millionths|and|point|plus|minus|times|over|squared|cubed"
    r"|percent|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen"
    r"|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty"
    r"|seventy|eighty|ninety|fold|[a-z]+fold)$"
)


def counted_reference(text: str) -> Read | None:
    """The value of a reference written as a number and words ("18 apples" is 18, "1.2 \\text{
    million people}" is 1200000), or None for another form; raises MathParseError where a word
    after the number changes the value in a way not read exactly ("thousands of people")."""
    counted = _COUNTED.fullmatch(text.strip())
    if counted is None:
        return None
    value = read(counted.group("value"))
    words = (counted.group("tex") or counted.group("plain")).lower().split()
    power = 1
    while words and words[0] in SCALES:  # "2 hundred thousand" is 200000: scales multiply
        power *= SCALES[words.pop(0)]
    unread = [w for w in words if w in SCALES or _NOT_EXACT.match(w)]
    if unread:
        raise MathParseError(
            f"the reference's word {unread[0]!r} after its number changes its value"
        )
    if power == 1:
        return value
    # "1.2 \\text{ million}" is 1.2 * 1000000, a plain number as the product is (round 15); a
    # unit after the scale is the value's ("2.5 \\text{ thousand km}" is 2500 km)
    unit = value.unit or _unit_of(counted.group("value"), words)
    scale = ("num", Fraction(power), str(power))
    return Read(("mul", [value.node, scale]), unit)


def _unit_of(value: str, words: list[str]) -> str | None:
    """The unit the words after a reference's scale name, if the grammar reads them as one."""
    if not words:
        return None
    try:
        return read(f"{value} {' '.join(words)}").unit
    except MathParseError:
        return None
