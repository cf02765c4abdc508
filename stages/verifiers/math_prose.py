"""Answers without a final marker: a response that is itself one answer ("19", "$\\frac13$",
"28 percent"), or whose last sentence states one in a closed set of forms ("The probability is 2/3.",
"Therefore $x \\ge 5$ is the solution.", "So, 12."). The stated part is read whole; the words
before it may hold no number, negation or hedge. Anything else ("See step 3.", "84\\n85") is no
answer. 'latex' mode reads every such answer; 'last_number' only plain numbers (units allowed)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stages.verifiers.math_commit import counted_noun, doubt_before, doubt_problem, named_count
from stages.verifiers.math_competing import competing_value
from stages.verifiers.math_context import NUMBER_WORDS, sentence_start
from stages.verifiers.math_grammar import commitment_problem
from stages.verifiers.math_read import ReadError, read
from stages.verifiers.math_unicode import unify
from stages.verifiers.math_values import is_plain_number

_DELIMITERS = re.compile(r"(?<!\\)\$|\\[()\[\]]")
_CONNECTIVE = re.compile(
    r"(?i)^(?:so|thus|hence|therefore|then|finally|overall|in total|altogether|in conclusion"
    r"|consequently|in summary|as a result)(?![\w])[ \t,:]*"
)
_STATED_AS = re.compile(
    r"(?i)(?P<ans>.+?)\s+(?:is|are)\s+(?:the|our|my)\s+(?:final\s+|only\s+)?"
    r"(?:answer|solution|result|value)s?$"
)
_LEAD_VALUE = re.compile(r"\d|(?<![\w])(?:times|minus|plus|divided|over|squared|cubed)(?![\w])")
_COPULA = re.compile(
    r"(?i)(?:^|(?<=\s))(?:is equal to|equals|is|are|was|were|becomes|gives|yields|comes to|totals"
    r"|increases by|decreases by|(?P<we>(?:we|i) (?:get|have|find|obtain|conclude)(?: that)?)"
    # "She spends $12.50.", "Each friend gets 7 cookies.": `math_grammar` admits only a pronoun or
    # "each <thing>" before these verbs
    r"|(?P<act>has|have|takes?|needs?|costs?|spends?|earns?|makes?|saves?|pays?|gets?|owes?"
    r"|weighs?|receives?|sells?|buys?|uses?|collects?|holds|contains|spent|paid|earned|saved"
    r"|made|bought|sold|owns?)(?:\s+(?:him|her|them|us|me|you))?"
    r"(?:\s+an?(?:\s+[a-z]+){1,3}\s+of)?)\s+"
    r"|\s*(?<![<>!=])[=:](?!=)\s*"
)
# The subject of "<subject> is <answer>" must name what a question asks for ("the probability that
# Alice wins", "the identity matrix", "$x$"): "The relevant step is 3." states no answer.
_ANSWER_NOUN = re.compile(
    r"(?i)(?<![\w])(?:answers?|solutions?|results?|values?|total|sum|product|quotient|difference"
    r"|remainder|probability|number|count|amount|area|volume|perimeter|length|width|height"
    r"|distance|ratio|pair|triple|tuple|matrix|vector|set|interval|range|roots?|zeros?|average"
    r"|mean|median|mode|cost|price|percentage|percent|rate|speed|time|age|measure|angle|degree"
    r"|expression|equation|polynomial|slope|determinant|minimum|maximum|limit|integral"
    r"|derivative|coordinates?|point|radius|diameter|circumference|weight|mass|profit|score"
    r"|vertex|center|centre|midpoint|centroid|focus)(?![\w])"  # points, stated "at" (round 14)
)
# A lead that bounds, negates or relates what follows ("at most x = 5", "\\neq x = 5"): the
# sentence states no one answer.
_BOUNDING_LEAD = re.compile(
    r"(?i)(?<![\w'])(?:not|no|never|at least|at most|between|less than|more than|greater than"
    r"|up to|under|over|above|below)(?![\w'])|\\(?:neq?|geq?|leq?|gtr|less|approx|sim)(?![a-z])"
    r"|[<>\u2260\u2264\u2265\u2248]"
)
# A count's number: digits, or digits in groups of three ("1,200,000 people", round 22; "1,2" is
# a list or a decimal comma, never read here)
_COUNT = r"(?:\d{1,3}(?:,\d{3})+|\d{1,12})"
# "There are 12 distinct sequences that meet the conditions.": a count and the counted noun phrase
# (`math_commit.counted_noun`), nothing else.
_THERE_ARE = re.compile(
    rf"(?i)^there\s+(?:are|is)\s+(?P<count>{_COUNT})\s+(?P<noun>[a-z][a-z ]{{0,200}})$"
)
# "Final Answer: Jane started growing Sphere 3 hours ago.": an answer line whose words, plain
# letters only, end in a duration and "ago".
_AGO = re.compile(
    r"(?i)^(?P<lead>[a-z][a-z' ]{0,80}?)\s+(?P<ans>\d{1,6}\s+(?:years?|months?|weeks?|days?|hours?"
    r"|minutes?|seconds?))\s+ago$"
)
# "the minimum error in the measurement ... increases by 100%": with a change verb an error is a
# measured quantity (`math_grammar` admits only that form for it).
_CHANGE = re.compile(r"(?i)(?:in|de)creases\s+by")
_MEASURED_ERROR = re.compile(r"(?i)(?<![\w])error(?![\w])")
_ANSWER_LABEL = re.compile(r"(?i)(?:final\s+)?answer\s*:\s*")
_LABEL = re.compile(r"\(?\s*[A-Za-z](?:_\w+)?(?:\s*,\s*[A-Za-z](?:_\w+)?)*\s*\)?")
_LONE_UNKNOWN = re.compile(r"(?i)^\s*(?:the\s+)?(?:\$[^$]{1,20}\$|[a-z]|it|this|that)\s*$")


def _mode(text: str, plain_number: bool, modes: Sequence[str]) -> str | None:
    """The extraction mode that reads this answer, or None when none of `modes` does."""
    if "latex" in modes:
        return "latex"
    # one unpaired "$" is a currency sign ("$1,000.99", "1,000.99$"); a pair is LaTeX
    latex = "\\" in text.replace("\\$", "") or len(_DELIMITERS.findall(text)) > 1
    return "last_number" if "last_number" in modes and plain_number and not latex else None


def _stated(text: str, modes: Sequence[str]) -> tuple[str, str] | None:
    """(the answer text, its mode) when `text` is one answer, read whole."""
    stripped = text.strip().rstrip(".").strip()
    if not stripped:
        return None
    plain = _DELIMITERS.sub(" ", stripped).strip()
    try:
        answer = read(plain)
    except ReadError:
        return None
    mode = _mode(stripped, is_plain_number(answer.node), modes)
    return (plain, mode) if mode else None


def bare_answer(text: str, modes: Sequence[str], limit: int) -> tuple[str, str] | None:
    """The response is one answer: on one line (or in one display environment), within `limit`."""
    if len(text) > limit:
        return None
    if "\n" in text and not (text.startswith(("$$", "\\[")) and text.endswith(("$$", "\\]"))):
        return None
    return _stated(text, modes)


# "Therefore, the probability is\n$$\\frac{1}{2}.$$" (the usual MATH layout): a last display formula
# on its own line ends the unfinished sentence of the line before (round 20).
_DISPLAY_LAST = re.compile(
    r"[^\s.!?;](?P<gap>[ \t]*\n(?:[ \t]*\n)?)[ \t]*(?:\$\$|\\\[)[^\n$]{1,400}(?:\$\$|\\\])[ \t.]*$"
)


def _display_joined(text: str) -> str:
    """`text` with the line break before a last display formula that ends an unfinished sentence
    made a space, so the sentence is read as if written on one line (positions unchanged)."""
    m = _DISPLAY_LAST.search(text, max(0, len(text) - 420))
    if m is None:
        return text
    gap = m.group("gap")
    return text[: m.start("gap")] + " " * len(gap) + text[m.end("gap") :]


def final_sentence_answer(text: str, modes: Sequence[str], limit: int) -> tuple[str, str] | None:
    """The answer the last sentence states in one of the closed forms, or None."""
    text = _display_joined(text)
    kept = text.rstrip(" .\n")
    if kept.endswith("!") and kept[-2:-1].isdigit():
        return None  # "Result: 5!": 5, or 120?
    end = len(text.rstrip(" .!\n"))
    start = sentence_start(text, end, limit + 1)
    if start == end - limit - 1 and start > 0:
        return None  # a last sentence longer than the limit
    found = stated_in_sentence(unify(text[start:end]).strip(), modes, earlier=text[:start])
    # another value offered or reported around it ("My calculator shows 44. The total is 42.")
    # a doubt in the sentence before it ("I'm not sure. The total is 42.")
    if found is None or competing_value(text, end, found[0]) or doubt_before(text, start):
        return None
    return found


def _closed_form(
    rest: str, modes: Sequence[str], marked: bool, earlier: str = ""
) -> tuple[str, str] | None:
    """A count ("there are 12 sequences ..."), or in an answer line a time ago ("... 3 hours ago"),
    with no doubt, negation or bound anywhere in the sentence."""
    if doubt_problem(rest) or _BOUNDING_LEAD.search(rest):
        return None
    rest = rest.rstrip(" .")
    label = _ANSWER_LABEL.match(rest)
    if label:
        rest, marked = rest[label.end() :], True
    there = _THERE_ARE.fullmatch(rest)
    noun = there.group("noun").strip() if there else ""
    if there and (counted_noun(noun) or (earlier and named_count(noun, earlier))):
        return _stated(there.group("count"), modes)
    ago = _AGO.fullmatch(rest) if marked else None
    if ago and not NUMBER_WORDS.search(ago.group("lead")):
        return _stated(ago.group("ans"), modes)
    return None


def stated_in_sentence(
    sentence: str, modes: Sequence[str], marked: bool = False, earlier: str = ""
) -> tuple[str, str] | None:
    """The answer one sentence states in a closed form ("the probability is 2/3"), or None.
    `marked`: the sentence is an answer line's, so its subject may be anything ("Final Answer: The
    largest $n$ is 34")."""
    joined = _JOINED.search(sentence)
    if joined:  # "The area is 4 × 6 = 24, so the rectangle's area is 24 cm²": the last clause
        if doubt_problem(sentence[: joined.start()]):
            return None  # "It is not 24, so", "maybe 25, so"
        sentence = sentence[joined.start("rest") :]
    connective = _CONNECTIVE.match(sentence)
    rest = sentence[connective.end() :] if connective else sentence
    if connective and not doubt_problem(sentence[: connective.end()]):
        found = _stated(rest, modes)  # "So, 12."
        if found:
            return found
    if marked and earlier:  # "The final answer is 12 apples." where apples were named
        counted = _counted(rest, modes, earlier)
        if counted:
            return counted
    stated_as = _STATED_AS.fullmatch(rest)
    if stated_as:  # "$x \ge 5$ is the solution"
        return _stated(stated_as.group("ans"), modes)
    closed = _closed_form(rest, modes, marked, earlier)
    if closed is not None or doubt_problem(sentence):
        return closed
    offset = connective.end() if connective else 0
    for m in reversed(list(_COPULA.finditer(rest))):
        lead, answer = rest[: m.start()], rest[m.end() :]
        if _LEAD_VALUE.search(_DELIMITERS.sub("", lead)):
            continue  # "Four times nine is 37": the lead states values of its own
        if doubt_problem(lead) or _BOUNDING_LEAD.search(lead):
            continue
        # first line: the words before the answer are a plain commitment (`math_grammar`)
        if commitment_problem(sentence[: offset + m.end()]):
            continue
        named = (
            m.group("we")
            or m.group("act")
            or _ANSWER_NOUN.search(lead)
            or _LONE_UNKNOWN.match(lead)
            or (_CHANGE.search(m.group()) and _MEASURED_ERROR.search(lead))
        )
        label = m.group().strip() in ("=", ":") and lead.strip()
        if label and not (named or _LABEL.fullmatch(lead.strip())):
            continue  # "in step x = 5": a marked sentence's "=" needs a label or an answer noun
        if not (marked or named or not lead.strip()):
            continue
        answer = _AT_POINT.sub("", _IN_TOTAL.sub("", answer))  # "She spends $12.50 in total."
        found = _stated(answer, modes) or _counted(answer, modes, earlier)
        if found:
            return found
    return None


# A comma, then "so"/"thus"/"therefore"/"hence" starts the committing clause (`math_grammar`).
_JOINED = re.compile(r",\s+(?P<rest>(?:so|thus|therefore|hence)\s+(?!,).{1,400})$")
_IN_TOTAL = re.compile(
    r"(?i)\s+(?:in\s+total|in\s+all|altogether"
    # "It will take her 45 minutes to finish." (round 14): a closed purpose, never a range's "to"
    r"|to\s+(?:finish|complete|arrive|get\s+there|get\s+home)(?:\s+(?:it|them|the\s+[a-z]{2,20}))?"
    r")\s*\.?\s*$"
)
# "The vertex is at $(1, -4)$." (round 14): a point is stated "at" its coordinates
_AT_POINT = re.compile(r"(?i)^\s*at\s+(?=(?:\$|\\\()?\s*\()")
_COUNTED = re.compile(rf"(?P<count>{_COUNT}(?:\.\d+)?)\s+(?P<noun>[a-z].{{0,80}})")


def _counted(answer: str, modes: Sequence[str], earlier: str) -> tuple[str, str] | None:
    """ "7 cookies": a count and a word problem's own noun, spoken of earlier in the response
    (`math_commit.named_count`)."""
    m = _COUNTED.fullmatch(answer.strip().rstrip("."))
    if not m or not earlier or not named_count(m.group("noun"), earlier):
        return None
    return _stated(m.group("count"), modes)
