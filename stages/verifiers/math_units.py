"""The closed list of units, currencies and angle marks that may follow (or, for currencies,
precede) a math answer. Anything else after an answer is extra words, and an answer with extra
words is no answer: "5 thousand", "5 dozen", "5 or more" and "5 apples" are never read as 5.
A unit is dropped from the value and kept by name, so "30 radians" does not answer "30°"."""

from __future__ import annotations

import re

_UNITS: dict[str, tuple[str, ...]] = {
    "deg": ("°", "deg", "degree", "degrees", "^\\circ", "^{\\circ}", "\\circ", "^\\degree"),
    "rad": ("rad", "rads", "radian", "radians"),
    "mm": ("mm", "millimeter", "millimeters", "millimetre", "millimetres"),
    "cm": ("cm", "centimeter", "centimeters", "centimetre", "centimetres"),
    "m": ("m", "meter", "meters", "metre", "metres"),
    "km": ("km", "kilometer", "kilometers", "kilometre", "kilometres"),
    "in": ("in", "inch", "inches"),
    "ft": ("ft", "foot", "feet"),
    "yd": ("yd", "yard", "yards"),
    "mi": ("mi", "mile", "miles", "statute mile", "statute miles"),
    "nmi": ("nmi", "nautical mile", "nautical miles"),
    "mm2": ("mm^2", "square millimeters", "sq mm"),
    "cm2": ("cm^2", "square centimeters", "square centimetres", "sq cm"),
    "m2": ("m^2", "square meters", "square metres", "sq m"),
    "km2": ("km^2", "square kilometers", "square kilometres", "sq km"),
    "in2": ("in^2", "square inches", "sq in"),
    "ft2": ("ft^2", "square feet", "square foot", "sq ft"),
    "yd2": ("yd^2", "square yards", "sq yd"),
    "mi2": ("mi^2", "square miles", "sq mi"),
    "cm3": ("cm^3", "cubic centimeters", "cubic centimetres", "cc"),
    "m3": ("m^3", "cubic meters", "cubic metres"),
    "in3": ("in^3", "cubic inches"),
    "ft3": ("ft^3", "cubic feet"),
    "units": ("unit", "units"),
    "units2": ("square units", "sq units", "units^2", "square unit"),
    "units3": ("cubic units", "units^3", "cubic unit"),
    "acre": ("acre", "acres"),
    "ha": ("ha", "hectare", "hectares"),
    "ml": ("ml", "mL", "milliliter", "milliliters", "millilitre", "millilitres"),
    "l": ("l", "L", "liter", "liters", "litre", "litres"),
    # a bare gallon, quart or pint is the US one; the imperial ones are other units (round 24)
    "gal": ("gal", "gallon", "gallons", "US gallon", "US gallons"),
    "impgal": ("imperial gallon", "imperial gallons", "UK gallon", "UK gallons"),
    "qt": ("qt", "quart", "quarts", "US quart", "US quarts"),
    "impqt": ("imperial quart", "imperial quarts", "UK quart", "UK quarts"),
    "pt": ("pint", "pints", "US pint", "US pints"),
    "imppt": ("imperial pint", "imperial pints", "UK pint", "UK pints"),
    "cup": ("cup", "cups"),
    "floz": ("fl oz", "fluid ounce", "fluid ounces"),
    "mg": ("mg", "milligram", "milligrams"),
    "g": ("g", "gram", "grams"),
    "kg": ("kg", "kilogram", "kilograms"),
    # a ton is short (US), long (UK) or metric: only a tonne is the metric one (round 24)
    "t": ("tonne", "tonnes", "metric ton", "metric tons"),
    "ton": ("ton", "tons"),
    "shortton": ("short ton", "short tons"),
    "longton": ("long ton", "long tons"),
    "lb": ("lb", "lbs", "pound", "pounds"),
    "oz": ("oz", "ounce", "ounces"),
    "ozt": ("ozt", "troy ounce", "troy ounces"),
    "ms": ("ms", "millisecond", "milliseconds"),
    "s": ("s", "sec", "secs", "second", "seconds"),
    "min": ("min", "mins", "minute", "minutes"),
    "h": ("h", "hr", "hrs", "hour", "hours"),
    "day": ("day", "days"),
    "week": ("week", "weeks", "wk", "wks"),
    "month": ("month", "months"),
    "year": ("year", "years", "yr", "yrs"),
    "mph": ("mph", "miles per hour", "mi/h", "miles/hour"),
    "kmh": ("km/h", "kph", "km/hr", "kilometers per hour", "kilometres per hour"),
    "m/s": ("m/s", "meters per second", "metres per second"),
    "ft/s": ("ft/s", "feet per second"),
    # compound units (round 18): an acceleration, densities
    "m/s2": ("m/s^2", "m/s^{2}", "meters per second squared", "metres per second squared"),
    "ft/s2": ("ft/s^2", "ft/s^{2}", "feet per second squared"),
    "kg/m3": ("kg/m^3", "kg/m^{3}", "kilograms per cubic meter", "kilograms per cubic metre"),
    "g/cm3": ("g/cm^3", "g/cm^{3}", "grams per cubic centimeter", "grams per cubic centimetre"),
    "degC": ("°C", "^\\circ C", "^{\\circ}C", "^\\circ\\text{C}", "degrees celsius", "celsius"),
    "degF": ("°F", "^\\circ F", "^{\\circ}F", "^\\circ\\text{F}", "degrees fahrenheit"),
    "K": ("K", "kelvin"),
    "J": ("J", "joule", "joules"),
    "W": ("W", "watt", "watts"),
    "N": ("N", "newton", "newtons"),
    "V": ("V", "volt", "volts"),
    "A": ("A", "amp", "amps", "ampere", "amperes"),
    "Hz": ("Hz", "hertz"),
    "Pa": ("Pa", "pascal", "pascals"),
    "B": ("byte", "bytes"),
    "KB": ("KB", "kB", "kilobyte", "kilobytes"),
    "MB": ("MB", "megabyte", "megabytes"),
    "GB": ("GB", "gigabyte", "gigabytes"),
    "bit": ("bit", "bits"),
    "usd": ("\\$", "$", "dollar", "dollars", "usd", "USD", "US$", "US dollars"),
    "cent": ("cent", "cents", "¢"),
    "eur": ("€", "euro", "euros", "EUR", "\\euro"),
    "gbp": ("£", "GBP", "\\pounds"),
    "jpy": ("yen", "JPY"),
    "yen or yuan": ("¥",),  # the sign of both the yen and the yuan
    "inr": ("₹", "rupee", "rupees", "Rs", "Rs.", "INR"),
    "cny": ("yuan", "RMB", "CNY", "元"),
}
_LISTED = frozenset(spelling for spellings in _UNITS.values() for spelling in spellings)
_CASE_SENSITIVE = {"m", "in", "s", "h", "g", "t", "l", "L", "K", "J", "W", "N", "V", "A", "B"}
_ALIASES: dict[str, str] = {}
for _name, _spellings in _UNITS.items():
    for _spelling in _spellings:
        key = _spelling if _spelling in _CASE_SENSITIVE else _spelling.lower()
        _ALIASES[key] = _name
_SPACING = re.compile(r"(?<!\\)\\[,;: ]|(?<=[\d}])~(?=[A-Za-z\\])")
_PREFIX_CURRENCY = re.compile(r"^\s*(\\\$|\$|€|£|¥|₹|US\$|USD|EUR|GBP|INR|Rs\.?)\s*(?=[-+.\d\\])")
_WRAPPED = re.compile(r"\\(?:text|textbf|textrm|textnormal|mathrm|mbox|mathit|operatorname)\s*\{")
# The tail after the value: a word or symbol run that could be a unit (checked against the list).
_TAIL = re.compile(  # after a number, a group or a spaced \\pi ("16\\pi square units", round 14)
    r"(?:(?<=[\d}).!])\s*|(?<=\\pi)\s+)(?P<unit>(?:\^\s*\{?\s*\\circ\s*\}?|°|\\\$|\$|€|£|¥|₹|¢|\\euro|\\pounds)"
    r"?\s*[A-Za-z][A-Za-z./^{}0-9 ]*|\^\s*\{?\s*\\circ\s*\}?|°|\\\$|\$|€|£|¥|₹|¢|\\euro|\\pounds)"
    r"\s*$"
)


def _lookup(text: str, wrapped: bool) -> str | None:
    spelling = " ".join(text.replace("{", "").replace("}", "").split())
    spelling = spelling.replace(" / ", "/").replace(" ^", "^").replace("^ ", "^").rstrip(".")
    if not wrapped and spelling.isalpha() and (len(spelling) == 1 or spelling == "in"):
        return None  # "5 m" or "3 in" unwrapped may be algebra (5m); "5 \\text{m}" is a unit
    if spelling in _ALIASES:
        return _ALIASES[spelling]
    if len(spelling) <= 3 and spelling not in _LISTED:
        return None  # a symbol's case is its meaning: "Mm" is not "mm", nor "Mg" "mg"
    return _ALIASES.get(spelling.lower()) if spelling.lower() not in _CASE_SENSITIVE else None


def _unwrap_text_commands(text: str) -> str:
    """\\text{ cm} and \\mathrm{m^2} around a unit are presentation."""
    out, pos = [], 0
    for m in _WRAPPED.finditer(text):
        close = text.find("}", m.end())
        if close < 0 or "{" in text[m.end() : close]:
            continue
        # inside the wrapper a "~" is a tie, a space: "\\mathrm{~cm}^{2}" (round 17)
        out += [text[pos : m.start()], " ", text[m.end() : close].replace("~", " "), " "]
        pos = close + 1
    return "".join(out) + text[pos:]


def split_unit(text: str, glued_units: bool = False) -> tuple[str, str | None]:
    """(the answer without its unit, the unit's name or None). A trailing word that is not on the
    list stays in the text, where the parser will refuse it. With `glued_units` (an answer to a
    reference without variables) a listed abbreviation glued to the number is its unit ("12kg")."""
    unit = None
    text = _SPACING.sub(" ", text)  # "5\\,\\text{cm}"
    prefix = _PREFIX_CURRENCY.match(text)
    if prefix:
        unit = _lookup(prefix.group(1), wrapped=False)
        text = text[prefix.end() :]
    wrapped = False
    if "\\text" in text or "\\math" in text or "\\mbox" in text or "\\operatorname" in text:
        unwrapped = _unwrap_text_commands(text)
        tail = _TAIL.search(unwrapped)
        if tail and _lookup(tail.group("unit"), wrapped=True) is not None:
            text, wrapped = unwrapped, True
    tail = _TAIL.search(text)
    if tail:
        found = _lookup(tail.group("unit"), wrapped)
        if found is not None and not wrapped and not glued_units and _variables(text, tail):
            found = None  # "2mg", "5m^2", "2\\pi hr": a product of variables as much as a unit
        if found is not None:
            if unit is not None and unit != found:
                return text, "conflict"  # "$5 euros"
            unit, text = found, text[: tail.start()].rstrip()
    return text, unit


# an abbreviation of one to three letters, with a power or not ("mg", "hr", "m^2", "cm^{3}")
_ABBREVIATION = re.compile(r"[A-Za-z]{1,3}(?:\s*\^\s*\{?\s*\d\s*\}?)?")


def _variables(text: str, tail: re.Match[str]) -> bool:
    """Whether the letters of an unwrapped unit abbreviation are as much a product of variables:
    written right against the number ("2mg", "6m^3"), one letter with a power ("5 m^2"), or after \\pi
    ("2\\pi hr"). Only a unit in \\text{}/\\mathrm{} or spelled as a word is a unit there."""
    unit = tail.group("unit").strip()
    if not _ABBREVIATION.fullmatch(unit):
        return False
    glued = not text[tail.start() : tail.start("unit")]
    one_letter_power = "^" in unit and not unit[1].isalpha()  # "5 m^2", never "24 cm^2"
    return glued or one_letter_power or text[: tail.start()].endswith("\\pi")


# "5K" is 5 kelvin or 5 thousand: only a reference in kelvin says which.
_ALSO_A_MAGNITUDE = frozenset({"K"})


def units_conflict(answer_unit: str | None, reference_unit: str | None) -> str | None:
    """Why the two units cannot name the same quantity, or None. An answer may add a unit the
    reference leaves out; it may not name another one (a percent sign counts as a unit: "%")."""
    if answer_unit == "conflict":
        return "two different units on one answer"
    if answer_unit in _ALSO_A_MAGNITUDE and reference_unit is None:
        return f"{answer_unit!r} after a number may be thousands as well as kelvin: no answer"
    if answer_unit is None or reference_unit is None or answer_unit == reference_unit:
        return None
    return f"the answer is in {answer_unit}, the reference in {reference_unit}"
