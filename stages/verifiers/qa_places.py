"""A place answered with where it is: `Paris, France` and `Paris (France)` answer `Paris`.

The trailing locator may be dropped only where it cannot change which place the answer names
against the golds: it is a country, a US state (or its postal code), a Canadian province, an
Australian state or a UK nation; what precedes it is a gold whole; that gold is no such place
itself (`Georgia, USA` does not answer the country `Georgia`); and where golds name places, it
is one of them (`Paris, Texas` fails where an alias says `Paris, France`, so does `Austin, Texas,
USA` for `Austin, Texas`: the lists do not say which state is in which country). Two locators
may go. A bare gold does not say which Paris it means, and the verifier has no gazetteer: a
locator is dropped only when a gold or alias names that place (`Paris (France)` answers `Paris`
with the alias `Paris, France`); against a bare `Paris`, `Paris, France` fails as `Paris, Texas`
and `Athens, Georgia` for `Athens` do (red team round 11: precision before agreement)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stages.verifiers.qa_strict import strict_tokens

# Comma-separated: a name may hold spaces and `and`.
_COUNTRIES = """afghanistan, albania, algeria, andorra, angola, antigua and barbuda, argentina,
armenia, australia, austria, azerbaijan, bahamas, bahrain, bangladesh, barbados, belarus,
belgium, belize, benin, bhutan, bolivia, bosnia and herzegovina, botswana, brazil, brunei,
bulgaria, burkina faso, burundi, cambodia, cameroon, canada, cape verde, central african
republic, chad, chile, china, colombia, comoros, congo, costa rica, croatia, cuba, cyprus, czech
republic, czechia, denmark, djibouti, dominica, dominican republic, east timor, ecuador, egypt,
el salvador, equatorial guinea, eritrea, estonia, eswatini, ethiopia, fiji, finland, france,
gabon, gambia, georgia, germany, ghana, greece, grenada, guatemala, guinea, guinea-bissau,
guyana, haiti, honduras, hungary, iceland, india, indonesia, iran, iraq, ireland, israel, italy,
ivory coast, jamaica, japan, jordan, kazakhstan, kenya, kiribati, kosovo, kuwait, kyrgyzstan,
laos, latvia, lebanon, lesotho, liberia, libya, liechtenstein, lithuania, luxembourg,
madagascar, malawi, malaysia, maldives, mali, malta, marshall islands, mauritania, mauritius,
mexico, micronesia, moldova, monaco, mongolia, montenegro, morocco, mozambique, myanmar, burma,
namibia, nauru, nepal, netherlands, the netherlands, holland, new zealand, nicaragua, niger,
nigeria, north korea, north macedonia, norway, oman, pakistan, palau, palestine, panama, papua
new guinea, paraguay, peru, philippines, the philippines, poland, portugal, qatar, romania,
russia, rwanda, saint lucia, samoa, san marino, saudi arabia, senegal, serbia, seychelles,
sierra leone, singapore, slovakia, slovenia, solomon islands, somalia, south africa, south
korea, south sudan, spain, sri lanka, sudan, suriname, sweden, switzerland, syria, taiwan,
tajikistan, tanzania, thailand, togo, tonga, trinidad and tobago, tunisia, turkey, turkmenistan,
tuvalu, uganda, ukraine, united arab emirates, uae, united kingdom, the united kingdom, uk, u.k,
great britain, britain, england, scotland, wales, northern ireland, united states, the united
states, united states of america, usa, u.s.a, us, u.s, america, uruguay, uzbekistan, vanuatu,
vatican city, venezuela, vietnam, yemen, zambia, zimbabwe"""
_REGIONS = """alabama, alaska, arizona, arkansas, california, colorado, connecticut, delaware,
florida, hawaii, idaho, illinois, indiana, iowa, kansas, kentucky, louisiana, maine, maryland,
massachusetts, michigan, minnesota, mississippi, missouri, montana, nebraska, nevada, new
hampshire, new jersey, new mexico, new york, north carolina, north dakota, ohio, oklahoma,
oregon, pennsylvania, rhode island, south carolina, south dakota, tennessee, texas, utah,
vermont, virginia, washington, west virginia, wisconsin, wyoming, alberta, british columbia,
manitoba, new brunswick, newfoundland, nova scotia, ontario, prince edward island, quebec,
saskatchewan, new south wales, queensland, victoria, tasmania, western australia, south
australia"""
_PLACES = frozenset(
    " ".join(name.split()) for text in (_COUNTRIES, _REGIONS) for name in text.split(",")
)
_POSTAL = frozenset(("AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID",
             "IL", "IN", "IA", "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT",
             "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC",
             "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "DC"))  # fmt: skip


def _place_key(name: str) -> str:
    return " ".join(name.lower().rstrip(".").split())


def _is_place(name: str) -> bool:
    return name.strip() in _POSTAL or _place_key(name) in _PLACES


def _places_in(text: str) -> set[str]:
    """The places of the lists that `text` names (runs of up to five words)."""
    words = re.findall(r"\w+(?:[.-]\w+)*", text.lower())
    spans = {" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, i + 6)}
    return spans & _PLACES


def without_locator(answer: str, golds: Sequence[str]) -> str:
    """`answer` less one or two trailing locators (`, <country or state>`: `Austin, Texas, USA`)
    that only say where a gold is."""
    head = answer
    named = set().union(*(_places_in(g) for g in golds))
    for _ in range(2):
        head, locator = _split_locator(head)
        if locator is None:
            return answer
        if _place_key(locator) not in named:
            # a bare gold does not say which Paris it means (`Athens, Georgia` for `Athens`), and
            # a gold that says where it is may say another place: only a place a gold names goes
            return answer
        head_tokens = strict_tokens(head)
        if any(head_tokens == strict_tokens(g) and not _is_place(g.strip()) for g in golds):
            return head
    return answer


def _split_locator(text: str) -> tuple[str, str | None]:
    """(what precedes, the place) of a trailing `, <place>` or `(<place>)`, else (text, None)."""
    text = text.strip().rstrip(".").rstrip()
    if text.endswith(")"):  # split by hand: a lazy regex would be quadratic
        head, _, locator = text[:-1].rpartition("(")
    else:
        head, _, locator = text.rpartition(",")
    if not head.strip() or "(" in locator or not _is_place(locator):
        return text, None
    return head, locator
