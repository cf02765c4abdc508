"""The words of doubt that take a QA answer back, and when such words are a name instead: a title
("the album Random Access Memories", "\"I Don't Know\" is the opening track") holds them without
doubting anything. `qa_commit.problem_before` reads them."""

from __future__ import annotations

import re

# Personal doubt before the answer: a guess, not a commitment.
DOUBT_BEFORE = re.compile(
    r"(?i)(?<![\w'])(?:sure|confidence|confident|maybe|perhaps|possibly|tentative"
    # "Probably Approximately Correct" (PAC learning) names a topic
    r"|probably(?!(?<=(?-i:P)robably)(?-i:\s+Approximately\s+Correct)(?![\w']))"
    r"|tentatively|hopefully|luck|unclear|doubt|doubtful|who\s+knows|hard\s+to\s+(?:say|tell)"
    r"|top\s+of\s+my\s+head|(?:i|we)\s+(?:think|believe|suppose|bet|assume|reckon|suspect)"
    r"|(?:might|could|may)\s+(?:well\s+)?be|without\s+(?:\w+\s+)?(?:checking|verifying)"
    r"|(?:i'?d|i\s+would)\s+say"
    # round 15: "Most likely", "Presumably", "I lean towards Paris over Lyon", "Not 100% on this",
    # "If I'm not mistaken", "going with Paris" (after a choice)
    r"|likely|presumably|supposedly|lean(?:s|ing)?\s+(?:towards?|to)|not\s+(?:100|a\s+hundred)"
    r"\s*(?:%|percent)|if\s+i'?m\s+not\s+mistaken|if\s+i\s+am\s+not\s+mistaken"
    r"|if\s+(?:i\s+)?remember\s+(?:correctly|rightly)|if\s+memory\s+serves"
    r"|(?:going|go|i'?ll\s+go|i\s+will\s+go|went)\s+with|either\s+[^.;\n]{1,60}?\s+or"
    # the same family in other words: odds, recall, best bets, appearances
    r"|chances\s+are|odds\s+are|in\s+all\s+likelihood|if\s+i\s+recall|iirc|afaik|as\s+far\s+as\s+i"
    r"\s+(?:know|can\s+tell|recall)|to\s+the\s+best\s+of\s+my\s+(?:knowledge|memory|recollection)"
    r"|(?:my\s+)?best\s+(?:bet|guess|estimate)|my\s+money\s+is\s+on|i'?d\s+(?:go|bet|wager)"
    r"|(?:i\s+)?(?:would|'d)\s+guess|leaning|tentatively|seems?\s+to\s+be|appears?\s+to\s+be|seemingly"
    r"|apparently|reportedly|allegedly|arguably|not\s+(?:entirely|completely|totally|fully|100%)"
    r"\s+(?:sure|certain|confident)|fairly\s+(?:sure|confident)|pretty\s+(?:sure|confident)"
    r"|could\s+be\s+either|one\s+of\s+(?:these|those|the\s+following)"
    # after round 15's fixes: "I'd lean Paris", "Assuming I recall correctly", "Paris seems right"
    r"|(?:i|i'?d|i\s+would|we)\s+lean|(?:recall|remember)(?:ing)?\s+(?:correctly|rightly|right)"
    r"|seems?\s+(?:right|correct|likely|plausible|reasonable|like)|it\s+seems"
    r"|sounds?\s+(?:right|about\s+right|plausible|correct))(?![\w'])"
)
# ... and anywhere in the 400 characters before it, saying that it is no answer at all: a guess,
# not knowing, a wrong mark ("I have no idea. Let me just pick one. <answer>Paris</answer>").
NO_COMMITMENT = re.compile(
    r"(?i)(?<![\w'])(?:unsure|uncertain|uncertainty(?!\s+principle|\s+relations?)|guess|guessing"
    # a topic's name is no doubt, and only a named term is one ("Random forests", "random
    # variable", "Random House"); "a random sample", "a random number generator" pick by chance
    r"|guessed|guesswork|guesstimate|hunch|dunno|idk|random(?!\s+(?:forests?|variables?"
    r"|access\s+memory|matri(?:x|ces))(?![\w'])|(?<=(?-i:R)andom)(?-i:\s+House)(?![\w']))"
    r"|randomly|arbitrary|arbitrarily"
    r"|speculate|speculating|speculative"
    r"|speculation|insufficient|no\s+idea|no\s+clue|clueless|beats\s+me|shot\s+in\s+the\s+dark"
    r"|coin\s+(?:flip|toss)|not\s+(?:sure|certain|enough|positive)"
    r"|(?:cannot|can\s*not|can't|could\s*n[o']t|unable\s+to)\s+(?:\w+\s+)?(?:determine|tell"
    r"|say|know|find|answer|verify|confirm|identify|figure|be\s+certain)"
    r"|(?:don't|do\s+not|didn't|did\s+not)\s+know|(?:impossible|no\s+way)\s+to\s+(?:say|tell"
    r"|know|determine)|lack(?:ing)?\s+(?:of\s+)?(?:information|evidence|context)"
    # round 16: "Going out on a limb:", "It's 50/50 between", "Don't quote me on this",
    # "Eeny, meeny", "Wild stab:", "My money's on"
    r"|(?:out\s+)?on\s+a\s+limb|(?:50\s*/\s*50|fifty[\s-]+fifty|toss[\s-]?up)(?=\s+(?:between|on|here"
    r"|call|guess|chance|shot))|(?:it'?s|it\s+is|that'?s)\s+(?:a\s+)?(?:50\s*/\s*50|fifty[\s-]+fifty"
    r"|toss[\s-]?up)|(?:don't|do\s+not)\s+quote\s+me|eeny|(?:wild|blind)\s+stab|take\s+a\s+stab"
    r"|stab\s+in\s+the\s+dark|my\s+money(?:'s|\s+is|'d\s+be|\s+would\s+be)\s+on)(?![\w'])"
    r"|[\u274c\u274e\u2717\u2718\u2716\U0001f6ab\u26d4\U0001f44e\U0001f914\U0001f937]"
)


def untitled(pattern: re.Pattern[str], text: str, answer: str) -> re.Match[str] | None:
    """The first match of a doubt `pattern` in `text` that is no title's word (`_in_title`)."""
    for m in pattern.finditer(text):
        if not _in_title(text, m, answer):
            return m
    return None


def _in_title(text: str, m: re.Match[str], answer: str) -> bool:
    """Whether the doubt words `m` are part of a name: capitalised in a run of capitalised words
    that a word (not punctuation) introduces mid-sentence ("the album Random Access Memories",
    round 15; "released The Maybe Man", "the lead singer of No Doubt", round 16), or a quoted
    title ("\"I Don't Know\" is the opening track"). A run that holds the answer is the answer
    hedged ("It's, Maybe Lyon" / "Honestly Probably Lyon. Answer: Lyon"), never a title."""
    if not m.group()[:1].isupper():
        return False
    line_start = text.rfind("\n", 0, m.start()) + 1
    line_end = (text.find("\n", m.end()) + 1 or len(text) + 1) - 1
    quoted = _QUOTED_TITLE.search(text, line_start, line_end)
    while quoted and quoted.end() <= m.start():
        quoted = _QUOTED_TITLE.search(text, quoted.end(), line_end)
    if quoted and quoted.start() < m.start() and m.end() <= quoted.end():
        return not _holds(quoted.group(), answer)
    run_start = m.start()
    previous = _CAPITALISED_BEFORE.search(text, line_start, run_start)
    if previous:
        run_start = previous.start(1)
    following = _TITLE_NEXT.match(text, m.end())
    if not previous and not following:
        return False
    introduced = _WORD_BEFORE.search(text, line_start, run_start)
    run = text[run_start : following.end() if following else m.end()]
    return bool(introduced) and not _holds(run, answer)


def _holds(run: str, answer: str) -> bool:
    return bool(answer.strip()) and answer.strip().lower() in run.lower()


_TITLE_NEXT = re.compile(r"\s+[A-Z][a-z]\w*")
_CAPITALISED_BEFORE = re.compile(r"(?<![\w'])([A-Z][\w']*)\s+\Z")
_WORD_BEFORE = re.compile(r"[A-Za-z]\s+\Z")  # a word, then the run: mid-sentence, no comma
# a short quoted run of capitalised words: a song's, a book's or a film's title
_QUOTED_TITLE = re.compile(
    r"[\"\u201c]((?:[A-Z0-9][\w'\u2019.,!?-]*|of|the|a|an|and|in|on|to|for|at)"
    r"(?:\s+(?:[A-Z0-9][\w'\u2019.,!?-]*|of|the|a|an|and|in|on|to|for|at)){0,8})[\"\u201d]"
)


# Round 17: a choice made without grounds, in other words than the lists above name ("I'm just
# picking the likelier city", "Going purely on gut feel"), and two candidates left standing
# ("equally plausible", "both remain candidates"): read anywhere in the window, as NO_COMMITMENT.
# Built from three notions: a choice without grounds (a choosing verb after `just`, or aimed at
# "whichever" / "the likelier one"), a feeling as the grounds (gut, instinct, intuition, vibes),
# and evidence said to be silent; and two candidates still open.
_CHOOSE = (
    r"(?:pick|picks|picking|picked|choose|chooses|choosing|chose|select|selects|selecting|opt"
    r"|opts|opting|go|goes|going|say|saying|guess|guessing|plump|plumping)"
)
GROUNDLESS = re.compile(
    rf"(?i)(?<![\w'])(?:(?:just|simply|merely|arbitrarily|blindly)\s+{_CHOOSE}"
    rf"|{_CHOOSE}\s+(?:for\s+|with\s+)?(?:the\s+)?(?:whichever|either|likelier|likeliest|safer"
    r"|safest|more\s+(?:likely|plausible|probable)|one\s+at\s+random)"
    r"|(?:my|on|pure|purely|sheer|from|by\s+my|a)\s+(?:gut|instinct|intuition|hunch|vibes?)"
    r"|gut\s+(?:feel\w*|instinct\w*|sense|call|says|tells|reaction|check)|instinctively"
    r"|intuitively|(?:on\s+a\s+)?whim|sixth\s+sense|vibes|educated\s+guess"
    r"|if\s+(?:i|we)\s+(?:had|have)\s+to\s+(?:choose|pick|guess|say|bet|answer)"
    r"|(?:is|are)\s+silent\s+(?:on|about)|say\s+nothing\s+(?:on|about)"
    r"|equally\s+(?:plausible|likely|possible|probable|valid|viable|good|strong|supported|fitting)"
    r"|(?:both|either)\s+(?:\w+\s+){0,2}(?:candidates|contenders|plausible|possible|viable|fit)"
    r"|torn\s+between|(?:can'?t|cannot|couldn'?t)\s+decide|undecided|a\s+tie\s+between"
    r"|intuition|gut\s+feeling|(?:just|only|purely|merely)\s+(?:a\s+)?(?:feeling|hunch|impression)"
    r"|play(?:ing)?\s+the\s+odds|the\s+odds\s+favou?r|(?:take|taking)\s+a\s+punt|punt(?:ing)?\s+on"
    r"|roll(?:ing)?\s+(?:of\s+)?the\s+dice|leap\s+of\s+faith|for\s+(?:lack|want)\s+of"
    r"|without\s+(?:any\s+|much\s+)?(?:evidence|basis|grounds|support)|no\s+(?:basis|grounds)\s+"
    r"(?:to|for)|(?:best|all)\s+i\s+can\s+(?:do|offer|say)"
    r"|(?:dead\s+)?heat\s+between)(?![\w'])"
)
# ... and in the answer's sentence or the one before, weaker words, as DOUBT_BEFORE
WEAK_DOUBT = re.compile(
    r"(?i)(?<![\w'])(?:likelier|likeliest|probable|plausible|plausibly|conceivabl[ey]"
    r"|(?:i|we)\s+feel|feel(?:s|ing)?\s+like|my\s+feeling|from\s+memory|ballpark)(?![\w'])"
)
# Certainty is no doubt: "No doubt about it: Lyon", "I'm certain.", "Without a doubt". Masked
# before the doubt and negation words are read; "I'm not sure", "pretty sure" stay doubt.
CERTAIN = re.compile(
    r"(?i)(?<![\w'])(?:(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:(?:absolutely|completely|totally"
    r"|entirely|very|100\s*%)\s+)?(?:certain|sure|confident|positive)(?!\s+(?:that\s+)?(?:it'?s"
    r"\s+|it\s+is\s+)?(?:not|n't))(?:\s+(?:of|about)\s+(?:it|this|that))?"
    # a bare "Certain:" / "Absolutely sure." opening a sentence (never "pretty sure", "not sure")
    # (blanks within the line, possessive: `\s*` from every newline of a run read it quadratically)
    r"|(?:(?<=[.!?\n])|^)[^\S\n]*+(?:(?:absolutely|completely|totally|100\s*%)\s+)?(?:certain|sure"
    r"|positive)(?=\s*[:!.,\u2014])|(?:there(?:'s|\s+is)\s+)?(?:no|without\s+(?:a|any)|beyond"
    r"\s+(?:a|any|all)(?:\s+reasonable)?)\s+(?:doubt|question)(?:\s+about\s+it|\s+in\s+my\s+mind)?"
    r"|for\s+(?:sure|certain)|with\s+(?:full\s+|complete\s+|total\s+)?(?:certainty|confidence))"
    r"(?![\w'])"
)


def without_certainty(text: str) -> str:
    """`text` with its statements of certainty blanked (same length)."""
    return CERTAIN.sub(lambda m: " " * len(m.group()), text)
