"""A short justification after the final answer ("\\boxed{5}. This is because 2 + 3 = 5.", "This
works because both sides balance.", "**Check:** $3 \\cdot 4 = 12$."). Text after a final answer may
take it back ("Oops, 6.", "Make that the next integer.", "Swap p and q."), so what may follow is a
closed form, not a list of retractions:

- each sentence opens with a justification from a closed list ("This is because", "Because",
  "Since", "This works because", "We can check this", "To verify,", "Check:", "Explanation:");
- it holds no word that could revise, doubt or relate the answer (`_REVISING`: "not", "but",
  "actually", "should", "answer", "more", "next", "swap", ...);
- a value in it must end an equation whose last side is the final answer itself ("2 + 3 = 5" after
  \\boxed{5}); any other value ("Because we need 6.") leaves no answer;
- at most `MAX_SENTENCES` sentences, `MAX_CHARS` characters in all."""

from __future__ import annotations

import re
from fractions import Fraction

from stages.verifiers.math_chains import symbols_of
from stages.verifiers.math_context import has_value
from stages.verifiers.math_exact import exact_value, rewrite_forms
from stages.verifiers.math_parse import Node
from stages.verifiers.math_read import ReadError, answer_key, read
from stages.verifiers.math_unicode import unify
from stages.verifiers.math_values import eval_rational

MAX_SENTENCES = 4
MAX_CHARS = 600
_OPENER = re.compile(
    r"(?i)^(?:[*_#>\s-]*(?:explanation|reasoning|justification|check|verification|why)\s*[:：]"
    r"[*_\s]*)?(?:this\s+is\s+because|this\s+works\s+because|this\s+holds\s+because|because"
    r"|since|we\s+can\s+(?:check|verify|confirm)\s+(?:this|it|that)|to\s+(?:check|verify|confirm)"
    r"(?:\s+(?:this|it))?\s*[,:]|indeed\s*,|check\s*[:：]|verification\s*[:：]|(?=\$))(?![\w'])"
)
# Words that could revise, doubt or relate the answer: a justification never needs them.
_REVISING = re.compile(
    r"(?i)(?<![\w'\\])(?:not|no|never|but|however|though|although|actually|instead|rather|should"
    r"|would|could|might|may|must|wrong|wrongly|mistakes?|errors?|oops|sorry|apologi[sz]e|correct"
    r"|corrected|correction|answers?|final|results?|really|true|real|actual|typo|meant|mean|revise"
    r"|revised|update|updated|change|changed|replace|ignore|disregard|swap|swapped|next|previous"
    r"|opposite|negate|negative|sign|reverse|reversed|double|doubled|half|halve|twice|triple|more"
    r"|less|fewer|minus|plus|off|wait|unless|except|if|assume|assuming|guess|maybe|perhaps"
    r"|probably|approximately|about|around|roughly|nearly|almost|unit|units|scale|thousands?"
    r"|hundreds?|millions?|percent|base|hmm|nope|make|instead|other|another|different|else|again"
    r"|recheck|recompute|recalculate|reconsider|redo|ago|before|earlier|later|above|below"
    # a transformation of the answer, in any wording of the closed form
    r"|exchange|exchanged|switch|switched|flip|flipped|invert|inverted|rotate|shift|shifted"
    r"|increment|decrement|add|subtract|multiply|divide|round|rounded|truncate|truncated|convert"
    r"|converted|times|over|per|first|second|last|former|latter|square|squared|cube|cubed|root"
    r"|inverse|reciprocal|complement|remove|removed|drop|dropped|keep|use|used|pick|choose"
    r"|chosen|instead"
    # a value the justification sets aside or calls a trap (red team round 15)
    r"|exclude[ds]?|excluding|fails?|failed|failing|careless|distractors?|decoy|trap|rejects?"
    r"|rejected|spurious|extraneous|naive|naively|slip|invalid|discard(?:ed|s)?|bogus|tempting"
    r"|misleading|incorrectly|trick"
    # alternatives offered after the answer ("x = 6 or x = 5"): a hedge (red team round 19)
    r"|or|either|nor|alternatively|otherwise|possibly|whether|respectively)(?![\w'])"
    r"|n't(?!\w)|[?]|\\(?:boxed|fbox|approx|neq|ne|pm)(?![a-zA-Z])"
)
_TICKS = re.compile("[\u2713\u2714\u2705]")  # a check mark after a check: "... = 42. \u2713"
_SENTENCE = re.compile(r"(?<=[.!])\s+|\n+")
_LAST_SIDE = re.compile(r"=\s*(?P<side>[^=]*?)\s*[.!]?\s*$")
_DELIMITERS = re.compile(r"\$\$?|\\[()\[\]]|\*\*|__")


def explanation_problem(later: str, answer: str) -> str | None:
    """Why `later` (all text after the final answer's sentence, closing formulae removed) is not a
    short justification of `answer`, or None when it is."""
    text = later.strip()
    if len(text) > MAX_CHARS:
        return "text after the final answer"
    sentences = [s for s in _SENTENCE.split(text) if _TICKS.sub("", s).strip()]
    if len(sentences) > MAX_SENTENCES:
        return "text after the final answer"
    for sentence in sentences:
        problem = _sentence_problem(unify(_TICKS.sub("", sentence)).strip(), answer)
        if problem:
            return f"{problem} after the final answer ({' '.join(sentence.split())[:40]!r})"
    return None


def _sentence_problem(sentence: str, answer: str) -> str | None:
    opener = _OPENER.match(sentence)
    if not opener:
        return "text"
    revising = _REVISING.search(sentence)
    if revising:
        return f"{revising.group()!r} in text"
    if not has_value(sentence):
        # "Because I erred.", "Check: mismatch.", "Since c'est faux.": a sentence that states no
        # mathematics cannot justify the answer, and a list of words that retract never ends
        return "text with no value"
    if _false_equation(_DELIMITERS.sub(" ", sentence[opener.end() :])):
        return "a false or uncheckable equation in text"
    for clause in _CLAUSE.split(_DELIMITERS.sub(" ", sentence[opener.end() :])):
        if "=" in clause and _other_value(clause, answer):
            return "another value in text"
    side = _LAST_SIDE.search(_DELIMITERS.sub(" ", sentence))
    if side is None:
        return "a value in text"
    try:
        said, final = read(side.group("side")), read(answer)
        same = answer_key(side.group("side")) == answer_key(answer) and said.unit == final.unit
    except ReadError:
        return "a value in text"
    return None if same else "another value in text"


# Clauses of a justification: each equation in it is checked, not only the last ("Because x = 6
# and x - 1 = 5." names 6 for the unknown before the answer 5).
# A consequence word ("implies", "so", "\\Rightarrow") splits clauses too, so "x + 1 = 7 implies
# x = 5" checks x + 1 = 7 with the answer's value, not only its last equation (round 20).
_CLAUSE = re.compile(
    r"[,;⇒→⟹]|(?<![\w\\])(?:and|with|where|while|whereas|implies|imply|gives|give|yields|so"
    r"|hence|thus|then|therefore|means)(?!\w)|\\(?:implies|Rightarrow|Longrightarrow|to"
    r"|therefore)(?![a-zA-Z])"
)


def _other_value(clause: str, answer: str) -> bool:
    """The clause's equation is false, or has unknowns and ends in a value that is not `answer`."""
    text = rewrite_forms(clause.strip().rstrip(".!").strip())
    try:
        node = read(text).node
    except ReadError:
        return _false_equation(text)
    if node[0] != "eq":
        return False
    values = [exact_value(side) for side in node[1]]
    if all(v is not None for v in values):
        return len(set(values)) > 1
    holds = _holds_with(node, answer)
    if holds is not None:  # "x + 1 = 6" after \\boxed{5}: true with x = 5
        return not holds
    side = _LAST_SIDE.search(text)
    try:
        return side is None or answer_key(side.group("side")) != answer_key(answer)
    except ReadError:
        return True


def _holds_with(equation: Node, answer: str) -> bool | None:
    """Whether the equation holds with its one unknown set to the answer's value; None when the
    answer is no number. An equation in two or more unknowns cannot be checked: False."""
    try:
        value = exact_value(read(answer).node)
    except ReadError:
        return None
    if value is None:
        return None
    names = symbols_of(equation)
    if len(names) != 1:
        return False
    (name,) = names
    sides = [exact_value(_substituted(side, name, value)) for side in equation[1]]
    return None not in sides and len(set(sides)) == 1


def _substituted(node: object, name: str, value: Fraction) -> object:
    if node == ("sym", name):
        return ("num", value, str(value))
    if isinstance(node, tuple):
        return tuple(_substituted(part, name, value) for part in node)
    if isinstance(node, list):
        return [_substituted(part, name, value) for part in node]
    return node


def _false_equation(text: str) -> bool:
    """The sentence's equation ("6 = 5", "we know 2 \\cdot 3 = 5") has sides of numbers that
    differ. The equation is the longest tail of the text that reads as one with every side a
    number (one it cannot evaluate, "\\sqrt{10^{400}} = 5", or cannot read, counts as false: it
    proves nothing); an equation with unknowns is left to the last-side rule."""
    text = rewrite_forms(text.strip().rstrip(".!").strip())  # "4! = 24", "\\binom{5}{2} = 10"
    starts = [0] + [m.end() for m in re.finditer(r"\s+", text)]
    read_one = False
    for start in starts[:MAX_CHARS]:
        try:
            node = read(text[start:]).node
        except ReadError:
            continue
        if node[0] != "eq":
            continue
        read_one = True
        values = [exact_value(side) for side in node[1]]
        if all(v is not None for v in values):
            return len(set(values)) > 1
        if not symbols_of(node):  # numbers only, and one side too big to check: no proof
            return True
    # an equation outside the grammar that `math_exact` cannot rewrite ("\\lfloor x \\rfloor = 5",
    # "\\binom{6}{1.5} = 5") cannot be checked, so it proves nothing either
    return "=" in text and not read_one


def same_value(texts: list[str]) -> bool:
    """Every text reads to one exact value (`\\frac12`, `0.5`, `50\\%`), one unit or none in all:
    restatements of one answer, not two answers."""
    values, units = set(), set()
    for text in texts:
        try:
            found = read(text)
        except ReadError:
            return False
        value = eval_rational(found.node)
        if value is None:
            return False
        values.add(value)
        units.add(found.unit)
    # one unit throughout: "\\boxed{5}, or 5 cm." adds a unit the answer never stated (5 what?)
    return len(values) == 1 and len(units) == 1


# ", or 50%", "(i.e. 0.5)", "= 0.5" after the final answer in its sentence: the same value again.
_RESTATED = re.compile(
    r"(?i)^\s*(?:,?\s*(?:or|i\.e\.|that\s+is|which\s+is)\s*,?\s*(?:equivalently\s*,?)?"
    r"|,?\s*equivalently\s*,?|=|\(\s*(?:or|i\.e\.,?|=)?)\s*(?P<math>\$|\\\()?\s*(?P<value>[^$()=]{1,60}?)"
    r"\s*(?:\$|\\\))?\s*\)?\s*(?:\.|(?<!\d)!)?\s*$"  # "or 4!" is a factorial, not an exclamation
)


_PROSE_UNIT = re.compile(r"(?<=\d)\s+(?P<unit>[A-Za-z]{1,3})\.?$")


def restatement_problem(rest: str, answer: str) -> str | None:
    """None when `rest` (the remainder of the answer's sentence) restates `answer` as the same value
    in another form ("\\boxed{\\frac12}, or 50%."); otherwise why not."""
    m = _RESTATED.match(rest)
    if m is None:
        return "text after the final answer"
    value = m.group("value")
    if m.group("math") is None:
        # in prose a word after the number is a unit ("or 5 m."), never a variable (5m)
        value = _PROSE_UNIT.sub(r"\\text{\g<unit>}", value)
    if not same_value([value, answer]):
        return "another value after the final answer"
    return None
