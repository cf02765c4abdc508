"""Round 18 mends to the math verifier (issue 27, red team round 18). Each wrong response is a
near-variant of a round-18 mechanism written here, not by the attacker; each right one is the
control the new rule must leave paid. Every new pattern also meets long filler in bounded time."""

from __future__ import annotations

import time

import pytest

from stages.verifiers.registry import build_verifier

VERIFIER = build_verifier({"kind": "math"})


def _paid(response: str, reference: str) -> bool:
    return VERIFIER.verify(response, reference).passed


def _box(answer: str) -> str:
    return f"So the answer is $\\boxed{{{answer}}}$."


WRONG = [
    # \bmod is the binary remainder, never a note after the answer
    ("bmod_spaced", _box("23 \\bmod 7"), "23"),
    ("bmod_braced", _box("100 \\bmod {9}"), "100"),
    ("bmod_answer_line", "Answer: 9 \\bmod 4", "9"),
    # a tiny perturbation of an exact reference
    ("pi_plus_tiny", _box("\\pi + 10^{-50}"), "\\pi"),
    ("sqrt3_minus_tiny_fraction", _box("\\sqrt{3} - \\frac{1}{10^{80}}"), "\\sqrt{3}"),
    ("ln3_plus_e_power", _box("\\ln 3 + e^{-200}"), "\\ln 3"),
    ("sqrt_of_perturbed", _box("\\sqrt{2 + 10^{-70}}"), "\\sqrt{2}"),
    # a determinant or a norm is a number, not the matrix
    ("vmatrix_2x2", _box("\\begin{vmatrix}2&0\\\\0&2\\end{vmatrix}"),
     "\\begin{pmatrix}2&0\\\\0&2\\end{pmatrix}"),
    ("vmatrix_for_its_value", _box("\\begin{vmatrix}1&2\\\\3&4\\end{vmatrix}"), "1"),
    ("Vmatrix_column", _box("\\begin{Vmatrix}3\\\\4\\end{Vmatrix}"),
     "\\begin{pmatrix}3\\\\4\\end{pmatrix}"),
    # a power after a function's bare argument stays inside it
    ("log_power_inside", _box("\\log x^3"), "(\\log x)^3"),
    ("cos_power_inside", _box("\\cos t^2"), "\\cos^2 t"),
    ("tan_inverse_power", _box("\\tan x^{-1}"), "\\arctan x"),
    # a bare argument is the whole implicit product
    ("cos_pi_n", _box("\\cos\\pi n"), "(-1) n"),
    ("sin_frac_x", _box("\\sin \\frac{\\pi}{3} y"), "\\frac{\\sqrt{3}}{2} y"),
    ("tan_two_x", _box("\\tan 2x"), "2\\tan x"),
    ("bracket_after_bare_argument", _box("\\sin x (x+1)"), "(x+1)\\sin x"),
    # d/dx written as a fraction never cancels its d
    ("leibniz_cubed", _box("\\frac{d}{dx} x^3"), "x^2"),
    ("leibniz_second", _box("\\frac{d^2}{dx^2}(x^4)"), "x^2"),
    ("leibniz_inline", _box("d/dx x^2"), "x"),
    # a negative numerator under a power keeps its sign inside
    ("neg_numerator_cubed", _box("\\frac{-1}{3}^{2}"), "-\\frac{1}{9}"),
    ("neg_numerator_times_y", _box("y = \\frac{-2}{3}^{2} x"), "y = -\\frac{4x}{9}"),
    # rules that read more must not pay what they read wrongly
    ("ln_2e_for_ln2", _box("\\ln(3e)"), "1+\\ln 2"),
    ("polar_wrong_angle", _box("2e^{i\\pi}"), "2i"),
    ("line_other_intercept", _box("2x - y - 3 = 0"), "y = 2x + 3"),
    ("twenty_zero", "Answer: twenty-zero", "20"),
    ("harmony_two_finals", "<|channel|>final<|message|>7<|end|><|start|>assistant"
     "<|channel|>final<|message|>**Answer:** 12", "12"),
    ("harmony_analysis_only", "<|channel|>analysis<|message|>So it is 12.<|end|>", "12"),
    ("totient_as_product", _box("n\\phi"), "\\phi(n)"),
    ("greek_other_letter", _box("\\alpha + 1"), "1+\\omega"),
    ("pm_fraction_one_root", _box("\\frac{-1 \\pm \\sqrt{5}}{2}"), "\\frac{-1+\\sqrt5}{2}"),
    ("speed_for_acceleration", _box("9.8 \\text{ m/s}"), "9.8 \\text{ m/s}^2"),
    ("five_cents_for_fifty", _box("\\$0.05"), "50 \\text{ cents}"),
    ("amc_other_letter", _box("\\textbf{(C)}"), "\\textbf{(B)}\\ 3"),
    ("amc_letter_with_other_value", _box("\\textbf{(B)}\\ 4"), "\\textbf{(B)}\\ 3"),
    ("other_angle", _box("\\angle ACB"), "\\angle ABC"),
    ("segment_as_product", _box("AB"), "\\overline{AB}"),
    ("set_builder_closed_end", _box("\\{x : x \\ge 2\\}"), "(2,\\infty)"),
    ("set_builder_two_letters", _box("\\{x : x > y\\}"), "(2,\\infty)"),
    ("labelled_pair_swapped_values", _box("(t, s) = (2, 1)"), "(1,2)"),
    ("or_union_other_bound", _box("x<1 \\text{ or } x>3"), "(-\\infty,1)\\cup(2,\\infty)"),
    ("or_union_closed_end", _box("x \\le 1 \\text{ or } x>2"), "(-\\infty,1)\\cup(2,\\infty)"),
    ("or_two_letters", _box("x<1 \\text{ or } y>2"), "(-\\infty,1)\\cup(2,\\infty)"),
    ("or_conditions_for_a_value", _box("x<1 \\text{ or } x>2"), "1"),
    ("cube_root_sign_lost", _box("\\sqrt[3]{-16}"), "2\\sqrt[3]{2}"),
    ("matrix_rows_swapped", _box("\\begin{pmatrix}y\\\\x\\end{pmatrix}"),
     "\\begin{pmatrix} x \\\\ y \\end{pmatrix}"),
]  # fmt: skip
RIGHT = [
    ("bmod_note_in_brackets", _box("5 \\pmod{7}"), "5"),
    ("ln_x_squared", _box("\\ln x^2"), "\\ln(x^2)"),
    ("sin_x_squared", _box("\\sin x^2"), "\\sin(x^2)"),
    ("cos_two_pi_t", _box("\\cos 2\\pi t"), "\\cos(2\\pi t)"),
    ("sin_frac_pi_x", _box("\\sin \\frac{\\pi}{2} x"), "\\sin(\\frac{\\pi x}{2})"),
    ("sin_times_cos", _box("\\sin x \\cos x"), "\\frac{\\sin 2x}{2}"),
    ("ln_100", _box("\\ln 100"), "2\\ln 10"),
    ("log2_of_10", _box("\\log_2 10"), "1 + \\log_2 5"),
    ("neg_numerator_plain", _box("\\frac{-2}{3}"), "-\\frac{2}{3}"),
    ("neg_numerator_squared", _box("\\frac{-1}{2}^{2} y"), "\\frac{y}{4}"),
    ("ln_2e_squared", _box("\\ln(2e^2)"), "2 + \\ln 2"),
    ("e_squared_plus_one", _box("e^2 + 1"), "1 + e^2"),
    ("polar_i_pi_half", _box("2e^{i\\pi/2}"), "2i"),
    ("polar_minus_one", _box("\\sqrt{2} e^{-i\\pi/4}"), "1-i"),
    ("set_builder_mid", _box("\\{x \\mid 1 \\le x < 3\\}"), "[1,3)"),
    ("set_builder_bar_left", _box("\\{x | x < 0\\}"), "(-\\infty, 0)"),
    ("set_builder_reversed", _box("\\{x : 2 < x\\}"), "(2,\\infty)"),
    ("labelled_pair_b_a", _box("(b, a) = (3, 4)"), "(3,4)"),
    ("labelled_triple_z_y_x", _box("(z, y, x) = (1, 2, 3)"), "(1,2,3)"),
    ("line_scaled", _box("4x - 2y + 6 = 0"), "y = 2x + 3"),
    ("line_rearranged", _box("y - 2x = 3"), "y = 2x + 3"),
    ("parabola_implicit", _box("x^2 - y = 0"), "y = x^2"),
    ("or_union_plain_words", "Answer: x < -3 or x > 3", "(-\\infty,-3)\\cup(3,\\infty)"),
    ("or_union_closed", _box("x \\le 0 \\text{ or } x \\ge 5"),
     "(-\\infty,0]\\cup[5,\\infty)"),
    ("forty_two", "Answer: forty-two", "42"),
    ("ninety_nine_spaced", "Answer: ninety nine", "99"),
    ("negative_thirty_one", "Answer: negative thirty-one", "-31"),
    ("harmony_return", "<|channel|>analysis<|message|>6*7=42<|end|><|start|>assistant"
     "<|channel|>final<|message|>The answer is $\\boxed{42}$.<|return|>", "42"),
    ("harmony_plain_final", "<|start|>assistant<|channel|>final<|message|>42", "42"),
    ("cube_root_of_minus_27", _box("\\sqrt[3]{-54}"), "-3\\sqrt[3]{2}"),
    ("fifth_root_negative", _box("\\sqrt[5]{-64}"), "-2\\sqrt[5]{2}"),
    ("theta_doubled", _box("2\\theta"), "\\theta + \\theta"),
    ("lambda_squared", _box("\\lambda^2 - 1"), "(\\lambda - 1)(\\lambda + 1)"),
    ("pm_fraction_sqrt3", _box("\\frac{2 \\pm \\sqrt{3}}{4}"),
     "\\frac{2-\\sqrt3}{4}, \\frac{2+\\sqrt3}{4}"),
    ("density", _box("1000 \\text{ kg/m}^3"), "1 \\text{ g/cm}^3"),
    ("acceleration_plain", _box("9.8 \\text{ m/s}^2"), "9.8"),
    ("cents_for_dollars", _box("75 \\text{ cents}"), "\\$0.75"),
    ("dollars_for_cents", _box("\\$1.25"), "125 \\text{ cents}"),
    ("amc_bare_letter", _box("C"), "\\textbf{(C) }12"),
    ("amc_bracketed_letter", _box("(D)"), "\\textbf{(D)}~7"),
    ("triangle_name", _box("\\triangle ABC"), "\\triangle ABC"),
    ("segment_braced", _box("\\overline{PQ}"), "\\overline{PQ}"),
    ("angle_braced", _box("\\angle{XYZ}"), "\\angle XYZ"),
    ("matrix_doubled_backslash_frac", _box("\\begin{pmatrix}-\\\\frac{7}{4}&-2\\\\4&1\\end{pmatrix}"),
     "\\begin{pmatrix}-\\frac{7}{4}&-2\\\\4&1\\end{pmatrix}"),
    ("column_vector_letters", _box("\\begin{pmatrix}a\\\\b\\\\c\\end{pmatrix}"),
     "\\begin{pmatrix} a \\\\ b \\\\ c \\end{pmatrix}"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "response", "reference"), WRONG, ids=[w[0] for w in WRONG])
def test_a_near_variant_of_a_round18_hole_is_not_paid(
    name: str, response: str, reference: str
) -> None:
    assert not _paid(response, reference), name


@pytest.mark.parametrize(("name", "response", "reference"), RIGHT, ids=[r[0] for r in RIGHT])
def test_a_right_answer_near_a_round18_rule_is_paid(
    name: str, response: str, reference: str
) -> None:
    assert _paid(response, reference), name


@pytest.mark.parametrize("size", [20_000, 40_000, 80_000])
@pytest.mark.parametrize(
    "filler",
    ["\\{x : ", "<|channel|>", "\\angle ", "twenty-", "\\sin x", "\\frac{d}{dx}", "\\bmod 5 "],
)
def test_the_new_rules_meet_long_filler_in_bounded_time(filler: str, size: int) -> None:
    text = (filler * (size // len(filler) + 1))[:size] + " The answer is $\\boxed{5}$."
    start = time.process_time()
    VERIFIER.verify(text, "5")
    assert time.process_time() - start < 1.5
