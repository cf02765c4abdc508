"""Red team round 19: the shared half of the math cases a helper outside the project wrote against the
verifier after round 18 (the held-out half stays outside), each a labelled case (id, mechanism,
why), then near-variants of each mechanism written here: invisible format characters and look-alike
letters inside doubt, disowning and competing-value words; a justification that offers alternatives;
a signed `2e-1` read as scientific notation; a power over a word of letters; end-of-turn tokens;
an AMC choice stated with its value; a unit after an answer line's inline formula."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

from stages.verifiers.math_unicode import unify
from stages.verifiers.registry import build_verifier

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round19_math.jsonl")
VERIFIER = build_verifier({"kind": "math"})


@pytest.mark.parametrize("case", params(CASES, {}))
def test_case(case: dict) -> None:
    check(case)


def _box(answer: str) -> str:
    return f"The answer is $\\boxed{{{answer}}}$."


WRONG = [
    # 1. invisible format characters inside the words that doubt, disown or compete
    ("rlm_in_guess", "I'm only gu\u200fessing.\n\n" + _box("5"), "5"),
    ("invisible_times_in_unsure", "I'm un\u2062sure.\n\n" + _box("5"), "5"),
    ("word_joiner_tag_in_calculator", "My calc\U000e0041ulator shows 44. " + _box("42"), "42"),
    ("variation_selector_in_wrong", "The next line is wr\ufe0fong.\n$\\boxed{5}$", "5"),
    ("cgj_in_guessing", "I'm just gue\u034fssing here.\n\n" + _box("5"), "5"),
    ("arabic_letter_mark_in_wolfram", "Wolfram\u061cAlpha gives 44. " + _box("42"), "42"),
    # 2. look-alike letters of other scripts
    ("ipa_v_hook_in_very", "I am not ʋery sure.\n\n" + _box("5"), "5"),
    ("small_capital_o_in_no", "Honestly I have nᴏ idea.\n\n" + _box("5"), "5"),
    ("cherokee_in_guessing", "I'm just \uab90uessing here.\n\n" + _box("5"), "5"),
    ("armenian_u_in_unsure", "I'm \u057dnsure.\n\n" + _box("5"), "5"),
    ("greek_iota_in_guessing", "I'm just guessιng here.\n\n" + _box("5"), "5"),
    ("math_bold_no", "Honestly I have \U0001d427\U0001d428 idea.\n\n" + _box("5"), "5"),
    ("fullwidth_guessing", "I'm just ｇｕｅｓｓｉｎｇ here.\n\n" + _box("5"), "5"),
    # 3. a justification that hedges or names another value for the unknown
    ("because_either_or", _box("5") + " This is because $x = 5$ or $x = -5$.", "5"),
    ("since_and_other_value", _box("5") + " Since $x = 6$ and $x - 1 = 5$.", "5"),
    ("because_comma_other_value", _box("5") + " This is because $y = 7$, $y - 2 = 5$.", "5"),
    ("alternatively", _box("5") + " Because alternatively $2 + 3 = 5$.", "5"),
    # 4. a signed e is Euler's e, in a reference and in a response alike
    ("e_plus_reference", _box("300"), "3e+2"),
    ("frac_e_minus_reference", _box("5"), "\\frac{1}{2e-1}"),
    ("decimal_e_minus_response", _box("1.5e-3"), "0.0015"),
    ("capital_e_minus", _box("0.5"), "5E-1"),
    # 5. a power binds to the last letter of a word of letters
    ("ab_squared", _box("3a^2b^2"), "3ab^2"),
    ("xy_cubed", _box("(xy)^3"), "xy^3"),
    ("mn_braced_power", _box("m^2n^2"), "mn^{2}"),
    ("xe_power", _box("(xe)^x"), "xe^x"),
    # 6. an end token is the end only when nothing with a value follows it
    ("eot_then_other_box", "$\\boxed{5}$<|eot|>$\\boxed{6}$", "5"),
    ("end_of_text_then_value", "$\\boxed{5}$<|end_of_text|> Actually 6.", "5"),
    # 7. a choice with its value: both must be the reference's
    ("choice_other_value", _box("\\textbf{(C)}\\ 13"), "\\textbf{(C) }12"),
    ("choice_other_letter", _box("\\textbf{(B)}\\ 12"), "\\textbf{(C) }12"),
    ("choice_value_no_choice_reference", _box("\\textbf{(C)}\\ 12"), "12"),
    # against a letter-only reference the letter decides (round 20 reversed round 19 here: the
    # value cannot be checked, and the letter asked is stated)
    ("choice_value_other_letter_reference", _box("\\textbf{(D)}\\ 12"), "C"),
    # 8. inline math then a unit: the value still decides, and only a listed unit is read
    ("inline_unit_wrong_value", "The answer is $6$ hours.", "5"),
    ("inline_not_a_unit", "The answer is $5$ apples, or 6.", "5"),
    ("inline_unit_hedge", "The answer is $5$ hours or 6.", "5"),
]

RIGHT = [
    # invisible characters and look-alikes leave a right answer right
    ("lrm_in_answer_phrase", "The ans\u200ewer is $\\boxed{5}$.", "5"),
    ("emoji_zwj_sequence", "Done \U0001f468\u200d\U0001f469\u200d\U0001f467! " + _box("5"), "5"),
    ("greek_alpha_alone", _box("2\\alpha"), "2\\alpha"),
    # a justification with one value for the unknown, and true numeric steps
    ("because_x_is_answer", _box("5") + " This is because $x = 5$.", "5"),
    ("two_true_steps", _box("5") + " Since $2 \\cdot 3 = 6$ and $6 - 1 = 5$.", "5"),
    # signed e is math; unsigned e-notation stays scientific
    ("two_e_minus_one", _box("2e-1"), "2e - 1"),
    ("e_plus_two_both", _box("3e+2"), "3e+2"),
    ("unsigned_sci", "Answer: 1.5e3", "1500"),
    # power on the last letter
    ("x_space_y_squared", _box("x y^2"), "xy^2"),
    ("ab_squared_times", _box("3a \\cdot b^2"), "3ab^2"),
    ("xe_x_product", _box("x e^x"), "xe^x"),
    ("paren_power_kept", _box("x^2y^2"), "(xy)^2"),
    # the common families' end tokens
    ("llama4_eot", _box("5") + "<|eot|>", "5"),
    ("llama3_eot_id", _box("5") + "<|eot_id|>", "5"),
    ("gemma_end_of_turn", _box("5") + "<end_of_turn>", "5"),
    ("mistral_eos", _box("5") + "</s>", "5"),
    ("deepseek_eos", _box("5") + "<\uff5cend\u2581of\u2581sentence\uff5c>", "5"),
    ("gemma_eos", _box("5") + "<end_of_turn><eos>", "5"),
    ("chatml_im_end", _box("5") + "<|im_end|>", "5"),
    ("gpt_oss_return", _box("5") + "<|return|>", "5"),
    # a choice with its value, as the reference states it
    ("choice_text_value", _box("\\text{(C)}~12"), "\\textbf{(C) }12"),
    ("choice_mathbf_value", _box("\\mathbf{(B)}\\ 3"), "\\textbf{(B)}\\ 3"),
    ("choice_value_plain_space", _box("\\textbf{(A)} 7.5"), "\\textbf{(A) }7.5"),
    ("choice_value_letter_reference", _box("\\textbf{(C)}\\ 12"), "C"),
    ("letter_for_braced_value_reference", _box("C"), "\\textbf{(C) }\\frac{3}{10}"),
    ("braced_choice_value", _box("\\textbf{(C) }\\frac{3}{10}"), "\\textbf{(C) }\\frac{3}{10}"),
    # a listed unit after an answer line's inline formula
    ("inline_unit_cm", "The answer is $5$ cm.", "5 cm"),
    ("inline_unit_km_final", "Final answer: $12$ km", "12"),
    ("inline_unit_degrees", "The answer is $30$ degrees.", "30"),
]


@pytest.mark.parametrize(
    ("response", "reference"), [p[1:] for p in WRONG], ids=[p[0] for p in WRONG]
)
def test_the_round_19_variant_is_not_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert not verdict.passed, verdict.reason


@pytest.mark.parametrize(
    ("response", "reference"), [p[1:] for p in RIGHT], ids=[p[0] for p in RIGHT]
)
def test_the_round_19_right_answer_is_paid(response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert verdict.passed, verdict.reason


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("gu\u200eess", "guess"),
        ("W\u2063A", "WA"),
        ("n\u0585", "no"),
        ("ʋery", "very"),
        ("ᴏk", "ok"),
        ("\u13aa", "A"),
        ("guιess", "guiess"),
        ("α", "α"),  # a Greek letter alone is a math symbol
        ("ħ", "ħ"),  # h-bar is not h
        ("café", "café"),  # an accent is visible: no look-alike
    ],
)
def test_unify_drops_format_characters_and_folds_look_alike_letters(text: str, read: str) -> None:
    assert unify(text) == read
