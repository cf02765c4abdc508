"""Which QA answer a response commits to, and whether it stands (the words of doubt are
`qa_doubt`'s). Strict by construction: where the response is unsure, says two things, or
withdraws what it says, it has no answer.

- The final answer is an `<answer>` tag, else an `Answer:` line, else a response of one line
  (lines holding only citations aside). Every tag, `Answer:` line and stated answer ("the answer
  is London", "London is the answer") must name the same answer: several that disagree are none.
- The answer's sentence and the one before it may hold no doubt ("maybe", "I think"), the 400
  characters before it no guess or not knowing ("a random guess", "I cannot determine", "not
  sure") nor a wrong mark, and the answer's clause no negation.
- The answer itself may carry no strikethrough (`~~Paris~~`, `<del>`, a stroke overlay), no
  symbolic negation (`!=`, `≠`, `¬`), no question mark and no doubt or disowning word that no gold
  has (`(?)`, `(MAYBE)`, `(WRONG)`).
- After it only citations (bracketed numbers, paragraph or document ids), end-of-text markers and
  closing punctuation may follow: a citation line or tag holding anything else, a word or a mark
  (`❌`, `?`) takes the answer back."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from stages.verifiers.qa_doubt import (
    DOUBT_BEFORE,
    GROUNDLESS,
    NO_COMMITMENT,
    WEAK_DOUBT,
    untitled,
    without_certainty,
)
from stages.verifiers.qa_doubt_languages import FOREIGN_DOUBT
from stages.verifiers.qa_hedges import CHANCE_OR_MEMORY, MORE_NO_COMMITMENT
from stages.verifiers.qa_labels import ANSWER_HEADING, ANSWER_LABEL, BOXED, box_content, unboxed
from stages.verifiers.qa_stance import (
    LEAD_IN,
    RESTRICTIVE,
    one_line_parts,
    resolved,
    stance_problem,
)
from stages.verifiers.qa_strict import END_MARKERS, QUOTES, strict_tokens

# `<answer>`, also spaced or named `final_answer`: a malformed tag still states an answer.
_TAG_OPEN = re.compile(r"<\s*(?:final[_\s-]?)?answer\b[^<>]*>", re.IGNORECASE)
_TAG_CLOSE = re.compile(r"<\s*/\s*(?:final[_\s-]?)?answer\s*>", re.IGNORECASE)
# Spaces within a line only (`[^\S\n]`): `^\s*` from every line start of a run of newlines
# rescans the run (quadratic). The value may stand on the next line ("Answer:\nParis"). Round
# 19: `=` and a dash separate the label too (`Answer = Paris`, `Answer — Paris`, `Answer - Paris`).
_ANSWER_LINE = re.compile(
    rf"(?im)^[^\S\n]*(?:#{{1,6}}[^\S\n]*+)?{LEAD_IN}*+[*_]*{ANSWER_LABEL}[*_]*[^\S\n]*"
    r"(?:[:：=\u2013\u2014\u2015]|(?<=[^\S\n])--?(?=[^\S\n]))[*_]*[^\S\n]*\n?[^\S\n]*(\S.*)$"
)
CITE_TAG = re.compile(
    r"<(?:cite|citations?|support)>(.*?)</(?:cite|citations?|support)>", re.DOTALL | re.I
)
CITE_LINE = re.compile(
    r"(?im)^[^\S\n]*(?:supporting paragraphs?|citations?|sources?)[^\S\n]*[:：][^\S\n]*(\S.*)$"
)
BRACKET_REF = re.compile(r"\[(?:paragraphs?\s*)?(\d+(?:\s*[,;]\s*\d+)*)\]", re.IGNORECASE)
# What a citation may hold: numbers, bracketed or not, and ids (`paragraph 2`, `doc3`, `P1`), never
# words: a retraction written as a source ("Sources: actually London") is text after the answer.
_CITATION_ITEM = (  # possessive: a long run of digits is read once, never split many ways
    r"[\[(]?\s*+(?:(?:paragraphs?|para|passages?|documents?|doc|p|#)\s*+[-_#]?\s*+)?\d++\s*+[\])]?"
)
_CITATIONS_ONLY = re.compile(
    # possessive spaces: three whitespace runs side by side read a long blank cubically
    rf"(?i)\s*+{_CITATION_ITEM}(?:\s*+(?:[,;&]|and)?\s*+{_CITATION_ITEM})*\s*+[.]?\s*+"
)
# An answer line that restates its phrase ("Answer: The answer is Paris.") states what follows.
_RESTATED = re.compile(
    r"(?i)^(?:so\s+|thus\s+|therefore\s+)?(?:(?:the|my)\s+(?:final\s+)?answer\s+is|it\s+is|it's"
    r"|that\s+is|this\s+is)\s*[:：]?\s+(?=\S)"
)
# "The answer is London", "My final answer: London", "London is the answer": a stated answer.
_STATED = re.compile(
    r"(?i)(?<![\w<>/])answer(?:\s+to\s+(?:the|this)\s+question)?\s*(?:is|was|would\s+be"
    r"|should\s+be|must\s+be|will\s+be|remains|[:：=])(?![\w])[\s*_]*(?P<value>[^\n]{0,200})"
)
# Another value called the right one in other words (round 16): "The correct city is Lyon.",
# "Best match → Lyon", "Top pick: Lyon". The judgement is lowercase: "the Right Bank is" names.
_CLAIMED = re.compile(
    r"(?<![\w<>/])(?:(?i:the|my|a)\s+(?:correct|right|true)\s+(?:[a-z]+\s+)?"
    r"|(?i:best|closest|top|likeliest)\s+(?i:match|pick|candidate|fit|choice|bet)\s*)"
    r"(?:is|was|would\s+be|[:\uff1a=]|\u2192|->|=>)(?![\w])[\s*_]*(?P<value>[^\n]{0,200})"
)
_STATED_BEFORE = re.compile(
    r"(?i)\s(?:is|was|would\s+be)\s+(?:the|my)\s+(?:final\s+|correct\s+|right\s+)?answer(?![\w>])"
)
# Words that point at an answer rather than state one ("Here is the answer:", "The answer is below:
# <answer>..", "So Paris is the answer").
_POINTER = re.compile(
    r"(?i)^(?:[\s:*_]|(?:below|as\s+follows|the\s+following|following|here|this|that|there|it"
    r"|simple|simply|therefore|thus|so|then|hence|now)(?![\w'])[\s:,.]*)+"
)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?\u3002\uff01\uff1f])\s+|\n+")
# In the answer's own clause: a negation ("It is not <answer>Paris</answer>").
_NEGATION = re.compile(
    r"(?i)(?<![\w'])(?:not|no|never|neither|nor|none|wrong|incorrect|false)(?![\w'])|n't(?!\w)"
)
_CLAUSE_BREAK = re.compile(r"[,;:\u2014]")
_STRIKE = re.compile(r"~|<\s*/?\s*(?:del|strike|s)\s*>|line-through", re.IGNORECASE)
_STRIKE_OPEN = re.compile(r"~~|<\s*(?:del|strike|s)\s*>", re.IGNORECASE)
_STRIKE_CLOSE = re.compile(r"~~|<\s*/\s*(?:del|strike|s)\s*>", re.IGNORECASE)
_SYMBOLIC_NEGATION = re.compile(
    r"!=|=/=|/=|=\\=|<>|[\u2260\u00ac\u2262\u2209\u2244\u2249\u2247\u2284\u2285]"
    r"|\\(?:neq?|not|lnot|neg)(?![a-zA-Z])|(?<![\w!])!(?=\s*\w)|(?<![\w-])[-\u2212](?=[^\W\d_])"
)
_QUESTION = re.compile(
    "[?\uff1f\u061f\u00bf\u2047\u2048\u2049\u203d\u2e2e\u2753\u2754\ufe56\U0001f914\U0001f937"
    "\u037e\u055e\u1367\ufe16\u2370\ua60f]"
)  # and the thinking face and the shrug; U+037E, the Greek question mark, looks like `;`
# An unchecked box (`[ ] Paris`, `☐ Paris`) leaves the option open: no answer. A checked one
# (`[x] Paris`, `☑`, `✅`, `✔`) on the answer's edge commits to it and is no word of it.
_UNCHECKED = re.compile("\\[\\s*\\]|[\u2610\u25a1\u25a2\u2b1c\u274f-\u2752\U0001f532\U0001f533]")
# a search starts only where a blank starts: from inside a long blank it re-read the blank
_CHECKED = re.compile(
    "^\\s*(?:[-*]\\s*)?(?:\\[[xX\u2713\u2714]\\]|[\u2611\u2705\u2713\u2714]\ufe0f?)\\s*"
    "|(?<!\\s)\\s*(?:\\[[xX\u2713\u2714]\\]|[\u2611\u2705\u2713\u2714]\ufe0f?)\\s*$"
)
_WRONG_MARK = re.compile("[\u274c\u274e\u2717\u2718\u2716\U0001f6ab\u26d4\U0001f44e]")
# Doubt or disowning words inside the answer ("<gold> (MAYBE)", "(WRONG)", "roughly 5").
_DOUBT_IN_ANSWER = re.compile(
    r"(?i)(?<![\w'])(?:maybe|perhaps|probably|possibly|likely|unlikely|guess|guessing|guessed"
    r"|unsure|uncertain|doubt|doubtful|dubious|wrong|incorrect|false|mistaken|mistake|erroneous"
    r"|fake|bogus|invalid|untrue|approx|approximately|roughly|circa|nearly|almost|about|around"
    r"|unconfirmed|unverified|disputed|tentative|questionable|retracted|withdrawn|sure|unsure"
    r"|confidence|confident|idk|dunno|nope|nah|non|anti|except|excluding|besides|instead"
    r"|rather|nor|neither)(?![\w'])"
)
# What may follow an answer once citations and end markers are gone: closing punctuation.
_CLOSING = re.compile(r"[\s.!,;:)\]}*_`\"'\u3002\uff01\u201d\u2019\u200b-\u200d\ufeff]+")
_WINDOW = 400  # characters of context read before the answer


@dataclass(frozen=True)
class Final:
    """The committed answer, the text before it and the text after it; `problem` says why there
    is no answer (then `answer` is empty)."""

    answer: str = ""
    before: str = ""
    rest: str = ""
    problem: str | None = None
    conflict: bool = False  # the problem is several answers, not none


def answer_key(text: str) -> tuple[str, ...]:
    """What two statements of an answer must share to be the same answer."""
    text = BRACKET_REF.sub(" ", untagged(text)).strip().strip("*_").strip()
    tokens = strict_tokens(text)
    return tuple(tokens) if tokens else (" ".join(text.lower().rstrip(".!").split()),)


def answer_tags(text: str) -> list[tuple[int, int, str]]:
    """(start, end, content) of every `<answer>..</answer>`, in one pass: a regex with a lazy
    body would rescan the rest of the text from every unclosed opener (quadratic)."""
    tags: list[tuple[int, int, str]] = []
    opener = _TAG_OPEN.search(text)
    while opener:
        closer = _TAG_CLOSE.search(text, opener.end())
        if not closer:
            break
        tags.append((opener.start(), closer.end(), text[opener.end() : closer.start()]))
        opener = _TAG_OPEN.search(text, closer.end())
    return tags


def untagged(text: str) -> str:
    """`text` with each answer tag replaced by its content."""
    parts, pos = [], 0
    for start, end, content in answer_tags(text):
        parts += [text[pos:start], content]
        pos = end
    return "".join([*parts, text[pos:]])


def read_final(response: str) -> Final:
    """The final answer (see the module docstring) and whether the response commits to it alone."""
    tags = answer_tags(response)
    # an `Answer:` line, in any of `qa_labels`' languages, or a heading with the answer below
    headings = [m for m in ANSWER_HEADING.finditer(response) if not _ANSWER_LINE.match(m[1])]
    lines = sorted([*_ANSWER_LINE.finditer(response), *headings], key=lambda m: m.start())
    if tags:
        start, end, content = tags[-1]
        final = Final(resolved(unboxed(content.strip())), response[:start], response[end:])
    elif lines:
        value = _line_value(lines[-1])
        final = Final(value, response[: lines[-1].start()], response[lines[-1].end() :])
    else:
        final = _one_line(response)
        if final.problem:
            return final
    committed = [unboxed(t[2].strip()) for t in tags] + [_line_value(m) for m in lines]
    committed += [box_content(m) for m in BOXED.finditer(response)]
    others = {resolved(c.strip()) for c in committed} - {final.answer}
    stated = _stated_values(response)
    if not others and not stated:
        return final
    key = answer_key(final.answer)
    if any(answer_key(other) != key for other in others):
        return Final(problem="several final answers that disagree", conflict=True)
    for value in stated:  # the first that disagrees: a megabyte of phrases is read no further
        if answer_key(value) != ("",) and not _agrees(value, final.answer, key):
            return Final(
                problem=f"the response states another answer: {value[:80]!r}", conflict=True
            )
    return final


def _line_value(line: re.Match[str]) -> str:
    """An answer line's value; one that restates its phrase ("Answer: The answer is Paris.")
    states what follows it."""
    value = unboxed(line.group(1).strip().strip("*_").strip())
    return resolved(_RESTATED.sub("", value, count=1) or value)


def _one_line(response: str) -> Final:
    """A response without a tag or an `Answer:` line answers only with one line (besides lines of
    citations or end markers): in a longer one the last line is no commitment ("The answer is
    London.\\n\\nParis")."""
    starts, offset = [], 0
    for line in response.splitlines(keepends=True):
        if after_answer(line):
            starts.append((offset, line))
        offset += len(line)
    if len(starts) > 1:
        return Final(problem="several lines and no <answer> tag or 'Answer:' line")
    if not starts:
        return Final()
    start, line = starts[0]
    lead, value = one_line_parts(line.strip())  # `No doubt about it: Lyon`, `The capital is X`
    rest = response[start + len(line) :]
    return Final(resolved(unboxed(value.strip())), response[:start] + lead + " ", rest)


def _stated_values(response: str) -> list[str]:
    """What the response states as the answer ("the answer is X", "X is the answer")."""
    plain = untagged(response)
    values = [m.group("value") for m in _STATED.finditer(plain)]
    values += [m.group("value") for m in _CLAIMED.finditer(plain)]
    for m in _STATED_BEFORE.finditer(plain):  # its sentence up to the phrase, at most 200 chars
        values.append(re.split(r"[\n.!?:;]", plain[max(0, m.start() - 200) : m.start()])[-1])
    cleaned = (
        resolved(unboxed(_POINTER.sub("", _RESTATED.sub("", raw.strip(), count=1))))
        for raw in values
    )
    return [value for value in cleaned if value]


def _agrees(value: str, answer: str, key: tuple[str, ...]) -> bool:
    """`value` states `answer`: the same answer whole, up to its sentence's end, or followed by a
    comma or a parenthesis ("Paris, the capital of France")."""
    sentence = re.split(r"(?<=\S)[.!?](?:\s|$)", value, maxsplit=1)[0]
    if key in (answer_key(value), answer_key(sentence)):
        return True
    head = " ".join(value.translate(QUOTES).strip("*_ ").lower().split())
    said = " ".join(answer.translate(QUOTES).lower().split())
    return head.startswith(said) and head[len(said) : len(said) + 1] in (",", ";", "(", "\u2014")


def problem_before(before: str, answer: str = "") -> str | None:
    """Doubt in the answer's sentence or the one before it, a guess or not knowing anywhere
    close before it (in any of `qa_doubt_languages`' languages), a negation in its clause, the
    answer denied or set beside another candidate earlier (`qa_stance`), or a strikethrough
    opened before it and not closed. Doubt words in a title are none (`_in_title`; `answer` is
    the final answer), nor are statements of certainty (`No doubt about it:`)."""
    if len(_STRIKE_OPEN.findall(before)) > len(_STRIKE_CLOSE.findall(before)) or (
        before.count("~~") % 2
    ):
        return "the answer is struck through"
    masked = without_certainty(before.translate(QUOTES))
    window = _without_answer(masked[-_WINDOW:], answer)
    parts = [p for p in _SENTENCE_BREAK.split(window) if p.strip()]
    own = parts[-1] if parts and not re.search(r"[.!?\n]\s*$", window) else ""
    doubt = next(
        (
            m
            for p in (
                NO_COMMITMENT,
                MORE_NO_COMMITMENT,
                CHANCE_OR_MEMORY,
                GROUNDLESS,
                FOREIGN_DOUBT,
            )
            if (m := untitled(p, window, answer))
        ),
        None,
    ) or next(
        (
            m
            for p in parts[-2:]
            for d in (DOUBT_BEFORE, WEAK_DOUBT)
            if (m := untitled(d, p, answer))
        ),
        None,
    )
    if doubt:
        return f"doubt stated before the answer ({doubt.group()!r})"
    clause = _CLAUSE_BREAK.split(own)[-1]
    negation = _NEGATION.search(RESTRICTIVE.sub(" ", clause))
    if negation:
        return f"the answer's clause negates it ({negation.group()!r})"
    return stance_problem(answer, masked)


def _without_answer(text: str, answer: str) -> str:
    """`text` with the answer's own words blanked where they hold doubt or a negation (a title:
    `The novel is titled Maybe Tomorrow.` before `Answer: Maybe Tomorrow`); where they hold none
    the answer stays, so that a run holding it reads as the answer hedged (`It's Probably Lyon`)."""
    said = answer.strip().translate(QUOTES)
    if not said or not any(
        p.search(said) for p in (DOUBT_BEFORE, NO_COMMITMENT, GROUNDLESS, WEAK_DOUBT, _NEGATION)
    ):
        return text
    spelled = re.compile(rf"(?i)(?<![\w']){re.escape(said)}(?![\w'])")
    return spelled.sub(lambda m: "it" + " " * (len(m.group()) - 2), text)


def problem_in(answer: str, golds: Sequence[str]) -> str | None:
    """Marks inside the answer that withdraw it, unless a gold has them too."""
    gold_text = " ".join(golds)
    overlaid = any(unicodedata.combining(c) == 1 or unicodedata.category(c) == "Me" for c in answer)
    if overlaid or (_STRIKE.search(answer) and not _STRIKE.search(gold_text)):
        return "the answer is struck through"
    negation = _SYMBOLIC_NEGATION.search(answer.translate(QUOTES))
    if negation and not _SYMBOLIC_NEGATION.search(gold_text.translate(QUOTES)):
        return f"the answer negates the gold ({negation.group()!r})"
    if _WRONG_MARK.search(answer) and not _WRONG_MARK.search(gold_text):
        return "the answer is marked wrong"
    if _UNCHECKED.search(answer) and not _UNCHECKED.search(gold_text):
        return "the answer's box is unchecked: no choice made"
    if len(_QUESTION.findall(answer)) > max(len(_QUESTION.findall(g)) for g in golds):
        return "the answer is a question (doubt), not a statement"
    gold_words = {w.lower() for g in golds for w in re.findall(r"\w+", g)}
    for m in _DOUBT_IN_ANSWER.finditer(answer):
        if m.group().lower() not in gold_words:
            return f"the answer holds a word of doubt ({m.group()!r})"
    return None


def after_answer(rest: str) -> str:
    """What follows the final answer besides citations, end markers and closing punctuation: an
    answer taken back (`<answer>Canberra</answer> Wait, no. It is Sydney.`), explained away, or
    marked wrong (`❌`)."""
    rest = CITE_TAG.sub(lambda m: _citation_or_text(m.group(1)), rest)
    rest = CITE_LINE.sub(lambda m: _citation_or_text(m.group(1)), rest)
    rest = END_MARKERS.sub(" ", BRACKET_REF.sub(" ", rest))  # `</s>`, `<|im_end|>`
    return " ".join(_CLOSING.sub(" ", rest).split())


def _citation_or_text(content: str) -> str:
    return " " if _CITATIONS_ONLY.fullmatch(content) else f" {content} "


def strip_inline_citations(answer: str, golds: Sequence[str]) -> str:
    """`Paris [2]`: a bracketed citation in the answer cites, it is no word of it; nor is a
    checked box or a check mark on its edge (`[x] Paris`, `✅ Paris`)."""
    if not any(_CHECKED.search(g) for g in golds):
        answer = _CHECKED.sub(" ", answer, count=1)
    if not any("(" in g for g in golds):  # `Kyoto (paragraph 3)`, round 16
        answer = _CITED_IN_PARENS.sub(" ", answer)
    if any("[" in g for g in golds):
        return answer
    return " ".join(BRACKET_REF.sub(" ", answer).split())


# a parenthesis that names a passage, a paragraph or a document, and only that
_CITED_IN_PARENS = re.compile(
    r"(?i)\(\s*+(?:(?:see|source|from|per|cf\.?)[:\s]\s*+)?(?:paragraphs?|para\.?|passages?"
    r"|documents?|doc\.?|sources?)\s*+[-_#]?\s*+\d++(?:\s*+(?:[,;&]|and)\s*+\d++)*+\s*+\)"
)
