"""The complement of a final sentence's subject ("the value of $x$", "the number of ways to choose
them", "the probability that both are red") is open text. Round 27 found that a word list could
not close it: "the answer for the easier version", "the answer that the calculator gives", "the
answer that fails the check" each passed. These rules read its shape instead:

- another problem: a version, variant, case, example, instance, scenario or part it is the answer
  for, or a problem, question or task other than "the/this/our/given" one;
- another source: a relative clause with a subject of its own ("that the calculator gives", "that
  most people give", "which is what Bob got"), not a subject relative ("that satisfies the
  equation") nor a content clause ("the probability that the sum is even");
- a set-aside or changed answer: an answer, value or result "that fails the check", "that gets
  eliminated", "satisfying only the first condition", "when the sign is flipped".

Each rule reads the lowercase words `math_grammar` matched as a commitment (inline math is "m")."""

from __future__ import annotations

import re

_PROBLEM_NOUN = r"(?:problems?|questions?|exercises?|tasks?|puzzles?|prompts?)"
# "for the easier version", "of a different problem", "for part (b)"; "the problem" is the asked one
_OTHER_PROBLEM = re.compile(
    r"(?<![\w'])(?:for|of|to|in|on)\s+(?:[\w'-]+\s+){0,3}?"
    r"(?:versions?|variants?|variations?|cases?|examples?|instances?|scenarios?|sub-?problems?"
    r"|setups?|set-ups?|simplifications?|analogu?es?|toy|part\s*\(?[a-z0-9]\)?(?![\w'])"
    r"|(?<!the\s)(?<!this\s)(?<!our\s)(?<!given\s)(?<!original\s)(?<!above\s)(?<!stated\s)"
    rf"(?<!asked\s){_PROBLEM_NOUN})(?![\w'])"
)
# a relative clause whose subject is its own: "that the calculator gives", "which most people give"
_OWN_SUBJECT = (
    r"(?:the|a|an|this|these|those|that|my|your|his|her|its|our|their|most|many|some|all|every"
    r"|each|any|no|one|other|another|someone|somebody|everyone|everybody|people|nobody|i|we|you"
    r"|he|she|they|it)"
)
# "that" after a noun whose "that" opens a content clause ("the probability that the sum is"), or
# after the grammar's own leads ("this means that", "we find that", "such that"): no relative
_NOT_RELATIVE = "".join(
    rf"(?<!{word}\s)"
    for word in (
        "probability", "chance", "odds", "likelihood", "ways", "way", "times", "fact", "such",
        "so", "means", "mean", "find", "get", "obtain", "have", "conclude", "is", "shows", "see",
        "for", "in", "of", "on", "at", "by", "to", "with", "from",  # "for which the equation has"
    )
)  # fmt: skip
_OBJECT_RELATIVE = re.compile(
    rf"(?<![\w']){_NOT_RELATIVE}(?:that|which|whom|who)\s+{_OWN_SUBJECT}(?![\w'])"
    r"|(?<![\w'])(?:what|whatever)(?![\w'])"
)
# a subject relative opens with its verb: "that can be written as", "which is given by"
_AUXILIARY = (
    r"(?:can|could|may|might|will|would|shall|should|must|is|are|was|were|be|been|has|have|had"
    r"|do|does|did|also|only|both|each|all|not|never|always)"
)
# a reporting verb after a subject of the relative clause: "that Bob got", "that WolframAlpha shows"
_REPORTED = re.compile(
    rf"(?<![\w']){_NOT_RELATIVE}(?:that|which|whom)\s+(?!{_AUXILIARY}\s)(?:[\w'-]+\s+){{1,3}}(?:got|gets|get|gave|gives|give|given"
    r"|shows?|showed|shown|says?|said|reports?|reported|claims?|claimed|displays?|displayed"
    r"|outputs?|prints?|printed|returns?|returned|reads|suggests?|suggested|predicts?|predicted"
    r"|thinks?|thought|believes?|believed|expects?|expected|guess(?:es|ed)?|picks?|picked"
    r"|chooses?|chose|chosen|wrote|writes?|written|lists?|listed|states?|stated|computes?"
    r"|computed|calculates?|calculated|finds?|found|obtains?|obtained|derives?|derived|proposes?"
    r"|proposed|offers?|offered|provides?|provided|produces?|produced|quotes?|quoted|prefers?"
    r"|preferred|recalls?|remembers?|remembered|accepts?|accepted|marks?|marked)(?![\w'])"
)
# "fails the check", "satisfying only the first condition", "satisfying the second condition"
_CHECK = (
    r"(?:checks?|tests?|verification|substitution|conditions?|constraints?|requirements?|domain"
    r"|equations?|inequalit(?:y|ies)|criteri(?:a|on)|restrictions?)"
)
_FAILS_OR_PART = re.compile(
    rf"(?<![\w'])(?:fail(?:s|ed|ing)?\s+(?:[\w'-]+\s+){{0,2}}{_CHECK}"
    r"|(?:satisf\w*|meet\w*|meets|met|pass\w*|fulfil\w*|work\w*|hold\w*|valid|true)\s+only"
    r"|(?:satisf\w*|meet\w*|met|pass\w*|fulfil\w*)\s+(?:the\s+)?(?:first|second|third|last|one"
    r"|some|either|part|half)(?![\w'])|only\s+(?:the\s+)?(?:first|second|third|last|some|part"
    r"|half|one\s+of))(?![\w'])"
)
# an answer, value or result the clause sets aside, or the answer to a changed problem
_ANSWER_HEAD = re.compile(
    r"(?<![\w'])(?:answers?|results?|solutions?|values?|roots?|zeros?|candidates?|options?"
    r"|choices?|outcomes?|numbers?|integers?)\s+(?:that|which|who|satisfying|meeting|when|whenever"
    r"|where|if|for|with|obtained|given|after)(?![\w'])"
)
_SET_ASIDE = re.compile(
    r"(?<![\w'])(?:fail\w*|eliminat\w*|exclud\w*|discard\w*|reject\w*|invalid\w*|extraneous"
    r"|violat\w*|disqualif\w*|dropped|thrown|crossed|flipped|swapped|reversed|negated|ignor\w*"
    r"|misread\w*|mistaken|careless|distractor|trap|spurious|bogus|fake|decoy|erroneous|bad"
    r"|only|partial\w*|partly|\w+n't|removed|struck|cancel\w*|omit\w*|skip\w*|dismiss\w*)(?![\w'])"
)
# "when the sign is flipped", "if the constraint is ignored": the answer of a changed problem; a
# condition of the asked one stays ("the remainder when $2^{100}$ is divided by 7", "when $x = 2$")
_CHANGED = re.compile(
    r"(?<![\w'])(?:when|whenever|if|unless|assuming|supposing|once)\s+(?:[\w'-]+\s+){0,5}?"
    r"(?:chang\w*|ignor\w*|flip\w*|swap\w*|revers\w*|negat\w*|remov\w*|dropp\w*|omit\w*"
    r"|replac\w*|alter\w*|modif\w*|relax\w*|wrong\w*|different|instead|typos?|mistak\w*"
    r"|forg[oe]t\w*|neglect\w*|overlook\w*|skipp\w*|doubl\w*|halv\w*|mis(?:read|interpret|count"
    r"|calculat|appl|cop|tak|understo|judg|plac)\w*|drop|dropped|flipped)(?![\w'])"
)

# the answer itself under a condition with a verb: "the answer when the minus is read as a plus"
_ANSWER_UNDER = re.compile(
    r"(?<![\w'])(?:answers?|results?|solutions?|values?|roots?|outcomes?)\s+(?:when|whenever|if"
    r"|unless|once|assuming)\s+(?:[\w'-]+\s+){0,5}?(?:is|are|was|were|be|been|gets?|got|becomes?"
    r"|became)\s+[\w'-]"
)


def complement_problem(clause: str) -> str | None:
    """Why the committing `clause` (lowercase, math as "m") answers another problem, reports
    another source or names a set-aside answer, or None."""
    for rule, what in (
        (_OTHER_PROBLEM, "another problem"),
        (_OBJECT_RELATIVE, "another source"),
        (_REPORTED, "another source"),
        (_FAILS_OR_PART, "a set-aside answer"),
        (_CHANGED, "a changed problem"),
        (_ANSWER_UNDER, "a changed problem"),
    ):
        found = rule.search(clause)
        if found:
            return f"the subject names {what} ({found.group()!r})"
    head = _ANSWER_HEAD.search(clause)
    aside = _SET_ASIDE.search(clause, head.start()) if head else None
    if aside:
        return f"the subject names a set-aside answer ({aside.group()!r})"
    return None
