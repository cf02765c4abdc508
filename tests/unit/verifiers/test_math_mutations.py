"""Issue 27, item 7: hypothesis-generated mutations of right answers. A meaning-preserving change of
form must still pass; a mutation that hedges, negates, bounds, lists, retracts or leaves the think
block open must fail, for any reference, any other value and any wording of the added text."""

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stages.verifiers.config import MathVerifierConfig
from stages.verifiers.math_context import FILLER
from stages.verifiers.math_verifier import MathVerifier

SETTINGS = settings(
    max_examples=150,
    deadline=None,  # a shared 2-core machine: judge verdicts, never time
    database=None,  # nothing written into the checkout
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
values = st.one_of(
    st.integers(-100_000, 100_000).map(str),
    st.tuples(st.integers(1, 99), st.integers(2, 99))
    .filter(lambda pq: pq[0] % pq[1])
    .map(lambda pq: f"\\frac{{{pq[0]}}}{{{pq[1]}}}"),
    st.tuples(st.integers(0, 999), st.integers(1, 99)).map(lambda t: f"{t[0]}.{t[1]:02d}"),
)
FORMS = ["\\boxed{{{v}}}", "Answer: {v}", "The answer is {v}.", "#### {v}", "$\\boxed{{{v}}}$."]
# Words for the added text: any of them, in any order.
words = (
    st.lists(st.text(alphabet=string.ascii_letters, min_size=2, max_size=8), min_size=1, max_size=6)
    .map(" ".join)
    .filter(lambda text: not FILLER.fullmatch(text))  # "Thanks" is a closing, not a retraction
)


@pytest.fixture(scope="module")
def verifier():
    v = MathVerifier(MathVerifierConfig(timeout_s=30.0))
    yield v
    v.close()


def _other(value: str, delta: int) -> str:
    return f"{value}{delta}" if delta else f"-({value})"


@SETTINGS
@given(value=values, form=st.sampled_from(FORMS), think=st.booleans(), minus=st.booleans())
def test_meaning_preserving_forms_pass(verifier, value, form, think, minus):
    response = form.format(v=value)
    if minus:  # a unicode minus sign is the same sign after normalisation
        response = response.replace("-", "\u2212")
    if think:
        response = "<think>\nIt might be 7, or not.\n</think>\n" + response
    response += " I hope it is correct." if form.startswith("The") else ""
    assert verifier.verify(response, value).passed, response


@SETTINGS
@given(
    value=values,
    form=st.sampled_from(FORMS),
    delta=st.integers(1, 9),
    text=words,
    mutation=st.sampled_from(
        ["retract_words", "retract_value", "hedge", "negate", "bound", "range", "question",
         "unclosed_think", "operand", "list"]
    ),
)  # fmt: skip
def test_mutations_that_change_the_commitment_fail(verifier, value, form, delta, text, mutation):
    other = _other(value, delta)
    right = form.format(v=value)
    response = {
        "retract_words": f"{right}\n\n{text}.",
        "retract_value": f"{right}\n\n{text} {other}.",
        "hedge": form.format(v=f"{value} or {other}"),
        "negate": form.format(v=f"not {value}"),
        "bound": f"It is at least $\\boxed{{{value}}}$.",
        "range": f"It is {other} to $\\boxed{{{value}}}$.",
        "question": f"Is it {right}?",
        "unclosed_think": f"<think>\n{right}",
        "operand": f"$2 \\cdot \\boxed{{{value}}}$",
        "list": form.format(v=f"{value}, {other}"),
    }[mutation]
    verdict = verifier.verify(response, value)
    assert not verdict.passed, (response, verdict)
