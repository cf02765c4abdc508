"""Whether a final answer is a commitment: what may stand before it and after it. Strict by
construction, so these are closed lists of what is allowed, not lists of what is forbidden:

- before a box, its sentence may hold no doubt ("I'm not sure, but", "a wild guess", "if") and its
  clause no negation; the word right before it must be one that introduces an answer ("is", "=",
  ":", "we get", "a total of", the start of the sentence), never a bound, operand or range
  ("at least", "just shy of", "10% of", "12 -", "3 to");
- after the final answer, its sentence may only close ("." or "is the answer"), a question mark
  makes it a question, and later sentences may only be closing formulae ("I hope it is correct."):
  any other text, in any wording ("Nope.", "Make that the next integer.", "Swap p and q."), may take
  the answer back, so there is no answer."""

from __future__ import annotations

import re

from stages.verifiers.math_context import sentence_start, strip_filler
from stages.verifiers.math_counts import (  # noqa: F401 - counted_noun, named_count: public here too
    CLOSING_REST,
    COUNT_OTHER,
    COUNT_REST,
    counted_noun,
    named_count,
    purpose_ok,
)
from stages.verifiers.math_disown import disowned
from stages.verifiers.math_doubt import region_start, regional_doubt, unmarked
from stages.verifiers.math_explain import MAX_CHARS, explanation_problem, restatement_problem
from stages.verifiers.math_languages import FOREIGN_CLOSING, foreign_commitment
from stages.verifiers.math_layout import label_query, previous_sentences
from stages.verifiers.math_unicode import unify

WINDOW = 300  # characters of context read on each side
# Doubt anywhere in the answer's sentence ("I'm not sure, but", "a wild guess, so"), and an answer
# that is someone else's or a false one ("Bob's answer is", "the textbook says", "a tempting but
# false answer is").
# A note that the work is unfinished or unchecked ("TODO: verify", "FIXME", a shrug) doubts the
# answer that follows it as much as "I'm not sure" does.
_UNFINISHED = (
    r"|(?i:(?<![\w'])(?:todo|fixme|tbd|xxx|to\s+be\s+(?:checked|verified|confirmed)"
    r"|needs?\s+(?:(?:to\s+be\s+)?(?:re)?(?:checked|checking|verified|verifying|verification)"
    r"|double[-\s]?check(?:ing)?)|double[-\s]?check\s+(?:this|that|it|later))(?![\w']))"
    r"|¯\\?_\(ツ\)_/¯|[\U0001f937\U0001f91e\U0001f3b2]"
    # the writer says the work failed or went unchecked: "I gave up.", "I couldn't solve it."
    r"|(?i:(?<![\w'])(?:(?:i|we)\s+(?:just\s+)?(?:gave|give|giving)\s+up|(?:i|we)\s+(?:couldn'?t|could\s+not"
    r"|can'?t|cannot|didn'?t|did\s+not|haven'?t|have\s+not|never)\s+(?:\w+\s+)?(?:solve|solved|check"
    r"|checked|verify|verified|finish|finished|figure|work\s+it\s+out|compute|computed)"
    r"|(?:wild\s+)?stab(?:\s+in\s+the\s+dark)?|gave\s+up)(?![\w']))"
    # the writer calls the work shaky, left to chance, or possibly misread (round 14)
    r"|(?i:(?<![\w'])(?:iffy|shaky|dubious|questionable|unreliable|dodgy|sketchy|fishy|flimsy"
    r"|it'?s\s+a\s+(?:coin\s+(?:toss|flip)|toss-?up|gamble|crapshoot)|toss-?up|crapshoot"
    # the writer let chance pick ("I flipped a coin.", round 14's m14-019); never a problem's own
    # coin ("when you flip a coin"), which has no "I" or "we"
    r"|(?:i|we)\s+(?:just\s+)?(?:flipped|tossed|flip|toss)\s+a\s+coin|(?:i|we)\s+(?:just\s+)?rolled"
    r"\s+(?:a\s+)?(?:die|dice)"
    r"|on\s+a\s+limb|leap\s+of\s+faith|grain\s+of\s+salt|fingers\s+crossed"
    r"|not\s+(?:100|a\s+hundred)\s*(?:%|percent)|(?:i|we)\s+(?:just\s+)?(?:chose|picked|selected"
    r"|choose|pick|went\s+with)(?:\s+\w+){0,4}?\s+(?:at\s+random|randomly)|(?:disregard|ignore)"
    r"\s+(?:the\s+(?:following|next)|what\s+follows|this\s+answer|my\s+answer|the\s+answer\s+below)"
    r"|(?:i|we)\s+(?:may|might|could)\s+(?:well\s+)?have\s+(?:\w+\s+)?(?:mis\w+|messed|erred"
    r"|overlooked|missed|forgotten|dropped|botched|skipped|slipped|made\s+an?\s+(?:\w+\s+)?"
    r"(?:error|mistake|slip)|gotten\s+(?:this|it)\s+wrong)|(?:error|mistake|bug|flaw|slip)\s+"
    r"(?:somewhere\s+)?(?:that\s+)?(?:i|we)\s+(?:couldn'?t|could\s+not|can'?t|cannot)\s+(?:\w+\s+)?"
    r"(?:locate|find|spot|track|pin|fix|identify)|(?:couldn'?t|could\s+not|can'?t|cannot)\s+"
    r"(?:locate|find|spot|track\s+down|pin\s+down|identify)\s+(?:the|an?|my|this|that)\s+"
    r"(?:\w+\s+)?(?:error|mistake|bug|flaw|slip|problem|issue))(?![\w']))"
)
_DOUBT = re.compile(
    r"(?i)(?<![\w'])(?:sure|maybe|perhaps|possibly|probably|probable|likely|unlikely|guess|guessing"
    r"|guessed|guesstimate|wrong|wrongly|mistaken|mistakenly|mistake|incorrect|incorrectly"
    r"|erroneous|erroneously|uncertain|uncertainty|unsure|doubt|doubtful|estimate|estimated"
    r"|estimation|seems?|seemingly|nope|nah|hmm|wait|oops|false|bogus|invalid|tempting|trap"
    r"|distractor|naive|naively|claims|claimed|thinks|believes|believed|says|said|suggests"
    r"|suggested|wrote|proposed|supposedly|allegedly|hypothetically|pretend|confidence|confident"
    r"|tentative|tentatively|presumably|conceivably|plausibly|hunch|gut|instinct"
    r"|intuition|intuitively|ballpark|offhand|roughly|approximately|approx|nearly|almost|circa"
    r"|unchecked|unverified|unconfirmed|provisional|provisionally|speculative|speculate"
    r"|blind|blindly|reckon|suspect|bet|wager|gamble|luck|hopefully|dunno|idk|eyeball"
    r"|eyeballing|eyeballed|rough|vermutlich|vielleicht|wahrscheinlich|ungefähr|etwa|geschätzt"
    r"|probablement|environ|quizás|quizá|probablemente|aproximadamente|supongo|forse"
    r"|probabilmente|talvez|provavelmente)(?![\w'])"
    # "It could be \\boxed{36}" (never "the most points that could be in the domain is 19")
    r"|(?<![\w'])(?:might|could|may)\s+(?:well\s+|also\s+)?(?:be|equal)[\s$:]*\Z"
    r"|(?<![\w'])(?:i|we)\s+(?:think|believe|feel|suppose|imagine|bet)(?![\w'])"
    r"|(?<![\w'])(?:i'?d|i\s+would|we'?d)\s+say(?![\w'])|(?<![\w'])without\s+(?:\w+\s+)?"
    r"(?:checking|verifying|verification|proof|certainty|calculating|computing|working)"
    r"|-ish(?![\w'])|(?<![\w'])(?:at\s+a\s+glance|more\s+or\s+less|give\s+or\s+take|or\s+so"
    r"|top\s+of\s+my\s+head|no\s+idea|who\s+knows|hard\s+to\s+(?:say|tell)|shot\s+in\s+the\s+dark"
    r"|not\s+(?:certain|confident|positive|checked|verified)|может\s+быть|peut-être|tal\s+vez"
    r"|je\s+(?:pense|crois)|à\s+peu\s+près|más\s+o\s+menos)(?![\w'])|\?|\w's\s+(?:\w+\s+)?(?:answer|guess|claim)"
    r"|大概|大约|也许|可能|估计|不确定|应该是|たぶん|多分|おそらく|かもしれ|だいたい|約"
    r"|наверное|возможно|примерно|около|вероятно|кажется|我猜|我觉得|应该" + _UNFINISHED
)
# The sentence before the answer's may hedge it too ("I'm not sure. \\boxed{36}"): personal doubt
# only, since reasoning words there ("approximately 7.777", "almost as far") are the working.
_PERSONAL_DOUBT = re.compile(
    r"(?i)(?<![\w'])(?:sure|unsure|uncertain|uncertainty|maybe|perhaps|probably|possibly|guess"
    r"|guessing|guessed|guesstimate|confidence|confident|tentative|tentatively|hunch|dunno|idk"
    r"|hopefully|luck|no\s+idea|who\s+knows|hard\s+to\s+(?:say|tell)|shot\s+in\s+the\s+dark"
    r"|top\s+of\s+my\s+head|(?:i|we)\s+(?:think|believe|suppose|bet)|without\s+(?:\w+\s+)?"
    r"(?:checking|verifying|verification)|vielleicht|vermutlich|wahrscheinlich|quizás|quizá"
    r"|probablemente|peut-être|probablement|forse|talvez|может\s+быть)(?![\w'])"
    r"|大概|也许|可能|不确定|我猜|たぶん|多分|おそらく|かもしれ|наверное|возможно|вероятно"
    + _UNFINISHED
)
# Negations and conditions in the answer's clause ("It is not 5", "If x = 2, then").
_NEGATION = re.compile(
    r"(?i)(?<![\w'])(?:not|no|never|neither|nor|none|ain't|if|suppose|supposing|assume|assuming"
    r"|whether|unless|approximately|approx|roughly|about|around)(?![\w'])|n't(?!\w)"
)
_OTHER_LANGUAGE_CUE = re.compile(
    r"或|不|错|约|至少|最多|也许|可能|其实|等等|抱歉|更正|而是|または|あるいは|約|違"
    r"|(?i:(?<![\w])(?:oder|nicht|ou|pas|non|peut-être|vielleicht|quizás|tal vez|o|ni)(?![\w]))"
)
# Words that may stand right before a boxed answer.
_INTRODUCERS = frozenset(
    ("is", "are", "was", "were", "be", "been", "equals", "equal", "get", "gets", "got", "gives",
     "give", "yields", "yield", "obtain", "obtained", "find", "found", "have", "has", "answer",
     "answers", "so", "thus", "therefore", "hence", "then", "finally", "as", "that", "becomes",
     "become", "remains", "makes", "exactly", "precisely", "just", "simply", "also", "indeed",
     "still", "now", "here", "worth", "costs", "weighs", "measures", "takes", "needs", "holds",
     "contains", "solution", "result", "value", "total", "sum", "being", "equiv", "cong",
     "equivalently", "conclude", "pays", "paid", "spent", "spends", "earns", "earned", "measures",
     "saved", "saves", "bought", "sold",
     # a word problem's verbs (`math_grammar._ACTS` decides the clause: "it will take", "James
     # writes", "needs to pay"; round 15)
     "take", "pay", "spend", "earn", "writes", "runs", "ran", "walks", "walked", "drives",
     "drove", "travels", "traveled", "travelled", "eats", "ate", "buy", "sell", "save", "collect",
     "run", "walk", "drive", "travel", "write",
     # the rest of `math_grammar._ACTS` ("they need \boxed{5} vans", "Tom had"; round 21)
     "need", "make", "cost", "weigh", "hold", "contain", "receive", "receives", "own", "owns",
     "owe", "owes", "use", "uses", "had", "collects",
     # the copula in other languages ("La respuesta es", "Die Antwort ist", "La risposta è");
     # `math_grammar` admits them only in its fixed "the answer is" phrases
     "es", "ist", "est", "è", "é", "sind", "sono", "são", "är", "jest")
)  # fmt: skip
_BEFORE_UP = frozenset(
    ("adds", "add", "added", "sums", "sum", "summed", "totals", "comes", "works")
)
# "X to \boxed{}" and "a Y of \boxed{}" introduce an answer only after these.
_BEFORE_TO = frozenset(
    ("equal", "equals", "comes", "simplifies", "evaluates", "amounts", "reduces", "sums", "adds",
     "totals", "corresponds", "works", "converts", "answer", "solution", "up",
     "out", "simplify", "evaluate", "amount", "reduce")
)  # fmt: skip
_NOUNS_BEFORE_OF = frozenset(
    ("total", "value", "sum", "product", "quotient", "difference", "remainder", "area", "volume",
     "perimeter", "length", "width", "height", "depth", "distance", "speed", "rate", "cost", "price",
     "probability", "average", "mean", "median", "mode", "ratio", "score", "count", "number",
     "result", "answer", "measure", "age", "weight", "mass", "radius", "diameter", "circumference",
     "slope", "period", "profit", "balance", "amount", "percentage", "population", "temperature",
     "time", "solution", "solutions", "range", "degree", "angle", "side", "base", "determinant",
     "trace", "rank", "dimension", "norm", "magnitude", "velocity", "acceleration", "force",
     "loss", "gain", "increase", "decrease", "change", "discount", "savings", "interest", "share",
     "fraction", "proportion", "percent", "factor", "coefficient", "term", "digit", "digits",
     "payment", "income", "salary", "revenue", "fee", "tax", "budget", "debt", "value")
)  # fmt: skip
# "gives us \boxed{}", "left with \boxed{}": a pronoun or "with" after these introduces the answer
_OBJECTS = frozenset(("us", "me", "him", "her", "them"))
_BEFORE_OBJECT = frozenset(("gives", "give", "gave", "yields", "yield", "leaves", "left"))
_BEFORE_WITH = frozenset(("left", "up"))
_MEASURES = frozenset(
    ("length", "area", "volume", "perimeter", "radius", "diameter", "height", "width", "mass",
     "weight")
)  # fmt: skip


def _with_left(before: str) -> bool:
    """ "with" ends "left with", "end up with" or "leaves us with" in `before` + "with"."""
    previous, earlier = _word_before(before)
    if previous in _OBJECTS:
        previous = _word_before(earlier)[0]
        return previous in ("leaves", "left")
    return previous in _BEFORE_WITH


_LAST_TOKEN = re.compile(r"(?:(?P<word>[A-Za-z']+)|(?P<sign>\S))\s*$")
_TRAILING_DELIMITERS = re.compile(r"(?:\s|\$|\\\(|\\\[|\*\*|__|\\)+$")
# Closing punctuation, math delimiters, environment ends and markdown around an answer.
# End-of-proof marks close an answer too ("Hence $n = \\boxed{42}$. $\\blacksquare$", round 14).
_CLOSERS = re.compile(
    r"(?:\s|[$*_.!,;]|\\\)|\\\]|\\end\s*\{[a-z]+\*?\}|\\\\|\\q?quad|\\[,;!]|&"
    r"|\\(?:blacksquare|square|qed|Box)(?![a-zA-Z])|[∎□■]|Q\.E\.D\.|QED(?!\w))*"
)


def _word_before(text: str) -> tuple[str, str]:
    """(the last word or sign of `text`, the text before it)."""
    m = _LAST_TOKEN.search(text)
    if not m:
        return "", ""
    return (m.group("word") or m.group("sign")).lower(), text[: m.start()]


def left_context_problem(prefix: str, listed: bool = False, choice: bool = False) -> str | None:
    """Why the text right before a box makes it something other than the answer, or None.
    `listed`: the box follows another box of the same list ("\\boxed{2} and \\boxed{3}");
    `choice`: the box holds a choice's letter alone, which "is option" may introduce."""
    if listed:
        return None
    text = _TRAILING_DELIMITERS.sub("", unify(prefix[-WINDOW:]))
    token, before = _word_before(text)
    if not token or token in ("=", ":", "\n"):
        return None
    if token in _INTRODUCERS or foreign_commitment(text) or foreign_commitment(prefix[-WINDOW:]):
        return None  # "答案是 \boxed{5}", "Die Antwort lautet \boxed{5}" (round 17)
    if token == ",":  # "Therefore, \boxed{5}"; never "3, \boxed{5}" nor "min(3, \boxed{5})"
        previous, _ = _word_before(before)
        return None if previous.isalpha() else "',' right before the answer"
    if token == "to" and _word_before(before)[0] in _BEFORE_TO:
        previous, earlier = _word_before(before)
        # "adds up to \\boxed{}" states a total; "goes up to \\boxed{}" a bound
        if previous != "up" or _word_before(earlier)[0] in _BEFORE_UP:
            return None
    if token == "of" and _word_before(before)[0] in _NOUNS_BEFORE_OF:
        return None
    if choice and token in ("option", "choice", "letter") and _word_before(before)[0] == "is":
        return None  # "The answer is option \\boxed{B}", never "option \\boxed{5}" (round 21)
    if token in _MEASURES and _word_before(before)[0] in ("has", "have", "had"):
        return None  # "the hypotenuse has length \boxed{5}" (round 21)
    if token in _OBJECTS and _word_before(before)[0] in _BEFORE_OBJECT:
        return None  # "This gives us \boxed{12}", "This leaves her \boxed{3}" (round 21)
    if token == "with" and _with_left(before):
        return None  # "We are left with \boxed{12}", "This leaves us with" (round 21)
    if token == "in" and before.endswith("\\"):
        return None  # "x \in \boxed{[0, 1)}"
    if token in ("antwort", "ergebnis", "lösung") and _GERMAN_INVERTED.search(before):
        return None  # "Also ist die Antwort \boxed{15}": German puts the verb first
    return f"{token[:30]!r} right before the answer"


_GERMAN_INVERTED = re.compile(r"(?i)(?<![\w])(?:ist|lautet|sind)\s+(?:die|das)(?:\s+\w+)?\s*$")


def doubt_before(body: str, start: int) -> str | None:
    """A doubt in the answer's sentence up to `start`, or in the sentence before it ("I'm not sure.
    \\boxed{36}", "Hard to say. \\boxed{36}"); a question mark there is a question the reasoning
    asked itself, not doubt."""
    own = sentence_start(body, start)
    cue = doubt_problem(body[own:start])
    if cue:
        return cue
    window = body[region_start(body, start) : start]  # unify makes Cyrillic look-alikes Latin
    region = regional_doubt(window) or regional_doubt(unify(window))
    if region:  # "I'm going to guess here. I take the smaller one. \boxed{5}" (round 17)
        return f"{region!r} before the answer"
    query = label_query(body, start)
    if query:  # "Answer??? \boxed{5}" asks whether 5 is right (round 20)
        return f"{query!r} before the answer"
    # headings, bold lines and rules between are read through to the last sentence (round 20)
    found = previous_sentences(body, own)
    if found is None:
        return "a long run of marks before the answer"
    previous = unmarked(found).replace("?", " ")
    doubt = _PERSONAL_DOUBT.search(unify(previous)) or _PERSONAL_DOUBT.search(previous)
    if doubt:
        return f"{doubt.group()!r} in the sentence before the answer"
    words = disowned(unify(previous)) or disowned(previous)
    return f"{words!r} in the sentence before the answer" if words else None


def doubt_problem(prefix: str) -> str | None:
    """A doubt anywhere in the sentence before the answer, or a negation in its clause."""
    prefix = unmarked(prefix[-WINDOW:])  # "*gu*essing" is "guessing" on the page
    sentence = unify(prefix)
    # unify maps look-alike letters to Latin ones, so words of other scripts are read as written
    doubt = (
        _DOUBT.search(sentence)
        or _DOUBT.search(prefix[-WINDOW:])
        or (None if sentence.isascii() else _OTHER_LANGUAGE_CUE.search(sentence))
    )
    if doubt:
        return f"{doubt.group()!r} before the answer"
    words = disowned(sentence) or disowned(prefix[-WINDOW:])
    if words:
        return f"{words!r} before the answer"
    clause = sentence[max(sentence.rfind(","), sentence.rfind(";")) + 1 :]
    negation = _NEGATION.search(clause)
    return f"{negation.group()!r} before the answer" if negation else None


def tail_problem(rest: str, later: str, answer: str | None = None, earlier: str = "") -> str | None:
    """Why the text after the final answer may take it back, or None. `rest` is the remainder of
    the answer's own sentence (its end included), `later` all that follows: closing formulae, or
    a short justification of `answer` (`math_explain`); `earlier` is the text before the answer,
    where the things a count names were spoken of (`named_count`)."""
    rest = unify(rest[: WINDOW + 1])
    if "?" in rest:
        return "a question, not an answer"
    # windows start after the closing marks: a run of them ("." * 3000) cannot push a
    # retraction past what is read (round 20)
    lead = _CLOSERS.match(later).end()  # type: ignore[union-attr]
    after = later[lead : lead + MAX_CHARS + WINDOW]
    doubt = regional_doubt(rest + " " + after) or regional_doubt(rest + " " + unify(after))
    if doubt:  # "\boxed{5}. Because I guessed that x = 5." (round 17)
        return f"{doubt!r} after the final answer"
    rest = rest[_CLOSERS.match(rest).end() :]  # type: ignore[union-attr]
    closing = CLOSING_REST.match(rest)
    if closing and not purpose_ok(closing, earlier):
        closing = None
    if not closing or not closing.group():  # "\boxed{5} です", "\boxed{5}입니다" (round 17)
        closing = FOREIGN_CLOSING.match(rest) or closing
    if not closing or not closing.group():
        counted = COUNT_REST.match(rest) or named_count(rest, earlier)
        if counted and not COUNT_OTHER.search(counted.group()):
            closing = counted
    closed = _CLOSERS.fullmatch(rest, closing.end() if closing else 0)
    if not closed and (answer is None or restatement_problem(rest, answer)):
        shown = " ".join(rest.split())[:40]
        return f"text after the final answer ({shown!r})"
    tail = strip_filler(later[lead:])  # closing formulae end the text, at most MAX_FILLERS
    if _CLOSERS.fullmatch(tail):
        return None
    if answer is not None and len(tail) <= MAX_CHARS + WINDOW:
        return explanation_problem(tail, answer)  # "This is because 2 + 3 = 5."
    shown = " ".join(tail[:400].split())[:40]
    return f"text after the final answer ({shown!r})"
