"""Words that disown an answer: the sentence stating it (or the one before) says it is not the
response's own committed final answer. Each class is a way a stated value is something else:

- negated or refuted ("cannot be", "it is untrue that", "we ruled out", "nobody should conclude");
- a bound, not the value ("a lower bound for the answer is", "at worst", "goes up to");
- a value with another role ("step 1 gives", "the discarded root", "a careless student gets",
  "a common misconception", "decoy:", "red herring:");
- a possibility or a past, superseded answer ("one possible answer", "a plausible candidate",
  "I thought the answer was", "earlier I got", "old answer:", "draft answer:");
- someone else's ("my classmate got", "Student A's result", "the other team obtained");
- an exercise, a condition or a counterfactual ("prove that", "homework:", "for even n",
  "ignoring the constraint", "had the train been on time", "would be");
- another scale or base ("in thousands", "in base 8"), a mark of wrongness (❌, strikethrough).

The list grows with what attackers find; the sentence rules around it (`math_commit`) are closed
lists of what is allowed. Phrases that also open legitimate finals stay out ("the smallest possible
value is", "the number of students is", "the initial velocity is")."""

from __future__ import annotations

import re

_DISOWN = re.compile(
    r"(?i)(?<![\w'])(?:cannot|can't|nobody|nothing|untrue|myth|fails?\s+to|ruled\s+out|rule\s+out"
    r"|disprove[ds]?|refuted?|refutes|impossible|bounds?|bounded|at\s+(?:worst|best)|up\s+to\s+at"
    r"|(?:answer|value|result|total)\s+can\s+be|step\s*(?:\d|one|two|three|four|five)|intermediate"
    r"|discard(?:ed|s)?|extraneous|reject(?:ed|s)?|misconception|careless|flawed|sloppy|attempt"
    r"|draft|decoy|herring|avoid|typo|struck|strike|superseded|obsolete|outdated|bad\s+answer"
    r"|warm-?up|provisional|preliminary|one\s+possible|a\s+possible|another\s+possible"
    r"|possible\s+answer|candidate|plausible|thought|earlier\s+(?:i|we)|originally|initially"
    r"|previously|previous|old\s+(?:answer|result|value|solution)|at\s+first|used\s+to|classmate"
    # an answer named as an earlier or unfinished one ("Original answer:", round 20); not a
    # value or solution, which a problem's own words name ("its initial value was $x$": MV suite)
    r"|(?:original|initial|first|prior|earlier|tentative|preliminary|interim|rough|working)"
    r"\s+(?:answers?|results?|guess|attempt|estimate)"
    r"|teammate|my\s+friend|a\s+friend|textbook|other\s+(?:team|person|people|group|solver|model"
    r"|student)|solution\s+sheet|answer\s+key|prove|exercise|homework|ignoring\s+the"
    r"|without\s+(?:the|this|that|my|our)\s+(?:\w+\s+)?(?:step|constraint|condition|correction|check)"
    r"|before\s+correcting|degenerate|special\s+case|instead|were\s+the|had\s+(?:the|i|we|it|they"
    r"|he|she)|for\s+(?:even|odd)|in\s+(?:base|binary|octal|hex|hexadecimal|thousands|hundreds"
    r"|millions|billions|dozens|tens|units\s+of)|base\s*\d|don't\s+know|do\s+not\s+know|no\s+clue"
    r"|incorrect|wrong|(?:an?|contains\s+an?|in)\s+error|mistake|erroneous|not:)"
    r"(?!\w)|\w's\s+(?:\w+\s+){0,2}(?:answer|guess|claim|result|work|attempt)"
    r"|[❌✗✘☒🚫⛔👎]|<s>|<strike>|<del>|~~|\\(?:sout|st|cancel|xcancel|bcancel)(?![a-zA-Z])"
)


def disowned(text: str) -> str | None:
    """The words of `text` that disown an answer stated in or after it, or None."""
    found = _DISOWN.search(text)
    return found.group() if found else None
