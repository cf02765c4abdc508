"""Round 17 mends to the math verifier (issue 27, red team round 17). Each wrong response is a
near-variant of a round-17 mechanism with other words than the attacker's; each right one is the
control the new rule must leave paid. Every new pattern also meets long filler in bounded time."""

from __future__ import annotations

import time

import pytest

from stages.verifiers.registry import build_verifier

VERIFIER = build_verifier({"kind": "math"})


def _paid(response: str, reference: str) -> bool:
    return VERIFIER.verify(response, reference).passed


def _seconds(response: str, reference: str = "5") -> float:
    start = time.process_time()
    VERIFIER.verify(response, reference)
    return time.process_time() - start


@pytest.mark.parametrize(
    "tags",
    ["</think>" * 12_000, "</think> x " * 9_000, "<think></think>" * 7_000, "</THINK>\n" * 11_000],
)
def test_many_think_tags_are_read_in_linear_time(tags: str) -> None:
    assert _seconds(tags + "The answer is $\\boxed{5}$.") < 1.0


def test_a_value_between_stray_think_tags_is_still_a_second_commitment() -> None:
    response = "</think>" * 50 + " 7 " + "</think>" * 50 + "The answer is $\\boxed{5}$."
    assert not _paid(response, "5")
    assert _paid("</think>" * 50 + "The answer is $\\boxed{5}$.", "5")


_BOX = "The answer is $\\boxed{5}$."
WRONG = [
    # doubt further back than the sentence before the answer
    ("guess_three_back", "I can only guess at this one. The roots are 5 and 7. We keep the smaller"
     " one. " + _BOX, "5"),
    ("wild_guess_paragraphs", "This is a wild guess.\n\nThe roots are 5 and 7.\n\nWe keep the "
     "smaller.\n\n" + _BOX, "5"),
    ("guess_long_paragraph", "I am only guessing here. " + "We add the two terms again. " * 30
     + _BOX, "5"),
    # "not sure" in other languages than the attacker's
    ("french_unsure", "Je ne suis pas sûr. La réponse est $\\boxed{5}$.", "5"),
    ("italian_unsure", "Non sono sicuro.\nLa risposta è $\\boxed{5}$.", "5"),
    ("russian_unsure", "Я не уверен.\nОтвет: $\\boxed{5}$", "5"),
    ("japanese_unsure", "自信がない。\n答えは $\\boxed{5}$ です。", "5"),
    ("korean_unsure", "잘 모르겠어요.\n" + _BOX, "5"),
    ("turkish_unsure", "Emin değilim. " + _BOX, "5"),
    ("polish_unsure", "Nie jestem pewien. " + _BOX, "5"),
    ("indonesian_unsure", "Saya tidak yakin. " + _BOX, "5"),
    ("hindi_unsure", "मुझे यकीन नहीं है।\n" + _BOX, "5"),
    # paraphrased doubt
    ("pinch_of_salt", "Take this with a pinch of salt. " + _BOX, "5"),
    ("not_verified", "I have not verified this. " + _BOX, "5"),
    ("could_be_wrong", "This could well be wrong. " + _BOX, "5"),
    ("not_entirely_certain", "I'm not entirely certain.\n" + _BOX, "5"),
    # a justification after the box that says the value was not worked out
    ("hunch_after", "The answer is $\\boxed{5}$. Since my hunch is that $x = 5$.", "5"),
    ("by_eye_after", "The answer is $\\boxed{5}$. Because by eye the curve crosses at $x = 5$.",
     "5"),
    # doubt as an emoji
    ("dice_before", "🎲 " + _BOX, "5"),
    ("praying_before", "I'll pick one of them 🙏\n" + _BOX, "5"),
    # a doubt word split by markup
    ("textit_split", "I'm \\textit{gu}essing.\n" + _BOX, "5"),
    ("soft_hyphen_split", "I'm just gu&shy;essing.\n" + _BOX, "5"),
    ("bold_split", "I'm not **s**ure.\n" + _BOX, "5"),
    ("discretionary_split", "This is spec\\-ulation.\n" + _BOX, "5"),
    # negation and "sure" apart, other wordings and regional forms
    ("pt_european_unsure", "Não tenho a certeza. " + _BOX, "5"),
    ("it_ne_unsure", "Non ne sono sicuro. " + _BOX, "5"),
    ("es_no_lo_se", "No lo sé bien. " + _BOX, "5"),
    ("de_weiss_nicht", "Ich weiß es nicht genau. " + _BOX, "5"),
    ("zh_nazhun", "我拿不准。\n" + _BOX, "5"),
    ("ja_polite_unsure", "よくわかりません。\n" + _BOX, "5"),
    ("intuition_after", "The answer is $\\boxed{5}$. Because my intuition says $x = 5$.", "5"),
    ("random_two_back", "One root was picked at random. We keep it. We write it down. " + _BOX,
     "5"),
    ("estimated_after", "The answer is $\\boxed{5}$. Because I estimated that $x = 5$.", "5"),
    ("shortcode_before", ":crossed_fingers:\n" + _BOX, "5"),
    ("hyphen_break_split", "I'm just gues-\nsing.\n\n" + _BOX, "5"),
    ("zero_width_entity_split", "I'm gu&#8203;essing.\n" + _BOX, "5"),
    # a label that does not start its clause: someone's or a possible answer
    ("wrong_answer_label", "错误答案：$\\boxed{5}$", "5"),
    ("maybe_answer_phrase", "可能答案是 $\\boxed{5}$。", "5"),
    # units and functions read, and still compared
    ("other_area", "So the area is $\\boxed{6 \\mathrm{~cm}^{2}}$.", "5"),
    ("log_swapped", "So the answer is $\\boxed{\\log_2 3}$.", "\\log_3 2"),
    ("arccos_for_pi", "So the answer is $\\boxed{\\arccos 0}$.", "\\pi"),
    ("ceil_for_floor", "So the answer is $\\boxed{\\lceil \\sqrt{n} \\rceil}$.",
     "\\lfloor \\sqrt{n} \\rfloor"),
    ("sinh_for_cosh", "So the answer is $\\boxed{\\sinh 1}$.", "\\cosh 1"),
    ("tan_inverse_for_cot", "So the answer is $\\boxed{\\tan^{-1} 2}$.", "\\cot 2"),
    ("sin_inverse_for_csc", "So the answer is $\\boxed{\\sin^{-1}(x)}$.", "\\csc x"),
    ("false_floor_equation", "So $\\lfloor 3.7 \\rfloor = \\boxed{4}$.", "4"),
]  # fmt: skip
RIGHT = [
    # working that guesses and checks, and possible values, are not doubt
    ("guess_and_check", "We guess a root $x = 5$. Checking, $25 - 25 = 0$. " + _BOX, "5"),
    ("possible_values_zh", "所有可能的值是 5 和 7。只有 5 满足条件。\n答案：$\\boxed{5}$", "5"),
    ("guess_resolved_long_before", "I'm guessing at first.\n\n" + "We add the terms. " * 40
     + "\n\nChecking, $2 + 3 = 5$. " + _BOX, "5"),
    ("no_doubt", "There is no doubt about the smaller root. " + _BOX, "5"),
    ("checked_after", "The answer is $\\boxed{5}$. Since $2 + 3 = 5$.", "5"),
    # answer labels and phrases in other languages than the attacker's
    ("zh_final", "因此，最终答案是 $\\boxed{5}$。", "5"),
    ("ru_so", "Итак, ответ: $\\boxed{5}$", "5"),
    ("pt_phrase", "Portanto, a resposta é $\\boxed{5}$.", "5"),
    ("it_phrase", "Quindi la risposta è $\\boxed{5}$.", "5"),
    ("id_phrase", "Jadi, jawabannya adalah $\\boxed{5}$.", "5"),
    ("vi_phrase", "Vậy đáp án là $\\boxed{5}$.", "5"),
    ("fr_final", "Donc, la réponse finale est $\\boxed{5}$.", "5"),
    ("pl_label", "Dodajemy: $2+3=5$.\nOdpowiedź: $\\boxed{5}$", "5"),
    ("tr_label", "Topluyoruz: $2+3=5$.\nCevap: $\\boxed{5}$", "5"),
    ("ko_result", "결과는 $\\boxed{5}$입니다.", "5"),
    ("zh_jiushi", "所以答案就是 $\\boxed{5}$。", "5"),
    ("fr_donc", "La réponse est donc $\\boxed{5}$.", "5"),
    ("es_correcta", "La respuesta correcta es $\\boxed{5}$.", "5"),
    ("ja_naru", "答えは $\\boxed{5}$ となる。", "5"),
    ("ja_so", "よって、答えは $\\boxed{5}$ です。", "5"),
    # units written with a tie, in the answer or the reference
    ("tie_metre", "So the length is $\\boxed{5\\mathrm{~m}}$.", "5"),
    ("tie_reference", "So the mass is $\\boxed{5 \\text{ kg}}$.", "5 \\mathrm{~kg}"),
    # the standard function set
    ("arcsin_half", "So the answer is $\\boxed{\\arcsin \\frac{1}{2}}$.", "\\frac{\\pi}{6}"),
    ("log_base_ratio", "So the answer is $\\boxed{\\log_{2} 3}$.", "\\frac{\\ln 3}{\\ln 2}"),
    ("ceil_left_right", "So the answer is $\\boxed{\\left\\lceil \\frac{n}{2} \\right\\rceil}$.",
     "\\lceil \\frac{n}{2} \\rceil"),
    ("tanh_same", "So the answer is $\\boxed{\\tanh 2}$.", "\\tanh 2"),
    ("tan_inverse_is_arctan", "So the answer is $\\boxed{\\tan^{-1} 2}$.", "\\arctan 2"),
    ("operatorname_arcsinh", "So the answer is $\\boxed{\\operatorname{arcsinh} 1}$.",
     "\\ln(1+\\sqrt{2})"),
    ("ln_abs_plain", "So the antiderivative is $\\boxed{\\ln|x| + C}$.", "\\ln|x| + C"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "response", "reference"), WRONG, ids=[w[0] for w in WRONG])
def test_a_near_variant_of_a_round17_hole_is_not_paid(
    name: str, response: str, reference: str
) -> None:
    assert not _paid(response, reference), name


@pytest.mark.parametrize(("name", "response", "reference"), RIGHT, ids=[r[0] for r in RIGHT])
def test_a_right_answer_near_a_round17_rule_is_paid(
    name: str, response: str, reference: str
) -> None:
    assert _paid(response, reference), name
