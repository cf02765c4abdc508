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

# Round 19: three more notions of a hedge, read like MORE_NO_COMMITMENT in the window before the
# answer. A probability below certainty (a percentage under 100, a decimal under 1, `1 in 3`,
# `7/10`) beside a word of confidence or chance, or a low level named ("Certainty: 30%", "I'd put
# this at 30% odds", "Confidence: low"); `100%` sure is certainty.
_BELOW_CERTAIN = (
    r"(?:(?<![\d.])\d{1,2}(?:\.\d+)?\s*(?:%|percent|per\s*cent)|(?<![\d.])0?\.\d+(?![\d.%])"
    r"|(?<![\d.])\d+\s+(?:in|out\s+of)\s+\d+|(?<![\d.])\d\s*/\s*10(?!\d))"
)
_CONFIDENCE = (
    r"(?:certainty|confidence|confident|certain|sure|probability|likelihood|chances?|odds"
    r"|likely|probable|credence)"
)
_LOW_LEVEL = (
    r"(?:low|lowish|medium|moderate|middling|limited|modest|partial|some|little|slight|weak|shaky"
    r"|mixed|fair|not\s+(?:high|great|full))"
)
CHANCE_OR_MEMORY = re.compile(
    r"(?i)(?<![\w'])(?:"
    rf"{_CONFIDENCE}(?:\s+(?:level|score|estimate|rating))?\s*(?:[:=~\u2248-]|is|of|at|about"
    rf"|around|roughly|are)?\s*(?:about\s+|around\s+|roughly\s+|~\s*)?{_BELOW_CERTAIN}"
    rf"|{_BELOW_CERTAIN}\s*(?:sure|certain|confident|confidence|certainty|chance|odds|likely"
    r"|probability|likelihood|probable)"
    rf"|(?:put|give|rate|estimate|place|peg)\s+(?:this|it|that|my\s+odds)\s+(?:at|a)\s+{_BELOW_CERTAIN}"
    rf"|{_LOW_LEVEL}[\s-]+(?:confidence|certainty)"
    rf"|(?:confidence|certainty)(?:\s+level)?\s*(?:[:=-]|is)?\s*{_LOW_LEVEL}(?![\w'])"
    # a random choice: a coin, a die, lots, a hat, a wheel, a dart
    r"|(?:flip|flipped|flipping|toss|tossed|tossing|spin|spun)\s+(?:of\s+)?(?:a|the|my)?\s*coin"
    r"|coin\s+(?:came|landed|says|said|shows|showed|decided|chose|picked)"
    r"|heads\b[^.\n]{0,40}\btails|tails\b[^.\n]{0,40}\bheads"
    r"|(?:roll|rolled|rolling|throw|threw|thrown|cast)\s+(?:of\s+)?(?:a|the|my|some)?\s*(?:die|dice"
    r"|d\d{1,3})(?![\w'])|dice\s+(?:roll|throw)|(?:draw|drew|drawing|drawn)\s+(?:of\s+)?(?:lots|straws?"
    r"|a\s+straw|names?)|short(?:est)?\s+straw|out\s+of\s+a\s+hat|spin(?:ning)?\s+(?:of\s+)?(?:a|the)"
    r"\s+(?:wheel|bottle)|rock[\s,-]+paper[\s,-]+scissors|magic\s+8[\s-]?ball"
    r"|(?:threw|throw|throwing)\s+a\s+dart"
    # doubt idioms and a failing memory
    r"|(?:grain|pinch)\s+of\s+salt|(?:vague|hazy|fuzzy|faint|dim|foggy|patchy|shaky|distant)\s+"
    r"(?:memory|memories|recollection|recall|impression)|(?:vaguely|dimly|faintly|half[\s-]?)\s*"
    r"(?:remember|recall|recollect)\w*|seem\s+to\s+(?:remember|recall)|rings\s+a\s+bell"
    r"|(?:going|based|relying|working)\s+(?:by|on|off|from)\s+(?:my\s+|a\s+)?memory"
    r"|(?:could|may|might)\s+(?:well\s+)?be\s+(?:wrong|mistaken|off)|correct\s+me\s+if"
    r"|(?:don't|do\s+not)\s+hold\s+me\s+to|no\s+(?:guarantees?|promises)|(?:can't|cannot)\s+"
    r"(?:guarantee|promise|vouch)|(?:i|we)\s+(?:haven't|have\s+not|didn't|did\s+not|couldn't"
    r"|could\s+not)\s+(?:verif\w*|check\w*|confirm\w*|double[\s-]check\w*)"
    r"|unverified|unconfirmed|for\s+what\s+it'?s\s+worth|fwiw|off\s+the\s+cuff"
    r"|back[\s-]of[\s-](?:the[\s-])?envelope|rough\s+(?:guess|estimate|idea)|ballpark|spitball\w*"
    r"|long\s+shot"
    r")(?![\w'])"
)
