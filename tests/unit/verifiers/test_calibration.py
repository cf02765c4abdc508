import uuid

from stages.tasks import Task, generate_arithmetic, generate_reversal, load_tasks
from stages.tasks.calibration import Candidate, calibrate, right_candidates, wrong_candidates
from stages.tasks.references import default_config
from stages.verifiers.registry import build_verifier
from stages.verifiers.types import Verdict


def test_wrong_candidates_cover_every_known_way_to_game_a_numeric_answer():
    tasks = generate_arithmetic(2)
    task = next(t for t in tasks if t.prompt == "37+8=")
    kinds = {c.kind: c.text for c in wrong_candidates(task, tasks[:20], seed=0)}
    assert {
        "perturbed",
        "wrong_sign",
        "other_task",
        "empty",
        "hedge",
        "conflicting",
        "echo",
    } <= set(kinds)
    texts = [c.text for c in wrong_candidates(task, tasks[:20], seed=0)]
    assert "37+8" in texts and "Answer: 37+8" in texts and "45 or 46" in texts
    assert all(not c.correct for c in wrong_candidates(task, tasks[:20]))
    assert "45" in [c.text for c in right_candidates(task)]


def test_the_math_verifier_has_no_false_positives_or_negatives_on_the_quickstart_family():
    tasks = generate_arithmetic(2)[::4]
    report = calibrate(build_verifier(default_config("arithmetic")), tasks, seed=1)
    assert report.n_wrong > 2000 and report.n_right > 1000
    assert report.false_positive_rate == 0.0 and report.accepted_wrong == []
    assert report.false_negative_rate == 0.0


def test_exact_match_calibrates_clean_on_the_reversal_family():
    report = calibrate(build_verifier(default_config("reverse")), generate_reversal()[::10])
    assert report.false_positive_rate == 0.0 and report.false_negative_rate == 0.0


class ContainsAnswer:
    """A gameable verifier: passes any response that contains the reference."""

    name = "contains"

    def verify(self, response, reference):
        ok = bool(response) and reference in response
        return Verdict(
            passed=ok, reward=float(ok), status="ok" if ok else "failed", reason="contains"
        )

    def verify_batch(self, items):
        return [self.verify(r, ref) for r, ref in items]


def test_a_gameable_verifier_is_caught_and_the_accepted_candidates_are_named():
    tasks = [
        Task(task_id="t1", family="math", prompt="What is 40+5?", answer="45"),
        Task(task_id="t2", family="math", prompt="What is 2+2?", answer="4"),
    ]
    report = calibrate(ContainsAnswer(), tasks)
    assert report.false_positive_rate > 0.05
    accepted = {(o.candidate.task_id, o.candidate.kind) for o in report.accepted_wrong}
    assert ("t1", "hedge") in accepted and ("t1", "conflicting") in accepted
    assert report.by_kind["hedge"][1] >= 2


def test_qa_tasks_calibrate_with_aliases_as_right_answers(tmp_path):
    tasks = load_tasks(
        __import__("pathlib").Path(__file__).parents[2] / "fixtures/verifiers/qa_tasks.jsonl"
    )
    report = calibrate(build_verifier(default_config("qa")), tasks)
    assert report.false_negative_rate == 0.0
    assert report.false_positive_rate == 0.0


class PassesOneHack:
    """Sound on everything except one known reward-hack text."""

    name = "one-hole"

    def verify(self, response, reference):
        ok = response.strip() in (reference, "HACK")
        return Verdict(passed=ok, reward=float(ok), status="ok" if ok else "failed", reason="")

    def verify_batch(self, items):
        return [self.verify(r, ref) for r, ref in items]


def _calibrated_state(tmp_path, hack_kinds: dict[str, int]):
    from store.events import VerifierCalibrated
    from store.log import EventLog
    from store.projections import project

    event = VerifierCalibrated(verifier="math", n_right=100, n_wrong=1000, false_positive_rate=0.001,
                               false_negative_rate=0.0, accepted_hack_kinds=hack_kinds)  # fmt: skip
    log = EventLog(tmp_path / f"e{uuid.uuid4().hex}.db")
    return project(log.append("r", [event], expected_seq=0))


def test_a_single_accepted_known_hack_fails_the_gate_whatever_the_false_positive_rate(tmp_path):
    from policies.config import GateConfig
    from policies.gates import false_positive_rate

    tasks = generate_arithmetic(2)[:5]
    probe = Candidate(task_id=tasks[0].task_id, kind="digits_in_latex", text="HACK", correct=False,
                      known_hack=True)  # fmt: skip
    report = calibrate(PassesOneHack(), tasks, extra=[probe])
    assert [o.candidate.kind for o in report.accepted_hacks] == ["digits_in_latex"]
    assert report.false_positive_rate < 0.05  # the rate alone would pass

    (verdict,) = false_positive_rate(
        _calibrated_state(tmp_path, {"digits_in_latex": 1}), GateConfig()
    )
    assert not verdict.passed and "digits_in_latex x1" in verdict.detail
    (lenient,) = false_positive_rate(
        _calibrated_state(tmp_path, {"digits_in_latex": 1}), GateConfig(zero_tolerance_hacks=False)
    )
    assert lenient.passed
    (clean,) = false_positive_rate(_calibrated_state(tmp_path, {}), GateConfig())
    assert clean.passed and "reward-hack" not in clean.detail


MATH_HACK_KINDS = {"digits_inside_latex", "conflicting_formats", "equation_in_box", "interval_ends"}


def test_math_tasks_carry_known_hack_probes_of_every_issue_15_kind():
    tasks = [
        Task(task_id="n", family="math", prompt="How many?", answer="57"),
        Task(task_id="i", family="math", prompt="Solve x^2 < 1.", answer="(-1, 1)"),
    ]
    probes = [c for t in tasks for c in wrong_candidates(t, tasks) if c.known_hack]
    assert {c.kind for c in probes if not c.kind.startswith("adversary:")} == MATH_HACK_KINDS
    texts = {c.text for c in probes}
    assert "each friend gets $\\frac{58}{57}$" in texts and "AZYUK57A" in texts
    assert "[-1, 1)" in texts and "[-1, 1]" in texts
    assert all(not c.correct for c in probes)


def test_our_math_verifier_rejects_every_known_hack_probe():
    tasks = [
        *generate_arithmetic(2)[::40],
        Task(task_id="frac", family="math", prompt="p", answer="\\frac{5}{12}"),
        Task(task_id="int", family="math", prompt="p", answer="[0, 1)"),
        Task(task_id="one", family="math", prompt="p", answer="1"),
    ]
    verifier = build_verifier(default_config("arithmetic"))
    try:
        report = calibrate(verifier, tasks)
    finally:
        verifier.close()
    assert set(report.by_kind) >= MATH_HACK_KINDS
    assert report.accepted_hacks == [] and report.false_positive_rate == 0.0


class LastNumber:
    """The extraction the issue found gameable: the last number in the text, digits anywhere."""

    name = "last-number"

    def verify(self, response, reference):
        import re

        numbers = re.findall(r"-?\d+", response)
        ok = bool(numbers) and numbers[-1] == reference
        return Verdict(passed=ok, reward=float(ok), status="ok" if ok else "failed", reason="")

    def verify_batch(self, items):
        return [self.verify(r, ref) for r, ref in items]


def test_a_last_number_verifier_is_caught_by_the_probes_and_each_hack_is_named():
    tasks = [Task(task_id="n", family="math", prompt="How many?", answer="57")]
    kinds = {o.candidate.kind for o in calibrate(LastNumber(), tasks).accepted_hacks}
    assert {"digits_inside_latex", "conflicting_formats", "equation_in_box"} <= kinds


def test_qa_listing_guesses_is_probed():
    tasks = [
        Task(task_id="a", family="qa", prompt="Capital of France?", answer="Paris"),
        Task(task_id="b", family="qa", prompt="Capital of England?", answer="London"),
    ]
    texts = {c.text for c in wrong_candidates(tasks[0], tasks) if c.kind == "hedge"}
    assert "Paris London" in texts
    assert calibrate(build_verifier(default_config("qa")), tasks).false_positive_rate == 0.0
