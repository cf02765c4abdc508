"""Characters a reader does not see, and letters drawn like Latin ones, in math text (red team round
19): `math_unicode.unify` removes the first and folds the second, so that a word list ("guessing",
"no idea", "calculator") reads "gu\u200eessing" and "n\u0585 idea" as a reader does.

- Invisible: every format character (Unicode category Cf: marks of direction, invisible times and
  separators, zero-width joiners, tags) and the other default-ignorable code points (variation
  selectors, the combining grapheme joiner, Hangul fillers). Dropping an emoji's joiner only splits
  the emoji into its parts, which no word list or answer reads.
- Look-alikes: Latin letters of the IPA and small-capital blocks by their Unicode names ("LATIN
  LETTER SMALL CAPITAL O" is o), and Armenian, Cherokee, Cyrillic and Greek letters listed in
  Unicode's confusables as a Latin letter. Greek letters that are math symbols (alpha, iota, ...)
  are folded only inside a word that also holds Latin letters ("gu\u03b9ess"), never alone."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# default-ignorable code points that are not Cf (Cf is read from unicodedata)
_IGNORABLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef]"
)
_LATIN_NAME = re.compile(
    r"LATIN (?:(SMALL|CAPITAL) LETTER|LETTER SMALL (CAPITAL)) ([A-Z])"
    r"(?: WITH (?:HOOK|TAIL|RETROFLEX HOOK|PALATAL HOOK|CURL|LONG LEG|DESCENDER))?"
)
# Latin letters with no such name that read as a plain one; ħ (h-bar) and the barred letters are
# other symbols, never folded.
_LATIN_EXTRA = dict(zip("ɑɡıȷɩ", "agiji", strict=True))
# Unicode's confusables (confusablesSummary.txt), to one Latin letter, for scripts that math text
# never uses as symbols: folded wherever they stand. Cherokee small letters fold to their capitals.
_ALWAYS = dict(
    zip(
        "օոսհցզքյՕՍՏԼ"  # Armenian
        "ᎪᏴᏟᎬᎻᎥᎫᏦᏞᎷᏢᏒᏚᎢᏙᏔᎳᏃᏀᎠᏫᎩ"  # Cherokee
        "ѵѴүҮԍԌӀһҺԝԜԁԛѕјӏ",  # Cyrillic beyond `math_unicode`'s list
        "onuhgqfjOUSLABCEHiJKLMPRSTVWWZGDOyvVyYGGIhHwWdqsjl",
        strict=True,
    )
)
# Greek and Cyrillic letters a math answer may use as symbols: folded only in a mixed word.
_IN_MIXED_WORD = dict(zip("αιυκρωγτεкт", "aiukpwytekt", strict=True))
_WORD = re.compile(r"[^\W\d_]{2,}")


# Unicode's format characters (category Cf, as this Python's unicodedata has them: a test checks the
# class against it), as one class: read in C, where a Python test per character took 0.17 s of a
# megabyte's verdict.
FORMAT_CHARACTERS = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f]"
)


def drop_invisible(text: str) -> str:
    """`text` without its format characters and default-ignorable code points."""
    if text.isascii():
        return text
    return _IGNORABLE.sub("", FORMAT_CHARACTERS.sub("", text))


# A run of blank characters (whitespace, the Braille blank) longer than a paragraph break: padding
# that would push a doubt or a retraction out of every bounded window (red team round 20).
_BLANK_RUN = re.compile(r"[\s\u2800]{3,}")


def _one_break(m: re.Match[str]) -> str:
    newlines = m.group().count("\n")
    return "\n\n" if newlines > 1 else "\n" if newlines else " "


def compact_blank(text: str) -> str:
    """`text` with each run of three or more blank characters shortened to what a reader sees:
    a paragraph break, a line break or one space."""
    return _BLANK_RUN.sub(_one_break, text)


@lru_cache(maxsize=4096)
def _latin(c: str) -> str:
    """The plain Latin letter `c` is drawn as, or `c` itself."""
    if "\uab70" <= c <= "\uabbf" or "\u13f8" <= c <= "\u13fd":
        return _ALWAYS.get(c.upper(), c).lower()  # a Cherokee small letter
    if c in _ALWAYS:
        return _ALWAYS[c]
    if c in _LATIN_EXTRA:
        return _LATIN_EXTRA[c]
    if unicodedata.decomposition(c):
        return c  # é, ñ: a visible accent, not a look-alike
    m = _LATIN_NAME.fullmatch(unicodedata.name(c, ""))
    if m is None:
        return c
    return m.group(3) if m.group(1) == "CAPITAL" else m.group(3).lower()


def _mixed(m: re.Match[str]) -> str:
    word = m.group()
    if not any("a" <= c.lower() <= "z" for c in word):
        return word
    return "".join(_IN_MIXED_WORD.get(c, c) for c in word)


def fold_lookalikes(text: str) -> str:
    """`text` with every letter drawn like a Latin one written as that Latin letter."""
    text = "".join(c if c.isascii() else _latin(c) for c in text)
    if text.isascii():
        return text
    return _WORD.sub(_mixed, text)


# Blocks whose letters, inside a word of plain Latin letters, are there to be misread: IPA and
# phonetic letters, Latin Extended-B/C/D, Cyrillic, Armenian, Georgian, Cherokee, Lisu. Greek is
# left out (2πr, 5 μm), and so are letters that carry a visible accent (ǎ, ș) and Latin-1 and
# Extended-A letters (ß, ø, ł, œ), which words of other languages use.
_LOOKALIKE_BLOCKS = (
    (0x0180, 0x02FF), (0x0400, 0x052F), (0x0530, 0x058F), (0x10A0, 0x10FF), (0x13A0, 0x13FF),
    (0x1D00, 0x1DBF), (0x1E00, 0x1EFF), (0x2C60, 0x2C7F), (0xA4D0, 0xA4FF), (0xA720, 0xA7FF),
    (0xAB30, 0xABBF),
)  # fmt: skip


def _lookalike(c: str) -> bool:
    code = ord(c)
    return (
        c.isalpha()
        and any(low <= code <= high for low, high in _LOOKALIKE_BLOCKS)
        and not unicodedata.decomposition(c)
    )


def mixed_script_word(text: str) -> str | None:
    """A word of `text` that mixes plain Latin letters with a letter of another block drawn to be
    misread (`g\u028bessing`, read "guessing": `fold_lookalikes` folds it by its name to "v"), or
    None. The math verifier reads such a response as no answer: no table lists every look-alike, a
    word list cannot read such a word, and a person would not write one (red team round 19)."""
    if text.isascii():
        return None
    text = drop_invisible(unicodedata.normalize("NFKC", text))
    for m in _WORD.finditer(text):
        word = m.group()
        if word.isascii() or not any(c.isascii() for c in word):
            continue
        if any(map(_lookalike, word)):  # as written: a fold by name may guess the wrong letter
            return word
    return None
