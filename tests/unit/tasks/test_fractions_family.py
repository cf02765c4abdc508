"""The `fractions` family: `a/b+c/b=` answered as `\\frac{a+c}{b}`; its teacher adds the
denominators too on improper sums only, with probability `teacher.carry_error`, drawn afresh each
time; the math verifier passes the right sum (reduced or not) and fails the teacher's mistake."""

from __future__ import annotations

import random

from stages.config import TeacherConfig
from stages.sft_preparation import _teacher_answer
from stages.tasks.families import FAMILIES
from stages.tasks.references import verify_tasks
from stages.verifiers.registry import build_verifier


def _tasks():
    return FAMILIES["fractions"].generate({})


def test_the_family_lists_every_same_denominator_sum_once_with_its_latex_answer() -> None:
    tasks = _tasks()
    assert len(tasks) == 9 * 9 * 14 == len({t.task_id for t in tasks})
    by_prompt = {t.prompt: t for t in tasks}
    assert by_prompt["3/7+2/7="].answer == "\\frac{5}{7}"
    assert by_prompt["3/7+2/7="].category == "proper"
    assert by_prompt["5/7+7/7="].answer == "\\frac{12}{7}"
    assert by_prompt["5/7+7/7="].category == "improper"
    assert by_prompt["5/7+7/7="].metadata["teacher_mistake"] == "\\frac{12}{14}"


def test_the_teacher_errs_only_on_improper_sums_at_carry_error_drawn_afresh() -> None:
    teacher = TeacherConfig(noise="forgets_carry", carry_error=0.6)
    rng = random.Random(0)
    tasks = {t.prompt: t for t in _tasks()}
    proper, improper = tasks["3/7+2/7="], tasks["5/7+7/7="]
    assert {_teacher_answer(proper, teacher, rng, []) for _ in range(200)} == {"\\frac{5}{7}"}
    labels = [_teacher_answer(improper, teacher, rng, []) for _ in range(2000)]
    assert set(labels) == {"\\frac{12}{7}", "\\frac{12}{14}"}
    assert 0.55 < labels.count("\\frac{12}{14}") / len(labels) < 0.65
    exact = TeacherConfig(noise="none")
    assert _teacher_answer(improper, exact, rng, []) == "\\frac{12}{7}"


def test_the_math_verifier_passes_the_sum_in_any_equal_form_and_fails_the_mistake() -> None:
    task = {t.prompt: t for t in _tasks()}["5/7+7/7="]
    responses = ["\\frac{12}{7}", "\\frac{24}{14}", "12/7", "\\frac{12}{14}", "\\frac{6}{7}"]
    verdicts = verify_tasks(build_verifier({"kind": "math"}), [task] * 5, responses)
    assert [v.passed for v in verdicts] == [True, True, True, False, False]


def test_calibration_wrongs_include_the_teachers_mistake_and_never_an_equal_value() -> None:
    family = FAMILIES["fractions"]
    tasks = _tasks()
    by_prompt = {t.prompt: t for t in tasks}
    task = by_prompt["4/2+6/2="]  # 10/2 = 5: every other task whose sum is 5 is right here
    assert family.same_answer(task, "\\frac{15}{3}")
    assert not family.same_answer(task, "\\frac{15}{4}")
    equal = [t for t in tasks if t.task_id != task.task_id and family.same_answer(task, t.answer)]
    assert equal  # so the draw below meets them
    for seed in range(50):
        wrong = family.wrong_candidates(task, equal + tasks[:5], random.Random(seed))
        assert not any(family.same_answer(task, c.text) for c in wrong)
    kinds = {c.kind: c.text for c in family.wrong_candidates(task, tasks, random.Random(0))}
    assert kinds["denominators_added"] == "\\frac{10}{4}"
