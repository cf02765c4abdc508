"""What may follow a final answer in its own sentence (`math_commit.tail_problem`): the closed forms
of a count's noun ("distinct possible values for $B$"), a word problem's own noun spoken of before
("\\boxed{12} apples in total"), the rate or purpose asked for ("624 pages a year", "for
babysitting"), the point in time ("after 5 years") and, from round 21, the place the question
named ("\\boxed{18} dollars every day at the farmers' market"). Closed lists of what is allowed;
any other text after an answer may take it back."""

from __future__ import annotations

import re

# A count's noun after a boxed count ("there are $\\boxed{2}$ distinct possible values for $B$"): closed
# adjectives and plural nouns, then perhaps a short complement of plain words or one-letter math.
_COUNT_NOUN = (
    r"(?:(?:distinct|different|possible|unique|such|valid|positive|negative|nonnegative|real"
    r"|integer|ordered|complex|prime|total|arithmetic|geometric)\s+)*(?:values|solutions|answers|ways|integers|numbers"
    r"|pairs|points|roots|zeros|digits|terms|sequences|triples|elements|subsets|arrangements"
    r"|permutations|combinations|outcomes|possibilities|choices|functions|polynomials|triangles"
    r"|squares|rectangles|paths|divisors|factors|multiples|primes|lattice\s+points)"
    r"(?:\s+(?:for|of|in|that|which|satisfying|to)(?:\s+(?:[a-z]+|\$[A-Za-z](?:_[A-Za-z0-9])?\$)){1,8})?"
)
# The rate or purpose the question asked for after a count ("624 pages a year", "5 dollars per
# hour"; round 15). A purpose is closed: "for" and one word, a gerund or a thing the response
# spoke of before ("for babysitting", "for the glasses", "for the tank to fill"), checked by
# `purpose_ok`; never a part, case or condition ("for the first week", "for now", "for the wrong
# problem", "for the time being"), which would make the number one answer among others.
_RATE_OR_PURPOSE = (
    r"(?:a|an|per|each|every|in\s+(?:a|an|one))\s+(?:year|month|fortnight|week|day|night|hour"
    r"|minute|second)"
    r"|for\s+(?:(?:the|her|his|their|its)\s+)?(?P<purpose>[a-z]{2,20})(?:\s+to\s+[a-z]{2,20})?"
    r"(?![a-z])"
)
_NOT_A_PURPOSE = frozenset(
    ("first", "second", "third", "fourth", "last", "next", "final", "part", "parts", "half",
     "step", "steps", "stage", "now", "each", "every", "per", "one", "some", "most", "many",
     "case", "cases", "example", "instance", "odd", "even", "positive", "negative", "large",
     "small", "all", "both", "any", "only", "just", "other", "another", "extra", "option",
     "choice", "alternative", "two", "three", "four", "five", "six", "seven", "eight", "nine",
     "ten", "eleven", "twelve", "dozen", "dozens", "hundreds", "thousands", "millions", "twice",
     "double", "triple", "him", "her", "them", "me", "us", "you", "it", "this", "that", "these",
     "those", "starters", "nothing", "something", "anything", "everything", "guessing",
     "estimating", "rounding", "approximating", "starting", "beginning", "checking", "testing",
     "being", "sure")
)  # fmt: skip


# The place the question named, restated after the answer ("Janet makes \\boxed{18} dollars every
# day at the farmers' market", round 21's m21-021): "at", "in", "on" or "from", a determiner and
# one to three plain words, checked by `purpose_ok`; never a part, time, case or scale ("in the
# first week", "at the end", "in the worst case", "in the thousands", "in the form"), which would
# make the number one of several or another quantity.
_PLACE = (
    r"(?:\s*,?\s*(?:at|in|on|from)\s+(?:the|her|his|their|its|our)\s+"
    r"(?P<place>[a-z]{2,20}(?:'s|')?(?:\s+[a-z]{2,20}(?:'s|')?){0,2}))"
)
_NOT_A_PLACE = frozenset(
    ("end", "ending", "start", "middle", "beginning", "best", "worst", "least", "same", "previous",
     "answer", "answers", "question", "questions", "problem", "problems", "textbook", "book",
     "key", "long", "short", "meantime", "meanwhile", "future", "past", "limit", "range", "base",
     "total", "sum", "event", "scenario", "morning", "evening", "afternoon", "original",
     "initial", "current", "wrong", "incorrect", "draft", "estimate", "guess", "moment", "form",
     "units", "tens", "percent", "solution", "solutions", "result", "results", "way", "order",
     "sense", "end", "context", "interval", "domain", "neighborhood", "neighbourhood", "notation",
     "hypothetical", "scenario", "opposite", "reverse", "other", "rest", "remainder", "meantime",
     "calculation", "calculations", "computation", "working", "work", "table", "list",
     # a source or a record of someone's answer ("on the calculator", "in the notes")
     "calculator", "computer", "screen", "display", "internet", "web", "notes", "worksheet",
     "key", "solutions", "manual", "slides",
     # a part of the mathematics, not of the word problem ("in the denominator", "in the
     # expansion"): the number is a piece of an answer, not the answer
     "numerator", "denominator", "exponent", "coefficient", "expansion", "expression",
     "equation", "equations", "formula", "series", "sequence", "position", "place", "row",
     "column", "digit", "digits", "term", "terms", "entry", "matrix", "product", "quotient",
     "difference", "factorization", "factorisation", "decimal", "fraction", "polynomial",
     "argument", "power", "root", "roots", "system", "inequality", "step", "steps", "line")
)  # fmt: skip


_ORDINALS = frozenset(
    ("fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth", "nth",
     "penultimate", "latter", "former", "later", "earlier", "prior", "following")
)  # fmt: skip


def purpose_ok(m: re.Match[str], earlier: str) -> bool:
    """A matched purpose (if any) is a gerund or a thing spoken of before the answer, and a
    matched place (if any) names no part, time, case or scale."""
    place = (m.groupdict().get("place") or "").lower().replace("'", " ").split()
    if any(w in _NOT_A_PLACE or w in _NOT_A_PURPOSE or w in _ORDINALS for w in place):
        return False  # "in the fifth week" as "in the first week"
    word = (m.group("purpose") or "").lower()
    if not word:
        return True
    if word in _NOT_A_PURPOSE:
        return False
    return word.endswith("ing") or bool(
        re.search(rf"(?i)(?<![\w-]){re.escape(word)}(?![\w-])", earlier[-4000:])
    )


# A word problem's own nouns after its count ("\\boxed{12} apples in total"): one to three
# lowercase words, the last one spoken of before the answer; never a word that scales, divides,
# operates on or qualifies the number ("tens", "halves", "squared", "approximately")
_NAMED_COUNT = re.compile(
    r"(?P<words>[a-z]{2,20}(?:[ -][a-z]{2,20}){0,2}?)"
    r"(?:\s+(?:in\s+total|in\s+all|altogether|left(?:\s+over)?|remaining|"
    + _RATE_OR_PURPOSE
    + "))?"
    + _PLACE
    + "?"
    r"[\s$*_.!,;]*"
)
_NOT_A_NOUN = re.compile(
    r"(?:^|[ -])(?:[a-z]*(?:teen|ty|ths?|tens|halves|halfs|thirds|quarters|hundred|thousand|illion"
    r"|dozen|score|gross|grand|lakh|crore|fold|ed|ly|ing|ish)s?|is|are|was|were|be|or|and|if|not"
    r"|no|nor|at|as|to|by|per|each|every|apiece|over|under|above|below|up|down|off|from|with"
    r"|without|than|about|around|roughly|nearly|almost|maybe|perhaps|probably|possibly|likely"
    r"|approx|times|plus|minus|mod|modulo|squared|cubed|factorial|inverse|reciprocal|root|roots"
    r"|power|powers|percent|pct|base|digits?|decimal|radians?|degrees?|units?|too|so|only|just"
    r"|but|yet|then|else|instead|rather|unless|when|since|because|wrong|incorrect|false|true"
    r"|right|correct|answer|answers|solution|result|value|values|guess|estimate|sure|unsure"
    r"|new|old|first|second|last|next|other|another|more|less|most|least|fewer|few|many|some"
    r"|all|any|none|both|either|neither|half|double|twice|triple|single|pairs?|sets?|groups?"
    r"|batch(?:es)?|packs?|boxes|bags|rows|stacks|cases|dozens|hands|teams|lots|sides|faces"
    r"|i|we|you|he|she|it|they|me|us|him|her|them|this|that|these|those|the|an?)(?=$|[ -])"
)


def named_count(rest: str, earlier: str) -> re.Match[str] | None:
    """`rest` as the nouns a word problem counts (`apples in total`) where the last of them was
    spoken of before the answer (`earlier`); a word that can change what the number means
    (`tens`, `halves`, `squared`, `more`, `pairs`: a pair is two) is never one."""
    m = _NAMED_COUNT.fullmatch(rest)
    if not m or _NOT_A_NOUN.search(m.group("words")) or not purpose_ok(m, earlier):
        return None
    last = re.split(r"[ -]", m.group("words"))[-1]
    # "vans" counts the "van" spoken of before ("Each van carries 8 people"), and "boxes" the "box"
    forms = "|".join(re.escape(f) for f in _singular_forms(last))
    if not re.search(rf"(?i)(?<![\w-])(?:{forms})(?![\w-])", earlier[-4000:]):
        return None
    return m


# Irregular plurals (round 23: "1,200 children" counts the "child" of the working), both ways
_IRREGULAR = {
    "children": "child",
    "mice": "mouse",
    "people": "person",
    "men": "man",
    "women": "woman",
    "feet": "foot",
    "teeth": "tooth",
    "geese": "goose",
}
_IRREGULAR |= {single: plural for plural, single in _IRREGULAR.items()}


def _singular_forms(noun: str) -> set[str]:
    """The noun, and what its singular may be where it is a plural ("vans" -> "van", "boxes" ->
    "box", "houses" -> "house", "pennies" -> "penny", "children" -> "child")."""
    forms = {noun, _IRREGULAR.get(noun.lower(), noun)}
    if noun.endswith("s") and not noun.endswith("ss") and len(noun) > 3:
        forms |= {noun[:-1], noun[:-2] if noun.endswith("es") else noun}
        if noun.endswith("ies"):
            forms.add(noun[:-3] + "y")
    return forms


# What may follow the final answer in its own sentence.
CLOSING_REST = re.compile(
    r"(?i)(?:,?\s*(?:which|this|that)\s+)?(?:(?:is|was|would be|will be|are)\s+"
    r"(?:the|our|my)\s+(?:(?:final|correct|right|only)\s+)*(?:answer|solution|result|value|one)s?"
    r"|\\p?mod\s*\{?\s*\d+\s*\}?|\\?\(\s*mod\s+\d+\s*\\?\)"
    r"|left(?:\s+over)?|remaining|in\s+total|in\s+all|altogether"  # "\boxed{18} dollars left"
    # "So Tom is \boxed{12} years old.", "\boxed{6} feet tall": the measure's own adjective
    r"|old|tall|long|wide|high|deep|away"
    r"|"
    + _RATE_OR_PURPOSE  # "\boxed{10} dollars for babysitting": its unit read with the box
    +
    # "worth \boxed{\$16386.17} after 5 years": the point in time the value is stated for
    r"|after\s+(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+"
    r"(?:years?|months?|weeks?|days?|hours?|minutes?|seconds?|quarters?))?" + _PLACE + "?"
)
COUNT_REST = re.compile(rf"(?i){_COUNT_NOUN}")
# Words that make a count's complement about something else ("values less than the answer").
COUNT_OTHER = re.compile(
    r"(?i)(?<![\w'])(?:not|no|never|than|more|less|fewer|too|wrong|incorrect|previous|other|part"
    r"|step|times|thousands?|hundreds?|millions?|dozens?|percent|fewer|extra|short|off|but|except"
    r"|excluding|besides|plus|minus|bound|estimate|guess|draft|old|discarded|rejected)(?![\w'])"
)


def counted_noun(text: str) -> bool:
    """`text` is a count's noun phrase ("distinct arithmetic sequences that meet the given
    conditions") about the counted things themselves, not about something else."""
    counted = COUNT_REST.fullmatch(text)
    return counted is not None and not COUNT_OTHER.search(text)
