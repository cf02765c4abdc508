"""The forms that made seven more of Math-Verify's label-1 cases agree (issue 27), each with the
attack twins that must still fail: a count in prose, a duration ago in an answer line, a changed
measured error, a time after a box, a person's money, sums and subscripts, a reference read by the
last side of its chain, and `rename_variables` (Math-Verify's strict=False)."""

import pytest

from stages.verifiers.config import MathVerifierConfig
from stages.verifiers.math_parse import MathParseError
from stages.verifiers.math_read import read
from stages.verifiers.math_verifier import MathVerifier, read_reference

ACCEPTED = [
    # test_math_extraction_edge_cases[1]
    (
        "Therefore, there are 12 distinct arithmetic sequences that meet the three given "
        "conditions. I hope it is correct.",
        "12",
    ),
    # test_math_extraction_additional_cases[1]
    ("So s = 3. Final Answer: Jane started growing Sphere 3 hours ago. I hope it is correct.", "3"),
    # test_math_extraction_additional_cases[8]
    (
        "Therefore, the minimum error in the measurement of the position increases by 100%.",
        "100%",
    ),
    # test_math_extraction_edge_cases[12]
    (
        "Rounded to the nearest cent, Paula's investment is worth $\\boxed{\\$16386.17}$ after 5 "
        "years. I hope it is correct.",
        "16386.17",
    ),
    ("$\\boxed{5}$ after 2 years.", "5"),
    # test_string_extraction[5]: the factors of the sum swapped
    (
        "$F_n = \\sum_{k=0}^{n-1} F_{n-k-1} F_k$",
        "$F_n = \\sum_{k=0}^{n-1} F_k F_{n-k-1}$",
    ),
    ("$\\boxed{x_{1} + 2}$", "x_1 + 2"),
    # test_relations_math[21]: a trusted reference read by the last side of its chain
    ("$0$", "$1 = \\zzz = x = 0$"),
    # test_numina_cases[24]'s reference, repaired: stored escaped, its box never closed
    ("$W(n) = 1$ and $W(n) = -1$", "\\\\boxed{W(n) = 1 \\\\text{ and } W(n) = -1"),
    ("$\\frac{1}{2}$", "\\boxed{\\frac{1}{2}"),
]

REFUSED = [
    ("So, there are 12 more sequences than before.", "12"),
    ("So, there are at least 12 distinct sequences.", "12"),
    ("So, there are not 12 distinct sequences.", "12"),
    ("So, there are 12 or 13 distinct sequences.", "12"),
    ("So, there are maybe 12 distinct sequences.", "12"),
    ("So, there are 12 sequences minus 2.", "12"),
    ("So, there are 12 apples.", "12"),
    ("Final Answer: Jane started growing Sphere more than 3 hours ago.", "3"),
    ("Final Answer: Jane started growing Sphere about 3 hours ago.", "3"),
    ("Final Answer: Jane did not start growing Sphere 3 hours ago.", "3"),
    ("Final Answer: Jane started growing Rod five hours before Sphere 3 hours ago.", "3"),
    ("Final Answer: Jane started growing Sphere 3 hours ago, or maybe 4.", "3"),
    ("Jane started growing Sphere 3 hours ago.", "3"),  # no answer line: a number in prose
    ("Therefore, the error is 100%.", "100%"),
    ("Therefore, the error in my previous answer increases by 100%.", "100%"),
    ("Therefore, the error increases by at least 100%.", "100%"),
    ("Therefore, the error does not increase by 100%.", "100%"),
    ("Therefore, the error increases by 100% or 200%.", "100%"),
    ("Error: 100%.", "100%"),
    (
        "Paula's investment is worth $\\boxed{16386.17}$ after 5 years, or maybe 16386.18.",
        "16386.17",
    ),
    ("Paula's investment is worth $\\boxed{16386.17}$ after 5 years if rates hold.", "16386.17"),
    ("Paula's investment is worth $\\boxed{16386.17}$ minus 2.", "16386.17"),
    ("My classmate's investment is worth $\\boxed{16386.17}$.", "16386.17"),
    ("Someone's investment is worth $\\boxed{16386.17}$.", "16386.17"),
    ("The investment is worth $\\boxed{16386.17}$, or maybe 16386.18.", "16386.17"),
    ("$\\boxed{5}$ after 2 years, and 6 after 3 years.", "5"),
    ("$\\boxed{5}$ after subtracting 2.", "5"),
    ("\\boxed{5}, or maybe 6", "5"),
    ("\\boxed{5} if x>0", "5"),
    ("\\boxed{5} minus 2", "5"),
    # a sum is never evaluated: echoing the question's series is no answer
    ("$\\boxed{\\sum_{k=1}^{10} k}$", "55"),
    ("$\\boxed{\\sum_{k=1}^{\\infty} \\frac{1}{k^2}}$", "\\frac{\\pi^2}{6}"),
    ("$\\boxed{\\prod_{i=1}^{4} i}$", "24"),
    ("$F_n = \\sum_{k=0}^{n-1} F_{n-k} F_k$", "$F_n = \\sum_{k=0}^{n-1} F_k F_{n-k-1}$"),
    ("$F_n = \\sum_{k=1}^{n-1} F_{n-k-1} F_k$", "$F_n = \\sum_{k=0}^{n-1} F_k F_{n-k-1}$"),
    ("W(x)=1orW(x)=-1", "\\\\boxed{W(n) = 1 \\\\text{ and } W(n) = -1"),
    ("$W(n) = 1$", "\\\\boxed{W(n) = 1 \\\\text{ and } W(n) = -1"),
    ("$\\frac{1}{3}$", "\\boxed{\\frac{1}{2}"),
    ("\\\\boxed{\\\\frac{1}{2}", "\\frac{1}{2}"),  # a response is never repaired
    # an answer is never read by the last side of a chain
    ("$1 = \\zzz = x = 0$", "0"),
    ("$1 = 2 = 0$", "0"),
]


@pytest.fixture(scope="module")
def verifier():
    v = MathVerifier(MathVerifierConfig(workers=1))
    yield v
    v.close()


@pytest.mark.parametrize(("response", "reference"), ACCEPTED)
def test_the_new_forms_pass(verifier, response, reference):
    verdict = verifier.verify(response, reference)
    assert verdict.passed, verdict.reason


@pytest.mark.parametrize(("response", "reference"), REFUSED)
def test_their_attack_twins_still_fail(verifier, response, reference):
    verdict = verifier.verify(response, reference)
    assert not verdict.passed, verdict.reason


def test_a_reference_chain_is_read_by_its_last_side_only_when_it_is_outside_the_grammar():
    assert read_reference("1 = \\zzz = x = 0").node == read("0").node
    assert read_reference("x = y = 3").node[0] == "eq"  # inside the grammar: read whole
    with pytest.raises(MathParseError):
        read_reference("\\zzz = 0")  # one equals sign is no chain
    for two_answers in (
        "\\zzz = 1 \\text{ and } y = 2 = 2",
        "\\zzz = 1, y = 2 = 2",
        "\\zzz = 1 and y = 2",
    ):
        with pytest.raises(MathParseError):
            read_reference(two_answers)  # words or a list: not one chain
    with pytest.raises(MathParseError):
        read_reference("\\sum_{k=\\zzz}^{n} k = 3 = 3")  # an "=" inside braces splits nothing


def test_rename_variables_is_off_by_default_and_renames_one_to_one():
    strict = MathVerifier(MathVerifierConfig(workers=1))
    renaming = MathVerifier(MathVerifierConfig(workers=1, rename_variables=True))
    try:
        assert not strict.verify("$f(y)$", "$f(x)$").passed
        assert renaming.verify("$f(y)$", "$f(x)$").passed  # test_strict_variable_comparison[1]
        assert renaming.verify("$a^2 + 2b$", "$x^2 + 2y$").passed
        assert renaming.verify("$a^2 + 2b$", "$y^2 + 2x$").passed  # a -> y, b -> x
        assert not renaming.verify("$a^2 + 3b$", "$x^2 + 2y$").passed
        assert not renaming.verify("$a + b$", "$x$").passed  # two variables for one
        assert not renaming.verify("$y^2$", "$x$").passed
    finally:
        strict.close()
        renaming.close()
