"""More ways to say, before the answer, that it is no answer (red team round 18), read like
`qa_doubt.NO_COMMITMENT` anywhere in the window before the answer.

- not knowing with a word inside the phrase: "I do not really know", "I don't honestly know",
  "I don't quite know", "I've no real idea";
- idioms for not knowing: "I haven't the foggiest", "not the faintest idea", "search me",
  "your guess is as good as mine", "anyone's guess", "I'm stumped", "I'm at a loss";
- refusing to commit: "I refuse to commit", "I won't commit to this", "without committing",
  "I'm not prepared to stand behind it";
- saying the answer is made up: "pulling this out of thin air", "I'm making this up", "I
  invented it", "pure fabrication", "I'm bluffing".

Certainty that names these words stays clean: "I know it" has none, and "I'm not making this
up" negates the admission."""

from __future__ import annotations

import re

_ADVERB = r"(?:really|honestly|actually|truly|quite|exactly|precisely|even|fully|entirely|totally|genuinely|rightly|reliably|for\s+sure|for\s+certain)"
_HAVE_NOT = (
    r"(?:have\s*n[o']t|haven't|has\s*n[o']t|hasn't|not|no|without)\s+(?:got\s+)?(?:the\s+|a\s+)?"
)
MORE_NO_COMMITMENT = re.compile(
    r"(?i)(?<![\w'])(?:"
    rf"(?:don't|dont|do\s+not|didn't|did\s+not|doesn't|does\s+not)\s+(?:{_ADVERB}\s+){{1,2}}know"
    rf"|(?:can't|cannot|can\s+not|couldn't|could\s+not)\s+(?:{_ADVERB}\s+){{1,2}}(?:say|tell|know)"
    # "the faintest doubt" is certainty: these words are doubt alone or before idea/clue/notion
    rf"|{_HAVE_NOT}(?:foggiest|(?:faintest|slightest|remotest|vaguest|first|least|real|clear)"
    r"(?:\s+(?:idea|clue|notion)|(?=\s*(?:[.,;:!\u2014\u2013]|$))))"
    r"|(?:no|not\s+an?)\s+(?:real\s+|earthly\s+)(?:idea|clue|notion)"
    r"|search\s+me|(?:your|one's)\s+guess\s+is\s+as\s+good|any(?:one|body)'?s\s+guess"
    r"|(?:i'm|i\s+am)\s+(?:stumped|at\s+a\s+loss|drawing\s+a\s+blank|in\s+the\s+dark)"
    # refusing to commit
    r"|(?:refuse|decline|won't|will\s+not|wouldn't|would\s+not|can't|cannot|unwilling|not\s+willing"
    r"|not\s+prepared|reluctant|hesitant|hesitate)\s+(?:to\s+)?(?:fully\s+|really\s+)?commit"
    r"|without\s+committing|not\s+committing|non-?committal"
    r"|(?:won't|will\s+not|can't|cannot|not\s+prepared\s+to|refuse\s+to)\s+"
    r"(?:stand\s+behind|vouch\s+for|swear\s+(?:to|by))"
    # admitting it is made up; "I'm not making this up" denies it
    r"|out\s+of\s+thin\s+air|(?<!not\s)(?<!never\s)(?<!n't\s)(?:making|made|make)\s+"
    r"(?:this|it|that|something|things)(?:\s+one)?\s+up"
    r"|(?<!not\s)(?:pulling|pulled|pull)\s+(?:this|it|that)\s+out\s+of"
    r"|(?:i|i've|i\s+have)\s+(?:just\s+)?(?:invented|fabricated)"
    r"|(?:pure|total|complete)\s+(?:fabrication|invention|fiction)|(?:i'm|i\s+am)\s+bluffing"
    r")(?![\w'])"
)
