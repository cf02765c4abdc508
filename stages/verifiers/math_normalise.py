"""Normalising an extracted math answer before parsing: the presentation layer of LaTeX (dollar
signs, spacing commands, thousands separators, relation commands) is turned into the plain tokens of
the answer grammar in `math_parse`, and a unit from the closed list (`math_units`) is split off.
Every pattern is bounded and linear."""

from __future__ import annotations

import re

from stages.verifiers.math_tokens import FUNCS
from stages.verifiers.math_tree import MathParseError
from stages.verifiers.math_units import split_unit

# the dot right after \left, \right or a \big.. is a null delimiter (\left.5\right. is 5), dropped
# with its command, never left behind as a decimal point (.5)
_DROP = re.compile(
    r"(?<!\\)\\(?:(?:left|right|[bB]igg?[lrm]?)(?![a-zA-Z])(?:\s*\.)?"
    r"|(?:displaystyle|!|,|;|:|quad|qquad)(?![a-zA-Z]))|(?<!\\)\\ "
)
_TEXT = re.compile(r"\\(?:text|textbf|textnormal|mathrm|mathbf|operatorname|mbox)\s*\{([^{}]*)\}")
_ONLY_TEXT = re.compile(r"^\\(?:text|textbf|textnormal|mathrm|mbox)\s*\{\s*\(?([^{}()]*?)\)?\s*\}$")
_RELATIONS = {
    "\\leq": "<=",
    "\\le": "<=",
    "\\leqslant": "<=",
    "\\geq": ">=",
    "\\ge": ">=",
    "\\geqslant": ">=",
    "\\lt": "<",
    "\\gt": ">",
    "\\neq": "!=",
    "\\ne": "!=",
}
_RELATION_CMD = re.compile(r"\\(?:leqslant|geqslant|leq|geq|le|ge|lt|gt|neq|ne)(?![a-zA-Z])")
_PERCENT_WORD = re.compile(r"(?<=[\d}])\s*(?:percentage|per cent|percent|pct)\b|(?<=[\d}])\s+%")
_AND = re.compile(r"\s*,?\s*\band\b\s*")
_SUBSCRIPT = re.compile(r"_\{([A-Za-z0-9]{1,8})\}")
_ELLIPSIS_END = re.compile(r"(?:\.\.\.|\u2026|\\[lcv]?dots(?![a-zA-Z]))\s*\.?$")
_QUAD = re.compile(r"\\q?quad")
_BARE_NAME = re.compile(r"^\s*[A-Za-z]\s*=?\s*$")
_DECIMAL_COMMA = re.compile(r"^-?(?:\d+,\d{2}|0,\d+|\d+,\d{4,})$")
_THOUSANDS_LATEX = re.compile(r"(?<=\d)\s*(?:\{\s*,\s*\}|,\\!\s*)(?=\d{3})")
_DOUBLE_BACKSLASH_CMD = re.compile(r"(?<!\\)\\\\(?=[a-zA-Z])")
_BEGIN = re.compile(r"(?<!\\)\\begin\s*\{")
# Inside a matrix, \\ before letters is a row break (x\\y), unless the letters are a command the
# grammar reads (a doubled backslash where one was meant: -\\frac{7}{4})
_DOUBLE_BACKSLASH_KNOWN = re.compile(
    r"(?<!\\)\\\\(?=(?:[dtc]?frac|sqrt|pi|cdot|times|text|mathrm|infty|end|ln|log|sin|cos|tan)"
    r"(?![a-zA-Z]))"
)
_THOUSANDS = re.compile(r"^-?\d{1,3}(,\d{3})+(\.\d+)?$")
_DELIMITERS = re.compile(r"^(?:\\\(|\\\[)\s*|\s*(?:\\\)|\\\])$")
_SPACED_THOUSANDS = re.compile(r"^-?\d{1,3}(?: \d{3})+(?:\.\d+)?$")
# a space wider than the thin one between two digits ("7\\qquad500", "12\\;345") separates two items;
# only a thin space, a tie (1~000, round 9) or a unicode space between groups of three is a
# thousands separator
_WIDE_GAP = re.compile(
    r"\d\s*(?:\\q?quad(?![a-zA-Z])|\\(?:en|thick|med)space(?![a-zA-Z])|\\hspace\*?\s*\{[^{}]*\}"
    r"|\\[ :;>])\s*(?:\\[,;:!> ]\s*|~\s*)*\d"
)
# "6xyz", "4abc", "-3xyz": three or four letters right against a number, no function's name, are
# its variables (a monomial), never a counted noun ("6 abc") nor words inside the expression
_GLUED_LETTERS = re.compile(r"(?<![\w.\\])(\d+)([A-Za-z]{3,4})(?![\w({\\])")
_PLAIN_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
# TeX's "{1 \over 2}" is \frac{1}{2}; a leading "\frac{-2}{3}" is -\frac{2}{3}
_OVER = re.compile(r"\{\s*([^{}\\]{1,40}?)\s*\\over(?![a-zA-Z])\s*([^{}\\]{1,40}?)\s*\}")
# (never before a power: \frac{-1}{2}^{2} is 1/4, so the sign stays inside what is squared)
_NEGATIVE_NUMERATOR = re.compile(
    r"(^|[(,=]\s*)\\frac\s*\{\s*-\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}(?!\s*\^)"
)
_NUMBER_NAMES = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    "twenty",
)  # fmt: skip
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(_NUMBER_NAMES)}
_TENS = {w: 10 * i for i, w in enumerate(("twenty", "thirty", "forty", "fifty", "sixty", "seventy",
                                            "eighty", "ninety"), start=2)}  # fmt: skip
# "twenty-one", "forty two", "ninety": a tens word and at most one units word (21..99)
_COMPOUND_NUMBER = re.compile(r"^([a-z]{5,7})(?:[- ]([a-z]{3,5}))?$")


def number_word(text: str) -> str | None:
    """The whole answer as one number in words (zero to ninety-nine), or None."""
    word = text.strip().lower()
    if word in _NUMBER_WORDS:
        return _NUMBER_WORDS[word]
    m = _COMPOUND_NUMBER.match(word)
    if not m or m[1] not in _TENS:
        return None
    units = int(_NUMBER_WORDS.get(m[2], "0")) if m[2] else 0
    if m[2] and not 1 <= units <= 9:  # "twenty-zero", "thirty-ten" are no numbers
        return None
    return str(_TENS[m[1]] + units)


# Other spellings of values the grammar reads: the empty set, the reals, a repeating decimal
# (0.\overline{3} is exactly 1/3), "negative 5", "1~000" (a tie as a thousands space), \mathrm{5}, a
# residue's modulus after it ("5 \pmod{7}" is 5).
_EMPTY_SET = re.compile(r"\\(?:emptyset|varnothing)(?![a-zA-Z])|\\\{\s*\\\}")
_REALS = re.compile(r"^\s*\\mathbb\s*\{?\s*R\s*\}?\s*$")
_REPEATING = re.compile(r"(?<![\d.])(-?)(\d{1,12})\.(\d{0,12})\\overline\s*\{\s*(\d{1,12})\s*\}")
# 0.\dot{3}, 0.\dot{1}4285\dot{7} (dots over a cycle's first and last digit); 0.1666\ldots, a
# last digit written three times or more before the dots, repeats that digit
_DOTTED = re.compile(
    r"(?<![\d.])(-?)(\d{1,12})\.(\d{0,12})\\dot\s*\{?\s*(\d)\s*\}?(?:(\d{0,10})\\dot\s*\{?\s*(\d)\s*\}?)?"
)
_TRAILING_DOTS = re.compile(
    r"(?<![\d.])(-?)(\d{1,12})\.(\d{0,12}?)(\d)\4{2,12}[ \t]*(?:\\[lc]?dots|\.\.\.|\u2026)(?![\w])"
)
_NEGATIVE_WORD = re.compile(
    r"^\s*(?:negative|minus)\s+(?=\d|[a-z]+(?:[- ][a-z]+)?\s*$)", re.IGNORECASE
)
_TIE_THOUSANDS = re.compile(r"(?<=\d)~(?=\d{3}(?!\d))")
_ROMAN_NUMBER = re.compile(r"^\\mathrm\s*\{\s*(-?\d+(?:\.\d+)?)\s*\}$")
# "5 \pmod{7}": the modulus is kept as the answer's unit ("mod 7"), so "5 \pmod{8}" conflicts.
# A bare \bmod is LaTeX's binary operator (17 \bmod 5 is 2), never a note: it is left to the parser,
# which refuses it; only its bracketed form (\bmod 7) is the note \pmod{7}.
_MODULUS = re.compile(r"\s*(?:\\pmod\s*\{?\s*(\d{1,12})\s*\}?|\(\s*\\bmod\s*(\d{1,12})\s*\))\s*$")


# A numeral in another base, the whole answer: "101_2", "204_{5}", "1A_{16}" (its digits valid in
# it) is compared as written, never as a value: "5" does not answer "101_2" (the base is asked)
_BASE_NUMERAL = re.compile(
    r"^\s*([0-9A-Za-z]{1,40})_\{?\s*\(?\s*(\d{1,2})\s*\)?\s*\}?\s*$"  # 101_2, 101_{(2)}, B8_{12}
)
# \langle 1, 2\rangle, a vector of two or more components, is the tuple (1, 2); \langle 3\rangle
# (a group's generator) and a mismatched [1, 2\rangle are not read
_ANGLED = re.compile(
    r"\\langle((?:(?!\\[lr]angle)[^\n]){1,400}?,(?:(?!\\[lr]angle)[^\n]){1,400}?)\\rangle"
)


def _base_numeral(s: str) -> str | None:
    m = _BASE_NUMERAL.match(s)
    if not m or not 2 <= int(m[2]) <= 36 or not any(c.isdigit() for c in m[1]):
        return None  # "a_12" is a sequence's term
    try:
        int(m[1], int(m[2]))
    except ValueError:
        return None
    return f"\\text{{{m[1].upper()} in base {int(m[2])}}}"


# A geometric object named by its points, the whole answer: \angle ABC, \overline{AB},
# \triangle ABC are compared as their names ("angle abc"), never as products of letters.
_GEOMETRY = re.compile(
    r"^\s*\\(angle|measuredangle|overline|overarc|arc|triangle)\s*(?:\{\s*([A-Z]{1,4})\s*\}|([A-Z]{1,4}))\s*$"
)


def _spellings(s: str) -> str:
    if _REALS.match(s):
        return "(-oo, oo)"
    shape = _GEOMETRY.match(s) if "\\" in s else None
    if shape:
        return "\\text{" + shape[1] + " " + (shape[2] or shape[3]) + "}"
    numeral = _base_numeral(s) if "_" in s else None
    if numeral:
        return numeral
    s = _EMPTY_SET.sub("\\{\\}", s)
    s = _REPEATING.sub(_repeating, s)
    if "dot" in s:
        s = _DOTTED.sub(lambda m: _cycle(m[1], m[2], m[3], m[4] + (m[5] or "") + (m[6] or "")), s)
    if "dots" in s or "..." in s or "\u2026" in s:
        s = _TRAILING_DOTS.sub(lambda m: _cycle(m[1], m[2], m[3], m[4]), s)
    if "angle" in s:
        s = _ANGLED.sub(lambda m: "(" + m.group(1) + ")", s)
    s = _TIE_THOUSANDS.sub("", s)
    s = _ROMAN_NUMBER.sub(lambda m: m.group(1), s)
    negative = _NEGATIVE_WORD.match(s)
    if negative:
        rest = s[negative.end() :].strip()
        return "-" + (number_word(rest) or rest)
    return s


def _repeating(m: re.Match[str]) -> str:
    return _cycle(*m.groups())


def _cycle(sign: str, whole: str, fixed: str, cycle: str) -> str:
    """0.1\\overline{6} as the fraction it is exactly: (016 - 01) / 90 = 1/6."""
    all_digits, head = int(whole + fixed + cycle), int(whole + fixed)
    den = (10 ** len(cycle) - 1) * 10 ** len(fixed)
    return f"{sign}\\frac{{{all_digits - head}}}{{{den}}}"


# Bold and underline around an answer are presentation, as \\mathbf is: \\boldsymbol{6} is 6
_FONT = re.compile(r"\\(?:boldsymbol|bm|pmb|underline)\s*\{")
_MAX_FONTS = 32


def _unwrap_fonts(s: str) -> str:
    """Each font wrapper replaced by its braced argument (matched braces; at most `_MAX_FONTS`)."""
    for _ in range(_MAX_FONTS):
        m = _FONT.search(s)
        if m is None:
            return s
        depth, end = 1, m.end()
        while end < len(s) and depth:
            depth += {"{": 1, "}": -1}.get(s[end], 0) if s[end - 1] != "\\" else 0
            end += 1
        if depth:
            return s  # unbalanced: left for the parser to refuse
        s = s[: m.start()] + "{" + s[m.end() : end - 1] + "}" + s[end:]
    return s


_OVER_CMD = re.compile(r"\\over(?![a-zA-Z])")
_NOT_ONE_SIDE = re.compile(
    r"[=<>,;]|\\(?:[lg]e|[lg]eq|ne|neq|approx|pm|mp|quad|qquad|text)(?![a-zA-Z])"
)


def _monomial(m: re.Match[str]) -> str:
    letters = m.group(2)
    if letters.lower() in FUNCS or "pi" in letters or "oo" in letters:
        return m.group()
    return m.group(1) + " " + " ".join(letters)


def _top_over(s: str) -> str:
    """TeX's "1 \\over 2" at the top of the answer divides all of it: \\frac{1}{2}. One \\over
    only, outside every brace, between two sides that are no relation, list or text."""
    found = list(_OVER_CMD.finditer(s))
    if len(found) != 1:
        return s
    m = found[0]
    left, right = s[: m.start()].strip(), s[m.end() :].strip()
    if not left or not right or left.count("{") != left.count("}"):
        return s
    if _NOT_ONE_SIDE.search(left) or _NOT_ONE_SIDE.search(right):
        return s
    return "\\frac{" + left + "}{" + right + "}"


def normalise(text: str) -> str:
    """Strip presentation (dollar signs, spacing, units, degree marks) from an extracted answer."""
    return normalise_answer(text)[0]


# one spelling of the same thing, and the operators as the grammar writes them
_SAME_COMMANDS = (
    ("\\$", ""),
    ("\\%", "%"),
    ("\\dfrac", "\\frac"),
    ("\\tfrac", "\\frac"),
    ("\\cfrac", "\\frac"),
)
_OPERATORS = (("\\cdot", "*"), ("\\times", "*"), ("\\div", "/"), ("\\infty", "oo"))


def _replaced(s: str, pairs: tuple[tuple[str, str], ...]) -> str:
    for old, new in pairs:
        s = s.replace(old, new)
    return s


def _glued(s: str, end: int) -> bool:
    """A letter or digit right after a braced subscript's closing brace."""
    return end < len(s) and s[end].isalnum()


def _decimal_comma(s: str, allowed: bool) -> str:
    """ "1000,99", "0,111" with a decimal comma, not a list or thousands; where it is not `allowed`
    ("The roots are 2,50": two values or one? round 27) it is refused."""
    if not _DECIMAL_COMMA.match(s):
        return s
    if not allowed:
        raise MathParseError(f"{s!r}: a decimal comma or a list of two values, unsure")
    return s.replace(",", ".")


def normalise_answer(
    text: str, glued_units: bool = False, decimal_comma: bool = True
) -> tuple[str, str | None]:
    """(the answer in the parser's tokens, its unit's name or None); `glued_units`: `split_unit`'s;
    `decimal_comma`: whether "2,50" may be read as 2.5 (else it is refused, never a list)."""
    s = _DELIMITERS.sub("", text.strip()).strip().strip("$").strip()
    wide = _WIDE_GAP.search(s) is not None
    if not _BEGIN.search(s):
        s = _DOUBLE_BACKSLASH_CMD.sub(lambda m: "\\", s)
    else:  # inside \begin{pmatrix}x\\y, \\ before a letter is a row break
        s = _DOUBLE_BACKSLASH_KNOWN.sub(lambda m: "\\", s)
    s = _THOUSANDS_LATEX.sub(",", s)  # 14{,}916 and 11,\!111 are MATH's thousands separators
    if "\\b" in s or "\\pmb" in s or "\\underline" in s:
        s = _unwrap_fonts(s)
    s = _spellings(s)
    s = number_word(s) or s  # "Answer: five", "forty-two": number words, the whole answer
    only_text = _ONLY_TEXT.match(s)
    bold = s.startswith(("\\textbf", "\\mathbf"))
    if only_text and bold and _PLAIN_NUMBER.match(only_text.group(1).strip()):
        # "\\textbf{45}" is 45 in bold; "\\text{13}" stays text (Math-Verify: it is not 13)
        s = only_text.group(1).strip()
    elif only_text:
        return "\\text{" + only_text.group(1).strip() + "}", None
    approx = s.find("\\approx")
    if approx > 0:  # "x = 1/3 \approx 0.33": the exact value is the answer; "x \approx 11": 11
        before = s[:approx]
        s = s[approx + len("\\approx") :] if _BARE_NAME.match(before) else before
    modulus = _MODULUS.search(s)
    if modulus:
        s = s[: modulus.start()]
    s, unit = split_unit(s, glued_units)
    if modulus:
        unit = "mod " + next(g for g in modulus.groups() if g) if unit is None else "conflict"
    s = _decimal_comma(s, decimal_comma)
    s = _top_over(_OVER.sub(lambda m: "\\frac{" + m.group(1) + "}{" + m.group(2) + "}", s))
    s = _replaced(s, _SAME_COMMANDS)
    s = _NEGATIVE_NUMERATOR.sub(
        lambda m: m.group(1) + "-\\frac{" + m.group(2) + "}{" + m.group(3) + "}", s
    )
    s = _GLUED_LETTERS.sub(_monomial, s)
    s = _QUAD.sub(" ", s)  # "\quadx_2" is how some references separate answers
    s = _RELATION_CMD.sub(lambda m: " " + _RELATIONS[m.group()] + " ", s)
    # a braced subscript ends at its brace: a_{1}2 is a_1 times 2, x_{1}x_{2} a product (no a_12)
    s = _SUBSCRIPT.sub(lambda m: "_" + m.group(1) + " " * _glued(s, m.end()), s)
    s = _DROP.sub(" ", s)
    # \text{cm} after a number is a unit; \text{...} alone may be the answer's only content.
    s = _TEXT.sub(lambda m: " " + m.group(1) + " ", s)
    s = _replaced(s, _OPERATORS)
    s = _PERCENT_WORD.sub("%", s)
    s = _AND.sub(", ", s).strip(" ,")
    s = s.strip()
    # "3.14..." and "1, 2, 3, ..." go on (digits, terms): no exact decimal or finite list; left
    # whole for the parser to refuse, where a sentence's full stop is trimmed
    s = s if _ELLIPSIS_END.search(s) else s.rstrip(".").strip()
    if _THOUSANDS.match(s) or (
        _SPACED_THOUSANDS.match(s) and not wide
    ):  # 12,000 and 12 000 (a thin space)
        s = s.replace(",", "").replace(" ", "")
    return s.strip(), unit
