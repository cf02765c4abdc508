"""The closed list of words that may follow a bare number as its unit (red team round 19).

A gold of digits only (`12`, `1500`) is answered by its number and the unit or noun the question
counts in (`12 km`, `1,500 people`). Until round 19 any word passed that was no scale, era,
bound or ordinal, so a hedge or a remark took the unit's place: `12 apparently`, `12 (estimate)`,
`12 (jk)`, `1500 (也许)`. Now the word must be on this list, by construction: units of measure
(SI and imperial, as symbols and names), currencies, and the nouns questions count (people,
soldiers, episodes, goals, ...). A word not listed is no unit, however honest; a bracketed word
never is one (`12 (km)` reads as a remark)."""

from __future__ import annotations

import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())  # a list of words reads better as text than as literals


_MEASURES = _words(
    """
    m km cm mm nm um mi ft yd au ly pc meter metre kilometer kilometre centimeter centimetre
    millimeter millimetre nanometer nanometre micrometer micrometre mile foot feet inch inches
    yard parsec furlong league fathom lightyear
    g kg mg ug lb lbs oz gram kilogram milligram microgram pound ounce ton tonne stone carat ct
    s sec secs ms second minute min mins h hr hrs hour day week year yr yrs decade century
    centuries millennium millennia fortnight
    ha hectare acre l ml cl dl liter litre milliliter millilitre gallon gal pint quart cup barrel
    degree deg kelvin celsius fahrenheit
    mph kmh kph knot
    w kw mw gw watt kilowatt megawatt gigawatt j kj joule kilojoule calorie cal kcal kwh hp
    horsepower volt v amp ampere hz khz mhz ghz hertz rpm psi pa kpa bar atm decibel db
    b kb mb gb tb byte bit kilobyte megabyte gigabyte terabyte pixel px bps kbps mbps
    dollar usd cent euro eur pound gbp pence penny yen jpy yuan cny rmb rupee inr franc peso
    ruble rouble lira krona krone shilling dinar dirham rand won baht
    """
)
_COUNTED = _words(
    """
    people person persons individual inhabitant resident citizen soldier troop man men woman
    women child children kid student pupil member employee worker staff player athlete fan
    spectator visitor tourist passenger vote voter seat delegate death casualty victim fatality
    injury survivor refugee prisoner
    copy unit item piece book novel volume page chapter song track album film movie
    episode season game match goal point run wicket win victory loss defeat draw title trophy
    medal award prize nomination championship race lap round cap appearance start inning stroke
    shot hole set touchdown basket
    floor storey story room bed building house school hospital church temple mosque island
    country state province city town village district county municipality region territory
    language dialect species genus word letter character line verse stanza act scene movement
    symphony opera play painting work patent invention paper article poem sonnet opus
    ship vessel aircraft plane car vehicle train station lane bridge tunnel moon planet
    star satellite galaxy element atom molecule cell chromosome gene bone tooth teeth leg wing
    egg animal horse cattle sheep dog cat bird fish tree store shop restaurant location office
    company firm bank branch team club franchise party dynasty generation wife husband son
    daughter sibling brother sister grandchild grandchildren king queen emperor president pope
    term tour concert show performance step stage phase level grade class course edge vertex
    vertices side face angle string note pin life lives
    """
)
_UNITS = _MEASURES | _COUNTED
# the number, then one word of letters (a final period allowed): `1,500 people.`, `42km`
_NUMBER_THEN_WORD = re.compile(r"\s*+(?P<number>.*?[^\W_])\s*+(?P<word>[^\W\d_]++)\.?\s*+")
# a remark in any brackets is no unit: `12 (estimate)`, `12 [jk]`, `1500 【也许】`
_BRACKETS = re.compile(r"[()\[\]{}<>\uff08\uff09\u3010\u3011\u3014\u3015\u300a\u300b\u2329\u232a]")


def listed_unit(word: str) -> bool:
    """Whether `word` (any case) is a unit or a counted noun of the list, singular or plural."""
    word = word.lower()
    if word in _UNITS:
        return True
    for suffix, stem_end in (("ies", "y"), ("es", ""), ("s", "")):
        if word.endswith(suffix) and word[: -len(suffix)] + stem_end in _UNITS:
            return True
    return False


def number_then_unit(answer: str) -> tuple[str, str] | None:
    """(number, unit) where `answer` is a number and then one listed unit and nothing else (no
    bracket anywhere); None otherwise."""
    if _BRACKETS.search(answer):
        return None
    m = _NUMBER_THEN_WORD.fullmatch(answer)
    if not m or not listed_unit(m["word"]):
        return None
    return m["number"], m["word"]
