"""AMC multiple choice: a reference names its choice and that choice's value ("\\textbf{(C) }12",
"\\textbf{(B)}\\ 3"). The letter is what is asked; an answer states it ("(C)", "\\textbf{(C)}", "C"),
never the value alone (which choice it is, is unsaid) nor another letter with it. An answer that
states a choice with its value ("\\boxed{\\textbf{(C)}\\ 12}", the AoPS form) is paid only when both
are the reference's: the same letter with another value contradicts itself (red team round 19)."""

from __future__ import annotations

import re
from collections.abc import Callable

from stages.verifiers.math_exact import exact_value
from stages.verifiers.math_parse import COLLECTIONS
from stages.verifiers.math_read import OR_WORD, answer_key, read
from stages.verifiers.math_tree import MathParseError, Node
from stages.verifiers.math_unicode import unify

CHOICE = re.compile(
    r"\s*(?:\\(?:textbf|text|mathrm|mathbf)\s*\{\s*\((?P<styled>[A-E])\)\s*\}|\((?P<plain>[A-E])\))"
    r"\s*(?:\\[ ,;:]|~|\s)*"
    # the value may hold braces one level deep ("\\frac{3}{10}"): each alternative starts with a
    # different character, so the match stays linear
    r"(?P<value>(?:[^\s{}]|\{[^{}]{0,30}\})(?:[^{}]|\{[^{}]{0,30}\}){0,60})"
)


def letter(choice: re.Match[str]) -> str:
    """The letter a `CHOICE` match names ("\\textbf{(C)} 12" or "(C) 12")."""
    return choice.group("styled") or choice.group("plain")


# A reference that is the letter alone ("C", "(C)", "\\textbf{(C)}"): the letter is all that is asked.
_LETTER = re.compile(
    r"\s*(?:\\(?:textbf|text|mathrm|mathbf)\s*\{\s*\(?([A-E])\)?\s*\}|\(?([A-E])\)?)\s*"
)


# A plain number restated after a choice's letter alone ("\\boxed{\\textbf{(C)}}, i.e. 12.", round 23)
_RESTATED_VALUE = re.compile(
    r"(?:\s|\$|\\\))*,?\s*(?:i\.e\.|that\s+is|which\s+is)\s*,?\s*"
    r"(?P<math>\$|\\\()?\s*(?P<value>-?\d+(?:\.\d+)?)\s*(?(math)(?:\$|\\\)))"
    r"(?=\s*(?:[.!]\s*)?$)"
)


def restated_choice(text: str, after: str) -> tuple[str, int] | None:
    """A letter-only choice answer (`text`) with its value restated after it in `after` (what
    follows the answer, to the end of its line): (the choice with that value, how far it
    reaches in `after`), so the value is checked against the reference's (`choice_with_value`)."""
    alone = _LETTER.fullmatch(text)
    m = _RESTATED_VALUE.match(after.split("\n", 1)[0])
    if alone is None or m is None:
        return None
    return f"({alone.group(1) or alone.group(2)}) {m.group('value')}", m.end()


# The start of a restatement after a choice ("$, i.e", an answer line cut at the first period)
_RESTATING = re.compile(r"(?i)(?<=[\s,$])(?:i\.e\.?|that\s+is|which\s+is).*$", re.S)


def restates_choice(text: str, rest: str) -> bool:
    """A letter-only choice (`text`) that the rest of its answer line starts to restate: the box
    is then the final, its value read from the whole text after it (`restated_choice`)."""
    return restated_choice(text, _RESTATING.sub("i.e. 0", rest)) is not None


# A plain number named by its unknown after the letter: "(C) x = 12" states 12 (round 23)
_NAMED_VALUE = re.compile(r"\s*[A-Za-z](?:_\{?\w{1,3}\}?)?\s*=\s*(?P<value>-?\d+(?:\.\d+)?)\s*")


def _stated_value(value: str) -> str:
    named = _NAMED_VALUE.fullmatch(value)
    return named.group("value") if named else value


def choice_with_value(answer: str, reference: str) -> tuple[bool, str] | tuple[Node, Node] | None:
    """(paid, reason) for an answer that states a choice and its value; the two values to compare
    (answer's, reference's) where the letters agree and the values are written differently ("(C)
    \\sqrt{8}" for "(C) 2\\sqrt{2}": the general comparison decides); None for any other answer."""
    said = CHOICE.fullmatch(answer)
    if said is None:
        return None
    stated = _stated_value(said.group("value"))
    problem = _value_problem(stated)
    if problem:  # "\\text{(A)} + 1", "(B) maybe", "(B) \\text{and D}": no value of the choice
        return False, f"choice ({letter(said)}) {problem}"
    asked = CHOICE.fullmatch(reference)
    alone = _LETTER.fullmatch(reference) if asked is None else None
    if alone is not None:  # "\\boxed{\\textbf{(C)}\\ 12}" for "C": the asked letter is stated
        wanted = alone.group(1) or alone.group(2)
        if letter(said) != wanted:
            return False, f"choice ({letter(said)}), not ({wanted})"
        return True, "the reference's choice (the reference gives no value)"
    if asked is None:
        return False, "a choice with a value, against a reference that names no choice and value"
    if letter(said) != letter(asked):
        return False, f"choice ({letter(said)}), not ({letter(asked)})"
    try:
        value, wanted_value = read(stated), read(asked.group("value"))
    except MathParseError:
        value = wanted_value = None
    if value is None or wanted_value is None or value.unit != wanted_value.unit:  # "12 m", "12 cm"
        return False, f"choice ({letter(said)}) with another value than the reference's"
    if _same_value(stated, asked.group("value")):
        return True, "the reference's choice and value"
    return value.node, wanted_value.node


def _value_problem(value: str) -> str | None:
    """Why the text after a choice is no value of it, or None. An allow-list: one math value (a
    number or an expression, perhaps with a unit the grammar reads), nothing else; words after the
    letter ("maybe", "is incorrect", "through C", "(guess)") leave no answer (round 22)."""
    if _arithmetic(value):
        return "with arithmetic after it, not a value"
    if _OTHER_CHOICE.search(value) or OR_WORD.search(value):  # "(C) 3 or 4", "(B) and (D)"
        return "with a value that is not one answer"
    try:
        answer_key(value)
        node = read(value).node
    except MathParseError:
        return "with words or a value that is not one answer after it"
    if node[0] in COLLECTIONS:  # "(C) 3, 4"
        return "with a value that is not one answer"
    if _holds(node, lambda n: n[0] == "text") or (node[0] == "sym" and node[1] in "ABCDE"):
        return "with words or another choice after it, not a value"
    if _spelled(node) or _holds(node, lambda n: _spelled(n, least=3)):
        return "with letters that spell a word after it, not a value"  # "(B) m a y b e"
    return None


def _spelled(node: Node, least: int = 2) -> bool:
    """A product of `least` or more bare letters and nothing else ("m a y b e", "x y z"): a word
    spelled in math letters, not a value ("2xy" and "2\\pi r h" hold a number or a constant)."""
    if node[0] != "mul":
        return False
    letters = [part for part in node[1] if part[0] == "sym"]
    return len(letters) >= least and (least > 2 or len(letters) == len(node[1]))


def _holds(node: object, test: Callable[[tuple], bool]) -> bool:
    """Whether `node` or any node inside it passes `test` (nodes are tuples led by a tag)."""
    if isinstance(node, tuple) and node and isinstance(node[0], str):
        if test(node):
            return True
        return any(_holds(part, test) for part in node[1:])
    if isinstance(node, list):
        return any(_holds(part, test) for part in node)
    return False


# A choice's value is one value as written. Before it, an operator or an operator word ("+ 1",
# "\\cdot 2", "minus 1") is arithmetic on the choice (stage 3's adversary, round 21); only a leading
# minus ("-5") is part of a value. Inside a value of numbers alone, an operator between them ("12 +
# 1") applies a number to the choice; a value with a variable ("x^2+1", "n^2 - 1") is an expression,
# and a power ("2^{10}") binds to its base, never to the choice (round 22).
_OPERATOR_WORD = re.compile(
    r"(?<![a-zA-Z])(?:minus|plus|times|divided|over|squared|cubed|less|more|add|subtract)(?![a-zA-Z])"
)
_LEADING = re.compile(r"^(?:[+*/=^×÷·<>]|-\s|\\(?:cdot|times|div|pm|mp)(?![a-zA-Z]))")
_RELATION = re.compile(r"[=<>]|\\(?:le|ge|neq?|leq|geq|approx)(?![a-zA-Z])")
_EXPONENT = re.compile(r"\^\s*\{[^{}]*\}")
_BETWEEN_NUMBERS = re.compile(r"[+*/×÷·]|(?<!^)-|\\(?:cdot|times|div|pm|mp)(?![a-zA-Z])")


def _arithmetic(value: str) -> bool:
    text = unify(value).strip()
    if _OPERATOR_WORD.search(text) or _LEADING.search(text) or _RELATION.search(text):
        return True
    try:
        variable = _holds(read(text).node, lambda n: n[0] == "sym")
    except MathParseError:
        variable = False  # words: `_value_problem` refuses them
    # an operator inside an exponent's braces is part of the power ("2^{1/2}", "10^{-3}", round 23)
    return not variable and _BETWEEN_NUMBERS.search(_EXPONENT.sub("^{}", text)) is not None


_OTHER_CHOICE = re.compile(r"\([A-E]\)")


def _same_value(said: str, asked: str) -> bool:
    try:
        if answer_key(said) == answer_key(asked):
            return True
        value = exact_value(read(said).node)
        return value is not None and value == exact_value(read(asked).node)
    except MathParseError:
        return False


def choice_key(text: str) -> object | None:
    """What `math_read.answer_key` is for other answers, for a choice with its value; None when
    `text` is no such choice or its value is not one answer."""
    said = CHOICE.fullmatch(text)
    if said is None:
        return None
    try:
        return ("choice", letter(said), answer_key(said.group("value")))
    except MathParseError:
        return None
