"""The one unicode normalisation of math text, applied the same way to a response and to its
reference before anything else reads them: minus signs and dashes, vulgar fractions, superscripts
and subscripts, full-width and other non-ASCII digits, no-break, thin and zero-width spaces, math
symbols (×, ·, ÷, √, π, ∞, ≤, ≥, ≠), Cyrillic and Greek letters drawn like Latin ones (and every
other format character and look-alike letter, `math_confusables`), `×10^` and
the control characters a JSON string makes of
`\\frac` or `\\boxed` when its backslashes were not escaped. Linear in the text; ASCII text is
returned at once (apart from those control characters)."""

from __future__ import annotations

import re
import unicodedata

from stages.verifiers.math_confusables import drop_invisible, fold_lookalikes

_MINUS = dict.fromkeys(map(ord, "\u2212\u2012\u2013\u2010\u2011\ufe63\uff0d\u02d7"), "-")
_SPACES = dict.fromkeys(map(ord, "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"), " ")
_SPACES |= dict.fromkeys(map(ord, "\u2008\u2009\u200a\u202f\u205f\u3000\u1680"), " ")
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_SYMBOLS = {
    "×": " \\times ",
    "✕": " \\times ",
    "·": " \\cdot ",
    "⋅": " \\cdot ",
    "∙": " \\cdot ",
    "÷": " \\div ",
    "∗": "*",
    "π": "\\pi ",
    "∞": "\\infty ",
    "≤": " \\le ",
    "⩽": " \\le ",
    "≥": " \\ge ",
    "⩾": " \\ge ",
    "≠": " \\ne ",
    "≈": " \\approx ",
    "±": " \\pm ",
    "∪": " \\cup ",
    "∈": " \\in ",
    "≡": " \\equiv ",
    "≅": " \\cong ",
    "⁄": "/",
    "∕": "/",
    "。": ". ",
    "、": ", ",
    "“": '"',
    "”": '"',
    "„": '"',
    "‘": "'",
    "’": "'",
    "′": "'",
    "\u066b": ".",  # Arabic decimal separator: ٠٫٥ is 0.5
    "\u066c": ",",  # Arabic thousands separator
}
_SYMBOL_TABLE = {ord(k): v for k, v in _SYMBOLS.items()}
# Cyrillic and Greek letters drawn like Latin ones: "nоt" with a Cyrillic о is "not" to a reader,
# so it is "not" to every word list here too. Greek ν is no Latin v: it is \nu (`math_read`).
_HOMOGLYPHS = str.maketrans(
    "аеорсухіѕјһԁԛԝӏАВЕКМНОРСТХІЈЅΑΒΕΖΗΙΚΜΝΟΡΤΥΧο",
    "aeopcyxisjhdqwlABEKMHOPCTXIJSABEZHIKMNOPTYXo",
)


def _scripts(tag: str) -> dict[str, str]:
    """Every character that is one letter, digit or sign drawn raised (`<super>`) or lowered
    (`<sub>`), with that character: NFKC would put 2ˣ, aᵇ, x₁ on the baseline (2x, ab, x1)."""
    out = {}
    for code in range(0xA0, 0x1E000):
        parts = unicodedata.decomposition(chr(code)).split()
        if len(parts) == 2 and parts[0] == tag:
            out[chr(code)] = unicodedata.normalize("NFKC", chr(code))
    return out


_SUPER = _scripts("<super>") | dict(zip("⁺⁻⁼⁽⁾", "+-=()", strict=True))
_SUB = _scripts("<sub>") | dict(zip("₊₋₌₍₎", "+-=()", strict=True))
_SUPER_RUN = re.compile("[" + "".join(map(re.escape, _SUPER)) + "]+")
_SUB_RUN = re.compile("[" + "".join(map(re.escape, _SUB)) + "]+")
# "30º": the masculine ordinal sign is the degree sign of many keyboards, right after a number
_ORDINAL_DEGREE = re.compile(r"(?<=\d)[ ]?º")
# "5㎡": NFKC writes the squared and cubed unit signs with a baseline digit (m2, cm3)
_SQUARE_UNITS = {
    "㎟": "mm^2", "㎠": "cm^2", "㎡": "m^2", "㎢": "km^2",
    "㎣": "mm^3", "㎤": "cm^3", "㎥": "m^3", "㎦": "km^3",
}  # fmt: skip
_SQUARE_TABLE = {ord(k): v for k, v in _SQUARE_UNITS.items()}
_VULGAR = {
    "½": (1, 2),
    "⅓": (1, 3),
    "⅔": (2, 3),
    "¼": (1, 4),
    "¾": (3, 4),
    "⅕": (1, 5),
    "⅖": (2, 5),
    "⅗": (3, 5),
    "⅘": (4, 5),
    "⅙": (1, 6),
    "⅚": (5, 6),
    "⅐": (1, 7),
    "⅛": (1, 8),
    "⅜": (3, 8),
    "⅝": (5, 8),
    "⅞": (7, 8),
    "⅑": (1, 9),
    "⅒": (1, 10),
    "↉": (0, 3),
}
# "2½" is the mixed number 5/2, never 2 followed by a half; "2 ½" reads the same.
_VULGAR_RUN = re.compile(r"(\d*)[ ]?([" + "".join(_VULGAR) + "])")
_SQRT = re.compile(r"√\s*(\d+(?:\.\d+)?|[A-Za-z])?")
# JSON "\frac" is a form feed + "rac", "\boxed" a backspace + "oxed": put the backslash back.
_CONTROL_LATEX = re.compile(
    r"[\x07\x08\x0b\x0c](?=[A-Za-z])|\r(?=[a-z])|\t(?=(?:imes|ext|heta|frac|an)(?![a-z]))"
)
_CONTROL_NAMES = {
    "\x07": "\\a",
    "\x08": "\\b",
    "\x0b": "\\v",
    "\x0c": "\\f",
    "\r": "\\r",
    "\t": "\\t",
}
# 6.02 x 10^23: an "x" between a number and a power of ten is a times sign, not a variable.
_X_TIMES_TEN = re.compile(r"(?<=\d)\s*[xX]\s*(?=10\s*\^)")


# "2\\frac{1}{2}" is the mixed number 5/2, as "2½" is (and as Math-Verify's parser reads it); a
# whole number that is an exponent or subscript ("x^2\\frac12"), or an improper fraction, is not.
# TeX spacing renders as the plain space of "2 \\frac12" (round 27: 2\\,\\frac{1}{2}\\pi was 2 * 1/2 * pi),
# and a whole part in braces ({2}\\frac12) as the bare digits
_TEX_SPACE = (
    r"(?:\s|~|\\[,:;! ]"
    r"|\\(?:thinspace|medspace|thickspace|negthinspace|enspace|quad|qquad)(?![a-zA-Z]))*"
)
_LATEX_MIXED = re.compile(
    r"(?<![\d.^_}])(?:\{\s*(\d{1,9})\s*\}|(\d{1,9}))" + _TEX_SPACE + r"\\[dt]?frac\s*"
    r"(?:\{\s*(\d{1,9})\s*\}\s*\{\s*(\d{1,9})\s*\}|(\d)(\d))"
)
# the digits after a group separator (1\\,000\\,\\frac12, 1{,}000) are no whole part of their own
_DIGIT_GROUP_BEFORE = re.compile(r"\d(?:,|\{,\}|~|\\[,:;! ])$")


# a digit that a command or a power takes as its one-token argument ("\\sqrt2\\frac12" is
# sqrt(2)/2, "2^ 3\\frac12" is 2^3/2, "\\sqrt[3]2\\frac12"): no whole part of a mixed number
_TAKES_ARGUMENT = re.compile(
    r"(?:[\^_]|\\(?:sqrt|[dtc]?frac|[dt]?binom|overline|bar|hat|vec|tilde|dot|ddot|mathbf|mathrm"
    r"|boldsymbol|bm|text|textbf|operatorname)|\\sqrt\s*\[[^\[\]]{0,20}\])\s*$"
)


def _latex_mixed(m: re.Match[str]) -> str:
    before = max(0, m.start() - 40)
    group = len(m.group(2) or "") == 3 and _DIGIT_GROUP_BEFORE.search(m.string, before, m.start())
    if group or _TAKES_ARGUMENT.search(m.string, before, m.start()):
        return m.group()
    whole = int(m.group(1) or m.group(2))
    num, den = (
        (int(m.group(3)), int(m.group(4))) if m.group(3) else (int(m.group(5)), int(m.group(6)))
    )
    if not 0 < num < den:
        return m.group()
    return f"\\frac{{{whole * den + num}}}{{{den}}}"


def _vulgar(m: re.Match[str]) -> str:
    whole, (num, den) = m.group(1), _VULGAR[m.group(2)]
    start = max(0, m.start() - 40)
    if whole and (
        m.string[start : m.start()].endswith("√")
        or _TAKES_ARGUMENT.search(m.string, start, m.start())
    ):
        return f"{whole}\\frac{{{num}}}{{{den}}}"  # "√2½", "2^3½": a product, no mixed number
    if whole:
        num += int(whole) * den
    return f"\\frac{{{num}}}{{{den}}}"


def _sqrt(m: re.Match[str]) -> str:
    arg = m.group(1)
    return f"\\sqrt{{{arg}}}" if arg else "\\sqrt"


_OTHER_DIGIT = re.compile(r"(?![0-9])\d")
# a decimal whose last digit is written three times or more, then dots: a repeating decimal
_REPEATING_DOTS = re.compile(r"(?<![\d.])(\d{1,12}\.\d{0,12}?(\d)\2{2,12})[ \t]*(?:\.\.\.|\u2026)")


def _ascii_digits(text: str) -> str:
    """Every decimal digit of any script (Arabic-Indic, Devanagari, ...) as its ASCII digit."""
    return _OTHER_DIGIT.sub(lambda m: str(unicodedata.decimal(m.group())), text)


def repeating_dots(text: str) -> str:
    """0.333... as 0.333\\ldots, a repeating decimal (`math_normalise` reads it), so that no trim
    of a sentence's dots makes it the decimal 0.333."""
    return _REPEATING_DOTS.sub(lambda m: m.group(1) + "\\ldots", text)


def unify(text: str) -> str:
    """The same text with one spelling for each of the forms above."""
    if any(c in text for c in "\x07\x08\x0b\x0c\r\t"):
        text = _CONTROL_LATEX.sub(lambda m: _CONTROL_NAMES[m.group()], text)
    if not text.isascii():
        text = text.translate(_MINUS).translate(_SPACES).translate(_ZERO_WIDTH)
        text = drop_invisible(text)  # every format character, not only the zero-width ones
        text = _ORDINAL_DEGREE.sub("°", text)
        text = text.translate(_SQUARE_TABLE)
        text = _SUPER_RUN.sub(lambda m: "^{" + "".join(_SUPER[c] for c in m.group()) + "}", text)
        text = _SUB_RUN.sub(lambda m: "_{" + "".join(_SUB[c] for c in m.group()) + "}", text)
        text = _VULGAR_RUN.sub(_vulgar, text)
        text = _SQRT.sub(_sqrt, text)
        text = text.translate(_SYMBOL_TABLE).translate(_HOMOGLYPHS)
        # NFKC: full-width forms (１２, （, ％), ligatures, ℃ and the like; after the steps above,
        # because it would turn ² into 2 and ½ into 1⁄2.
        # and the symbols again after it: math-italic 𝜋 is π only once NFKC has run
        text = fold_lookalikes(unicodedata.normalize("NFKC", text).translate(_SYMBOL_TABLE))
        text = _ascii_digits(text).translate(_MINUS).translate(_SPACES)
    if "..." in text or "\u2026" in text:
        text = repeating_dots(text)
    if "frac" in text:
        text = _LATEX_MIXED.sub(_latex_mixed, text)
    if "x" in text or "X" in text:
        text = _X_TIMES_TEN.sub(lambda _: " \\times ", text)
    return text
