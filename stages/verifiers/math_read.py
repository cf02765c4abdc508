"""Reading one answer text: the unicode normalisation, the presentation layer and the closed unit
list, then the whitelist grammar, which must consume the text whole. The same reading serves a
response's answer and a task's reference."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from stages.verifiers.math_compare import canonical, final_side, is_assignment
from stages.verifiers.math_functions import GREEK
from stages.verifiers.math_normalise import normalise_answer
from stages.verifiers.math_parse import MathParseError, Node, parse_answer
from stages.verifiers.math_unicode import unify


def _greek_letter(name: str) -> str:
    case = "CAPITAL" if name[0].isupper() else "SMALL"
    return unicodedata.lookup(f"GREEK {case} LETTER {name.upper().replace('LAMBDA', 'LAMDA')}")


_GREEK_LETTERS = str.maketrans(
    {_greek_letter(name): f"\\{name} " for name in GREEK if name[:3] not in ("var", "mu")}
)  # μ may be a unit's micro (5 μm): left to the unit list
_HEDGE = re.compile(
    r"(?i)(?<![\w'])(?:or|either|maybe|possibly|perhaps|probably|alternatively|not|at least"
    r"|at most|to|between)(?![\w'])|\\approx(?![a-z])"
)

# The same words where the grammar did read the text: "not (p, q) = (3, 2)" parses as the product
# n*o*t labelling a tuple. Words inside \text{} are the answer's own ("does not exist").
_WORD_IN_PARSE = re.compile(r"(?i)(?<![\w'\\])(?:or|either|not|at least|at most|between)(?![\w'])")
_TEXT_BODY = re.compile(r"\\(?:text|mathrm|textbf|mbox|operatorname)\{[^{}]*\}")


# "f(x) = 5", "P(A) = 0.5": a function's value named by its application. The grammar reads "f(x)"
# as the product f*x, the same tree as "fx"; only the text tells them apart, and a product of
# unknowns ("mn = 12") names no single answer while a function's value does.
_APPLIED_LABEL = re.compile(r"^\s*([A-Za-z])\s*\(\s*([A-Za-z0-9]{1,3})\s*\)\s*=(?!=)")


class ReadError(MathParseError):
    """The text is not one answer in the grammar (the message says why)."""


@dataclass(frozen=True)
class Read:
    node: Node
    unit: str | None  # a name from `math_units`, or None


# "x = 3 or x = -3": one variable's solutions, joined by "or", are the set of them ({3, -3}); a set
# answers only a set or list reference holding exactly these values, never one of them.
_SOLUTIONS = re.compile(
    r"^\s*(?P<var>[A-Za-z](?:_\{?[A-Za-z0-9]{1,3}\}?)?)\s*=\s*(?P<first>[^=]{1,80}?)"
    r"(?P<rest>(?:\s*(?:,\s*|\\(?:text|textrm|mathrm)\s*\{\s*,?\s*or\s*\}|,?\s*\bor\b)\s*"
    r"(?P=var)\s*=\s*[^=]{1,80}?){1,7})\s*$"
)
_SOLUTION_SPLIT = re.compile(
    r"\s*(?:,\s*|\\(?:text|textrm|mathrm)\s*\{\s*,?\s*or\s*\}|,?\s*\bor\b)\s*"
    r"[A-Za-z](?:_\{?[A-Za-z0-9]{1,3}\}?)?\s*=\s*"
)


# The word "or" (never a command's letters, "\\for", nor a word's, "color").
OR_WORD = re.compile(r"(?<![\w\\])or(?!\w)")
# "3 \text{ or } -3": values alone joined by "or" are the same set (no "=" anywhere).
_VALUES_OR = re.compile(
    r"^[^=]{1,40}?(?:\s*(?:\\(?:text|textrm|mathrm)\s*\{\s*,?\s*or\s*\}|,?\s*\bor\b)\s*[^=]{1,40}?){1,7}$"
)
_VALUES_OR_SPLIT = re.compile(r"\s*(?:\\(?:text|textrm|mathrm)\s*\{\s*,?\s*or\s*\}|,?\s*\bor\b)\s*")


def _solution_set(text: str) -> str:
    """ "x = 3 or x = -3" and "3 or -3" as "\\{3, -3\\}"; any other text as it is."""
    if "=" not in text and _VALUES_OR.match(text) and " or" in text.replace("{", " "):
        values = _VALUES_OR_SPLIT.split(text.strip())
        if all(v and "," not in v for v in values):
            return "\\{" + ", ".join(values) + "\\}"
    m = _SOLUTIONS.match(text)
    if m is None or " or" not in text.replace("{", " ").replace("\\", " "):
        return text
    values = [m.group("first"), *_SOLUTION_SPLIT.split(m.group("rest"))[1:]]
    return "\\{" + ", ".join(v.strip() for v in values) + "\\}"


def read(text: str, glued_units: bool = False, decimal_comma: bool = True) -> Read:
    """The answer `text` states, or ReadError. `glued_units`: read "12kg" as 12 kilograms, for a
    reference without variables (against "2mg" the letters are variables: `math_units._variables`);
    `decimal_comma`: read a whole "2,50" as 2.5 (`math_decimal_comma.comma_may_be_decimal`)."""
    # 2θ, hν, αx: Greek letters are their commands, never Latin look-alikes (before the look-alike
    # fold of a mixed word, and again after NFKC has made math-italic 𝜃 a θ)
    unified = text if text.isascii() else text.translate(_GREEK_LETTERS)
    unified = _solution_set(unify(unified))
    if not unified.isascii():
        unified = unified.translate(_GREEK_LETTERS)
    normalised, unit = normalise_answer(unified, glued_units, decimal_comma)
    if unit == "conflict":
        raise ReadError("two different units on one answer")
    try:
        node = parse_answer(normalised)
    except MathParseError as e:
        hedge = _HEDGE.search(normalised)
        if hedge:
            raise ReadError(f"hedged, a bound or a range ({hedge.group()!r})") from e
        raise ReadError(str(e)) from e
    word = _WORD_IN_PARSE.search(_TEXT_BODY.sub(" ", normalised))
    if word:
        raise ReadError(f"hedged, a bound or a range ({word.group()!r})")
    return Read(_applied_label(node, normalised), unit)


def _applied_label(node: Node, text: str) -> Node:
    """ "f(x) = 5" with its left side as one name, "f(x)", instead of the product f*x."""
    m = _APPLIED_LABEL.match(text)
    if m is None or node[0] != "eq" or node[1][0][0] != "mul" or len(node[1][0][1]) != 2:
        return node
    return ("eq", [("sym", f"{m.group(1)}({m.group(2)})"), *node[1][1:]])


def answer_key(text: str) -> object:
    """Equal for two texts that state the same answer ("x = 5" and "5", "0.50" and "0.5")."""
    node = read(text).node
    return canonical(final_side(node) if is_assignment(node) else node)
