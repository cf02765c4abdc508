"""A word that mixes plain Latin letters with a letter of another block drawn to be misread is no
answer (`math_confusables.mixed_script_word`, red team round 19): no look-alike table is whole,
and a letter folded by its Unicode name can be the wrong one (U+028B "v with hook" reads "u" in
"g\u028bessing"). Greek (2πr, μm), accented letters and other languages' own words still read."""

from __future__ import annotations

import pytest

from stages.verifiers.math_confusables import mixed_script_word
from stages.verifiers.math_verifier import MathVerifier

HIDDEN_DOUBT = {
    "v with hook for u (m19-008's kind)": "I'm just g\u028bessing here.\n\nThe answer is $\\boxed{5}$.",
    "Cyrillic open e for e": "I gu\u0511ss the answer is $\\boxed{5}$.",
    "Latin ext-D for o": "N\ua74b idea. The answer is $\\boxed{5}$.",
    "phonetic small capital": "Just gu\u1d07ssing. The answer is $\\boxed{5}$.",
    "Lisu letter": "I'm \ua4d1uessing. The answer is $\\boxed{5}$.",
    "after a zero-width space": "I'm gu\u200b\u028bssing. The answer is $\\boxed{5}$.",
    # strict: even in the answer phrase itself a look-alike word is no answer (round 19's math
    # fixer had this one paid, its letter in the fold table)
    "Armenian h in 'The'": "T\u0570e answer is $\\boxed{5}$.",
    "Georgian for o": "N\u10ff idea. The answer is $\\boxed{5}$.",
}

PLAIN = {
    "Greek in a product": "The length is 2\u03c0r with r = 5/(2\u03c0), so the answer is $\\boxed{5}$.",
    "micro": "Each cell is 5 \u03bcm wide. The answer is $\\boxed{5}$.",
    "German": "Die Stra\u00dfe ist lang.\n\nThe answer is $\\boxed{5}$.",
    "Cyrillic word": "\u041e\u0442\u0432\u0435\u0442: $\\boxed{5}$",
    "Polish and Czech": "Dvo\u0159\u00e1k lived in \u0141\u00f3d\u017a.\n\nThe answer is $\\boxed{5}$.",
    "accented pinyin": "Y\u01ce. The answer is $\\boxed{5}$.",
}


@pytest.mark.parametrize("response", list(HIDDEN_DOUBT.values()), ids=list(HIDDEN_DOUBT))
def test_a_word_spelled_with_look_alikes_of_other_scripts_is_no_answer(response: str) -> None:
    verdict = MathVerifier().verify(response, "5")
    assert not verdict.passed and "look-alike letters" in verdict.reason, verdict.reason


@pytest.mark.parametrize("response", list(PLAIN.values()), ids=list(PLAIN))
def test_words_of_other_scripts_and_greek_symbols_still_read(response: str) -> None:
    assert mixed_script_word(response) is None
    assert MathVerifier().verify(response, "5").passed


def test_a_megabyte_of_other_scripts_is_one_pass() -> None:
    # no word mixes the two: nothing is folded, the answer is read as ever
    text = "\u043f\u0440\u0438\u043c\u0435\u0440 " * 150_000 + "The answer is $\\boxed{5}$."
    assert mixed_script_word(text) is None


def test_the_format_character_class_is_unicode_s_category_cf() -> None:
    import sys
    import unicodedata

    from stages.verifiers.math_confusables import FORMAT_CHARACTERS

    for code in range(sys.maxunicode + 1):
        c = chr(code)
        if unicodedata.category(c) == "Cf":
            assert FORMAT_CHARACTERS.fullmatch(c), hex(code)
        elif code < 0x20000 and not 0x13439 <= code <= 0x1343F:  # Cf since Unicode 15
            assert not FORMAT_CHARACTERS.fullmatch(c), hex(code)
