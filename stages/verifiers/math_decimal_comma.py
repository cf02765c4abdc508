"""A comma between digits is a decimal mark in most languages other than English (red team round
23): French "2,500 kg" is two and a half kilograms, German "1,500 Meter" one and a half metres.
Round 22 read "1,200,000 people" as a count in groups of three, and the answer's normaliser reads
"2,500" as 2500; both are English readings. Where the response's prose is in a language whose
decimal mark is the comma, a comma before exactly three digits could be either, so the verifier
refuses rather than guesses (a comma before one, two or four digits is already read as decimal).
Chinese, Japanese and Korean write thousands with a comma as English does: they are not listed.
Round 27: "2,50" (a comma before one, two or four or more digits) is read as a decimal only in a
bare answer or in such a language's prose; in English prose ("The roots are 2,50") it may list two
values, so it is refused."""

from __future__ import annotations

import re

# "2,500", "1,200,000", "2{,}500": a comma before a group of exactly three digits
_THREE_AFTER_COMMA = re.compile(r"\d(?:,|\{,\})\d{3}(?!\d)")
# Inline or display math and LaTeX commands: not prose, their words say nothing of the language
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]|\\[a-zA-Z]+", re.S)
_WORD = re.compile(r"[^\W\d_]+")
# Function words of languages with a decimal comma (French, German, Spanish, Italian, Portuguese,
# Dutch, Polish, Turkish, Indonesian, Vietnamese): words English prose does not use, so one English
# sentence with a borrowed name stays English
_DECIMAL_COMMA_WORDS = frozenset(
    re.findall(
        r"\S+",
        """le la les est et des du une un au aux sont donc pour avec dans sur par qui que nous
    réponse reponse masse cette ces ainsi alors puis être
    der die das ist und ein eine einen einem dem den mit von zu auf für sind nicht wir sich
    antwort ergebnis lautet oder auch beträgt
    el los las es una del con por para son respuesta resultado entonces pero como más
    il lo gli è della delle di che sono per risposta risultato quindi
    os é um uma do da dos em com são resposta então
    het een en van zijn met voor antwoord uitkomst
    jest się na odpowiedź wynik oraz
    ve bir ile cevap sonuç
    dan yang adalah jawaban hasil
    là và của đáp""",
    )
)
_ENGLISH_WORDS = frozenset(
    re.findall(
        r"\S+",
        """the is are and of so we answer to in that this with each for which has have be then
    therefore thus there it was from by total gives get find need per""",
    )
)
# the prose read for its language: the end of the response, where the answer is (the math pattern
# rescans from each unclosed "\\(", so a whole hostile response would take quadratic time)
PROSE_WINDOW = 2000
_CYRILLIC = re.compile(r"[\u0400-\u04ff]{2,}")


def decimal_comma_language(response: str) -> bool:
    """The response's prose is mostly in a language whose decimal mark is the comma (its function
    words at least as many as English ones, two at least), or in Cyrillic."""
    prose = _MATH.sub(" ", response[-PROSE_WINDOW:]).lower()
    words = _WORD.findall(prose)
    english = sum(word in _ENGLISH_WORDS for word in words)
    other = sum(word in _DECIMAL_COMMA_WORDS for word in words)
    other += 2 * len(_CYRILLIC.findall(prose))  # "Ответ: 1,500": one Russian word is enough
    return other >= 2 and other >= english


_COMMA_BETWEEN_DIGITS = re.compile(r"\d,\d")


def comma_may_be_decimal(answer: str, response: str) -> bool:
    """Whether the answer's whole "2,50" may be read as 2.5: it has no comma between digits, or the
    response has no prose word (a bare answer, as Math-Verify's "1000,99") or its prose is in a
    decimal-comma language."""
    if not _COMMA_BETWEEN_DIGITS.search(answer):
        return True
    prose = _MATH.sub(" ", response[-PROSE_WINDOW:])
    words = [word for word in _WORD.findall(prose) if len(word) > 1]
    return not words or decimal_comma_language(response)


def ambiguous_comma(answer: str, response: str) -> str | None:
    """Why the answer's "2,500" cannot be read (a decimal comma or a thousands one), or None."""
    found = _THREE_AFTER_COMMA.search(answer)
    if found is None or not decimal_comma_language(response):
        return None
    return (
        f"{found.group()!r} in text whose language writes a decimal comma: a decimal or a"
        " thousands separator, unsure"
    )
