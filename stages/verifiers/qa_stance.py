"""Where a QA response stands on its answer, read by construction rather than by lists of phrases
(red team round 17):

- A closed grammar of commit lead-ins may stand before the answer on its own line: statements of
  certainty (`I'm certain.`, `No doubt about it:`, `Definitely,`) and connectives (`So,`); then
  `Answer:`, or, in a response of one line, the answer itself, optionally after a copula whose
  subject names what is asked (`The capital is Canberra.`). Anything else on that line is words
  of the answer.
- Negation is scoped to the clause that holds it: `X, not Y` and `not Y, but X` (also `— it's X`,
  `rather than Y`, `instead of Y`) commit to X; a contrast whose two sides share words is none.
- Before the answer, the answer in a clause that denies it (`It is false that the answer is Lyon`,
  `Lyon is ruled out`) or named beside another candidate (`Lyon versus Grenoble`, `The clues fit
  Lyon as well as Grenoble`) means the response commits to no answer."""

from __future__ import annotations

import re

from stages.verifiers.qa_doubt import DOUBT_BEFORE, GROUNDLESS, NO_COMMITMENT, WEAK_DOUBT
from stages.verifiers.qa_doubt_languages import FOREIGN_DOUBT
from stages.verifiers.qa_strict import QUOTES, strict_tokens

# A relative clause that restates the question, then the copula: "The champion who never lost a
# fight is <answer>X</answer>" (round 15). Its negation is said of a deed, never of a judgement
# ("the city that is not the answer is", "which is not correct is" keep theirs).
# The speaker is never its subject, nor is a judgement or a choice its verb or in its words ("the
# one that I would never choose is", "which I didn't think was correct is" keep theirs).
_SPEAKER = r"(?:i|we|you|me|us|my|our|your)(?![\w'])"
_JUDGED = (
    r"(?:think|thought|believe|believed|choose|chose|chosen|pick|picked|select|selected|accept"
    r"|accepted|consider|considered|count|counted|agree|agreed|mean|meant|say|said|trust|trusted"
    r"|expect|expected|guess|guessed|recommend|recommended|endorse|endorsed|mark|marked|rate|rated"
    r"|give|gave|given|answer|answers|answered|pay|paid|hold|holds|apply|applies|correct|right"
    r"|true|wrong|false|valid|accurate|sure|certain|option|options|choice|choices)(?![\w'])"
)
RESTRICTIVE = re.compile(
    rf"(?i)(?<![\w'])(?:who|which|that|whose)\s+(?:(?!{_SPEAKER})[a-z]+\s+){{0,2}}?(?:never|not|no"
    r"|(?:did|does|has|have|had|could|would)n't)\s+(?!(?:be|is|was|are|were|been|being|the|a|an"
    rf"|my|our|quite|really|actually|it|this|that)(?![\w'])|{_JUDGED})"
    rf"[a-z]{{3,}}(?:\s+(?!{_SPEAKER}|{_JUDGED})[a-z0-9'-]+){{0,10}}(?=\s+(?:is|was|are|were)\s*$)"
)
_CERTAIN_LEAD = (
    r"(?:(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:(?:absolutely|completely|totally|entirely|very"
    r"|100\s*%)\s+)?(?:certain|sure|confident|positive)(?:\s+(?:of|about)\s+(?:it|this|that))?"
    r"|(?:(?:absolutely|completely|totally|100\s*%)\s+)?(?:certain|sure|positive)|(?:there(?:'s|\s+is)\s+)?(?:no|without"
    r"\s+(?:a|any)|beyond\s+(?:a|any|all))\s+(?:doubt|question)(?:\s+about\s+it)?|definitely"
    r"|certainly|undoubtedly|unquestionably|clearly|obviously|absolutely|of\s+course|for\s+sure"
    r"|for\s+certain|indeed|confirmed|confidently|so|thus|therefore|hence"
    r"|(?:i|we)\s+have\s+no\s+doubts?(?:\s+about\s+it|\s+whatsoever)?|no\s+doubts?\s+here)"
)
# one lead-in and the mark that closes it; possessive blanks, so runs of them are read once
LEAD_IN = rf"(?:{_CERTAIN_LEAD}[^\S\n]*+[.:,!\u2014\u2013-]++[^\S\n]*+)"
_LEADS = re.compile(rf"(?i){LEAD_IN}*+")
# "The capital is", "Its name was": a subject of at most 80 characters that names what is
# asked (a bare "It was X" stays words of the answer); a negated copula ("The capital isn't Sydney, it's Canberra") negates what follows it
_COPULA = re.compile(
    r"(?i)(?:(?:the|its|his|her|their|this|that)\s+[^\n.!?;:]{1,80}?\s+(?:is|was|are|were"
    r"|(?P<neg>isn't|is\s+not|wasn't|was\s+not|aren't|are\s+not|weren't|were\s+not))"
    r")\s+(?=\S)"
)
# certainty after the answer closes it as a lead-in opens it: "Lyon, no doubt.", "Lyon, for sure".
# It starts after a non-blank (lookbehind): a search from inside a long run of blanks would read
# the rest of the run again at each position (20 KB of spaces: 1.9 s).
_CERTAIN_TAIL = re.compile(
    r"(?i)(?<!\s)\s*[,\u2014\u2013]\s*(?:no\s+doubt(?:\s+about\s+it)?|without\s+(?:a|any)\s+doubt"
    r"|for\s+sure|for\s+certain|definitely|certainly|undoubtedly|(?:i'?m|i\s+am)\s+(?:certain"
    r"|sure|positive))\s*[.!]?\s*\Z"
)


def one_line_parts(line: str) -> tuple[str, str]:
    """(lead, value) of a response of one line: the lead-ins and copula before its answer."""
    lead = _LEADS.match(line).end()
    copula = _COPULA.match(line, lead)
    end = copula.end() if copula else lead
    tail = _CERTAIN_TAIL.search(line, end)
    value = line[end : tail.start() if tail else len(line)]
    if copula and copula.group("neg"):  # the negation moves into the value it negates
        return line[: copula.start("neg")], "not " + value
    return line[:end], value


_SIDE = r"[^,;()\n\u2014\u2013]{1,120}?"
_THEN_NOT = re.compile(
    rf"(?i)\s*(?P<x>{_SIDE})(?:\s*(?:,|;|\(|\u2014|\u2013|\s-)\s*(?:and\s+|but\s+)?(?:not|never)"
    r"|\s+(?:and|but)\s+(?:not|never)"
    rf"|\s+(?:rather\s+than|instead\s+of))\s+(?P<y>{_SIDE})\s*\)?\s*[.!]?\s*"
)
_NOT_THEN = re.compile(
    rf"(?i)\s*(?:(?:definitely|certainly|clearly|surely|absolutely|obviously)\s+)?not\s+"
    rf"(?P<y>{_SIDE})(?:\s*(?:[,;:\u2014\u2013]|\s-)\s*(?:but\s+)?|\s+but\s+)"
    rf"(?:(?:it'?s|it\s+is|it\s+was|rather|instead|actually)\s+)*(?P<x>{_SIDE})\s*[.!]?\s*"
)
_NEGATED = re.compile(r"(?i)(?<![\w'])(?:not|no|never|neither|nor|none)(?![\w'])|n't(?!\w)")


def resolved(answer: str) -> str:
    """The side of a contrast the answer commits to: `Canberra, not Sydney` and `not Sydney —
    it's Canberra` are `Canberra`. A side that is negated itself, or that shares a word with the
    other (`Lyon, not Lyon`), leaves the answer as written (its negation then fails it)."""
    said = answer.strip()
    if len(said) > 400 or "\n" in said:  # a contrast is one phrase: no regex over a long text
        return answer
    m = _THEN_NOT.fullmatch(said) or _NOT_THEN.fullmatch(said)
    if not m:
        return answer
    x, y = m.group("x").strip(), m.group("y").strip()
    if not x or _NEGATED.search(x) or set(strict_tokens(x)) & set(strict_tokens(y)):
        return answer
    return x if _RIVAL.fullmatch(y) and not any(p.search(f"not {y}") for p in _DOUBTS) else answer


# The rejected side names a rival: a name, a number or a quotation, one phrase; never a word
# of doubt or of judgement ("Lyon, not sure", "Not entirely sure. Answer: Lyon" keep theirs).
_RIVAL = re.compile(r"(?:(?:the|a|an)\s+)?[A-Z0-9\"'\u201c][^.!?:\n]{0,79}")
_DOUBTS = (DOUBT_BEFORE, NO_COMMITMENT, GROUNDLESS, WEAK_DOUBT, FOREIGN_DOUBT)


_CLAUSES = re.compile(r"[.!?;:,\n\u3002\u2014\u2013()]|(?<![\w'])but(?![\w'])")
_DENIAL = (
    r"not|no|never|neither|nor|none|false|wrong|incorrect|untrue|impossible|cannot|can't"
    r"|rule[sd]?\s+out|ruling\s+out|exclude[sd]?|excluding|eliminate[sd]?|eliminating|reject(?:s|ed)?"
    r"|dismiss(?:es|ed)?|discard(?:s|ed)?|disqualif\w+|rather\s+than|instead\s+of|mistaken"
    r"|nobody|nothing|no\s+one|fail(?:s|ed)?|off\s+the\s+table|disprov\w+|refut\w+"
    r"|contradict\w*|den(?:y|ies|ied)|[a-z]+n't"
)
_DENIED_AFTER = re.compile(rf"(?i)\s*+(?:[a-z']+\s+){{0,3}}?(?:{_DENIAL})(?![\w'])")
# the clause after the answer's, when it is a bare denial: "Lyon? No.", "Lyon. Wrong."
_DENIED_NEXT = re.compile(
    r"(?i)[\s?!.,;:\u2014\u2013]*+(?:no|nope|nah|wrong|incorrect|false|not\s+it|not\s+quite)"
    r"\s*+(?:[.!,;:\u2014\u2013]|\Z)"
)
_DENIED_BEFORE = re.compile(rf"(?i)(?<![\w'])(?:{_DENIAL})(?![\w'])")
_ABBREVIATED = re.compile(r"(?i)(?<![\w'])(vs|v)\.")
_CANDIDATE = r"(?:the\s+)?(?:[A-Z0-9][\w'.-]*)"
_JOINED = r"\s*,?\s*(?:and|or|nor|versus|vs\.?|v\.?|as\s+well\s+as|&|/)\s*"
_FIT = re.compile(
    r"(?i)(?<![\w'])(?:candidates?|contenders?|options?|possibilit(?:y|ies)|alternatives?|fits?"
    r"|fitting|match(?:es|ing)?|plausible|possible|viable|likely|equally|tied?|remains?|either"
    r"|qualif\w+|consistent|compatible|could|might|suspects?|versus|vs)(?![\w'])"
)


def stance_problem(answer: str, before: str) -> str | None:
    """Why the text before the answer takes it back: the answer in a clause that denies it, or
    named beside another candidate (`before` with its statements of certainty blanked)."""
    said = answer.strip().translate(QUOTES).lower()
    if not any(c.isalnum() for c in said) or len(said) > len(before):
        return None
    text = _ABBREVIATED.sub(r"\1 ", before.translate(QUOTES))  # `Lyon vs. Grenoble`: one clause
    start = 0
    for brk in (*_CLAUSES.finditer(text), None):
        end = brk.start() if brk else len(text)
        problem = _clause_problem(text[start:end], said, text, start)
        if problem:
            return problem
        start = brk.end() if brk else end
    return None


def _clause_problem(clause: str, said: str, text: str, start: int) -> str | None:
    lowered = clause.lower()  # once: lowering per occurrence read a long clause quadratically
    at = lowered.find(said)
    while at >= 0:
        left, right = clause[max(0, at - 300) : at], clause[at + len(said) : at + len(said) + 200]
        if _bounded(left, right):
            if _DENIED_BEFORE.search(RESTRICTIVE.sub(" ", left)) or _DENIED_AFTER.match(right):
                return f"the response denies the answer before stating it: {clause.strip()[:80]!r}"
            sentence = _sentence(text, start + at, start + at + len(said))
            if _other_candidate(left, right, sentence):
                return f"the response names another candidate beside it: {sentence.strip()[:80]!r}"
        at = lowered.find(said, at + 1)
    if lowered.rstrip().endswith(said) and _DENIED_NEXT.match(text, start + len(clause)):
        return f"the response denies the answer before stating it: {clause.strip()[:80]!r}"
    return None


def _bounded(left: str, right: str) -> bool:
    return not (left[-1:].isalnum() or right[:1].isalnum())


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence around text[start:end], at most 400 characters either side: clauses joined
    up to a full stop or a line break."""
    head = max(text.rfind(c, max(0, start - 400), start) for c in ".!?\n\u3002")
    tails = [i for i in (text.find(c, end, end + 400) for c in ".!?\n\u3002") if i >= 0]
    return text[max(head + 1, start - 400) : min(tails) if tails else min(len(text), end + 400)]


def _other_candidate(left: str, right: str, sentence: str) -> bool:
    """The answer joined to another name (`Lyon and Grenoble`, `Grenoble or Lyon`, `Lyon versus
    Grenoble`) in a sentence that weighs them as answers (a word of fit or candidacy)."""
    after = re.match(rf"(?i:{_JOINED}){_CANDIDATE}", right)
    before = re.search(rf"(?<![\w']){_CANDIDATE}(?i:{_JOINED})\Z", left[-120:])
    return bool((after or before) and _FIT.search(sentence))
