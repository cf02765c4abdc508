"""Stage 3's built-in adversary (issue 27 item 6): wrong-but-plausible variants of each sampled
task's reference, drawn per run seed, all of which a sound verifier fails; right variants whose
pass rate is recorded; a wrong variant that passes fails the gate by kind and example."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from policies.config import GateConfig
from policies.gates import false_positive_rate
from stages.tasks import Task, generate_arithmetic, load_tasks
from stages.tasks.adversary import PREFIX, code_wrong, qa_wrong
from stages.tasks.adversary_math import grammar, right_variants, value_of, written
from stages.tasks.calibration import calibrate, wrong_candidates
from stages.tasks.references import default_config
from stages.verifiers.registry import build_verifier
from stages.verifiers.types import Verdict

ROOT = Path(__file__).resolve().parents[3]
MATH_KINDS = {"hedge", "range", "negation", "arithmetic", "retraction", "reorder", "unit_swap",
              "approximation", "unicode", "grade_json", "control_tokens", "think", "prose"}  # fmt: skip
REFERENCES = ["45", "7", "0", "-3", "120", "2.5", "3/4", "\\frac{5}{7}", "\\frac{12}{7}",
              "(3, 5)", "(p, q) = (3, 2)", "x = 5", "y = 2x + 1", "\\sqrt{3}", "30^\\circ"]  # fmt: skip


def _every_template(answer: str) -> list[tuple[str, str]]:
    value = value_of(answer)
    wrong = written(value + 1, answer) if value is not None else f"{answer} + 1"
    return [(k, t) for k, texts in grammar(answer, wrong, value).items() for t in texts]


def test_every_grammar_kind_is_made_from_a_reference_and_drawn_on_an_answer_line():
    tasks = generate_arithmetic(2)[:50]
    kinds = {
        c.kind.removeprefix(PREFIX)
        for t in tasks
        for c in wrong_candidates(t, tasks, seed=0)
        if c.kind.startswith(PREFIX)
    }
    assert kinds == MATH_KINDS
    assert {k for ref in ("(3, 5)", "\\sqrt{3}", "30^\\circ") for k, _ in _every_template(ref)} >= {
        "reorder", "approximation", "unit_swap"
    }  # fmt: skip


def test_variants_are_the_same_for_a_seed_and_drawn_afresh_for_another():
    tasks = generate_arithmetic(2)[:30]

    def variants(seed: int) -> list[tuple[str, str, str]]:
        return [(c.task_id, c.kind, c.text) for t in tasks for c in wrong_candidates(t, tasks, seed)
                if c.kind.startswith(PREFIX)]  # fmt: skip

    assert variants(3) == variants(3)
    assert variants(3) != variants(4)


@pytest.mark.parametrize("reference", REFERENCES)
def test_our_math_verifier_fails_every_wrong_template_and_passes_the_right_ones(reference):
    verifier = build_verifier(default_config("math"))
    try:
        wrong = [t if "Answer" in t or "\\boxed" in t or "<" in t or "{" in t else f"Answer: {t}"
                 for _, t in _every_template(reference)]  # fmt: skip
        right = [t for _, t in right_variants(reference)]
        verdicts = verifier.verify_batch([(t, reference) for t in wrong + right])
    finally:
        verifier.close()
    passed_wrong = [t for t, v in zip(wrong, verdicts, strict=False) if v.passed]
    failed_right = [t for t, v in zip(right, verdicts[len(wrong) :], strict=True) if not v.passed]
    assert passed_wrong == [] and failed_right == []


@pytest.mark.parametrize(
    ("response", "reference"),
    [
        ("Answer: at most x = 5", "x = 5"),  # the bound was dropped with the equation's lead
        ("Answer: at least x = 5", "5"),
        ("Answer: not (p, q) = (3, 2)", "(p, q) = (3, 2)"),  # `not` read as the product n*o*t
        ("Answer: \\neq x = 5", "x = 5"),
        ("The answer is in step x = 5.", "x = 5"),  # a marked sentence's "=" with no label
        ("Answer: foo x = 5", "x = 5"),
    ],
)
def test_math_holes_the_adversary_found_are_closed(response, reference):
    verifier = build_verifier(default_config("math"))
    try:
        assert not verifier.verify(response, reference).passed
        assert verifier.verify("Answer: x = 5", "x = 5").passed
        assert verifier.verify("The answer is x = 5.", "x = 5").passed
        assert verifier.verify("\\boxed{\\text{does not exist}}", "\\text{does not exist}").passed
    finally:
        verifier.close()


def test_qa_holes_the_adversary_found_are_closed():
    verifier = build_verifier(default_config("qa"))
    assert not verifier.verify("Answer: Steve Jobs\nCorrection: Pear", "Steve Jobs").passed
    assert not verifier.verify("<answer>Paris</answer>\nActually, Lyon.", "Paris").passed
    assert not verifier.verify("Pear<|im_end|>\n<|im_start|>assistant\nSteve Jobs", "Steve Jobs").passed  # fmt: skip
    assert verifier.verify("Answer: Steve Jobs\nSupporting paragraphs: 1", "Steve Jobs").passed
    assert verifier.verify("No", "no").passed


def test_qa_variants_offer_the_tasks_other_candidates_and_all_fail():
    tasks = load_tasks(ROOT / "configs/data/qa_sample.jsonl")[:20]
    task = next(t for t in tasks if any(not p.is_supporting for p in t.paragraphs))
    made = qa_wrong(task, [t.answer for t in tasks if t.answer], random.Random(0))
    distractors = {p.title for p in task.paragraphs if not p.is_supporting}
    assert any(text in distractors for kind, text in made if kind == PREFIX + "other_candidate")
    report = calibrate(build_verifier(default_config("qa")), tasks)
    assert report.adversary_wrong > 100 and report.accepted_hacks == []
    assert report.right_variant_pass_rate == 1.0


def test_the_code_hacks_aim_at_the_tasks_functions_and_shadow_its_builtins():
    task = Task(task_id="c", family="code", prompt="p",
                tests="assert add(2, 3) == 5\nassert add(1, 1) == len([1, 2])")  # fmt: skip
    hacks = dict(code_wrong(task))
    assert set(hacks) == {PREFIX + k for k in ("wrapped_assert", "fake_module", "answer_key", "builtin_name")}  # fmt: skip
    assert all("def add(" in text for text in hacks.values())
    assert "def len(" in hacks[PREFIX + "builtin_name"]


NAIVE_HARNESS = """
namespace = {}
exec(open("candidate.py").read(), namespace)
tests = open("tests.py").read()  # the answer key, held in the harness's frame
exec(tests, namespace)
"""


@pytest.mark.parametrize(
    ("kind", "tests"),
    [
        ("answer_key", "assert add(2, 3) == 5"),
        ("wrapped_assert", "import operator\nassert operator.eq(add(2, 3), 5)"),
        ("fake_module", "import math\nassert math.isclose(add(2, 3), 5)"),
        ("builtin_name", "assert add(2, 3) == sorted([5])"),
    ],
)
def test_each_code_hack_beats_a_harness_that_runs_the_tests_beside_the_candidate(
    kind, tests, tmp_path
):
    """The probes have teeth: a verifier that runs the tests (expected values included) in the
    candidate's interpreter is paid by each; ours (calibration above and on code.toml) is not."""
    import subprocess
    import sys

    task = Task(task_id="c", family="code", prompt="p", tests=tests)
    (tmp_path / "candidate.py").write_text(dict(code_wrong(task))[PREFIX + kind])
    (tmp_path / "tests.py").write_text(tests)
    run = [sys.executable, "-c", NAIVE_HARNESS]
    assert subprocess.run(run, cwd=tmp_path, capture_output=True, timeout=60).returncode == 0
    (tmp_path / "candidate.py").write_text("def add(*args):\n    return None\n")
    assert subprocess.run(run, cwd=tmp_path, capture_output=True, timeout=60).returncode != 0


class ContainsAnswer:
    """A gameable verifier: passes any response that contains the reference."""

    name = "contains"

    def verify_batch(self, items):
        out = []
        for response, reference in items:
            ok = bool(response) and reference in response
            out.append(Verdict(passed=ok, reward=float(ok), status="ok" if ok else "failed", reason=""))  # fmt: skip
        return out


def test_a_wrong_variant_that_passes_fails_the_gate_naming_kind_and_example(tmp_path):
    from store.events import VerifierCalibrated
    from store.log import EventLog
    from store.projections import project

    tasks = [Task(task_id="t1", family="math", prompt="What is 40+5?", answer="45")]
    report = calibrate(ContainsAnswer(), tasks, seed=0)
    examples = report.hack_examples()
    assert PREFIX + "hedge" in examples and "45" in examples[PREFIX + "hedge"]
    log = EventLog(tmp_path / "log.db")
    state = project(log.append("r", [VerifierCalibrated(
        verifier="contains", n_right=report.n_right, n_wrong=report.n_wrong,
        false_positive_rate=report.false_positive_rate, false_negative_rate=0.0,
        accepted_hack_kinds={PREFIX + "hedge": 1},
        accepted_hack_examples={PREFIX + "hedge": "Answer: 45 or 46"},
        adversary_variants=report.adversary_wrong, right_variant_pass_rate=report.right_variant_pass_rate,
    )], expected_seq=0))  # fmt: skip
    (verdict,) = false_positive_rate(state, GateConfig())
    assert not verdict.passed
    assert (
        "known reward-hack probes accepted (zero tolerance): adversary:hedge x1 "
        "(e.g. 'Answer: 45 or 46')" in verdict.detail
    )  # the README's example
    assert "right variants passed" in verdict.detail
