"""`rlvr why`: given a run's log, the explanation names the evidence and what the run did next."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from orchestrator.audit.why import Explanation, explain, print_explanation
from orchestrator.cli.app import app
from orchestrator.errors import OrchestratorError
from store.events import GateEvaluated, RunRewound, VerifierCalibrated
from store.log import EventLog, StoredEvent
from tests.scenario.fake_stages import FakeStages
from tests.unit.audit.chaos_log import GOOD_CHECKPOINT
from tests.unit.audit.conftest import drive


def _events(run: tuple[EventLog, str]) -> list[StoredEvent]:
    log, run_id = run
    return list(log.read(run_id))


def test_why_on_a_failed_false_positive_gate_names_the_accepted_wrong_answers(
    loose_verifier_run: tuple[EventLog, str],
) -> None:
    explanation = explain(_events(loose_verifier_run))
    [item] = explanation.items
    assert (item.kind, item.name, item.passed) == ("gate", "false_positive_rate", False)
    assert (item.value, item.comparator, item.threshold) == (0.2, "<", 0.05)
    [calibration] = item.evidence
    assert calibration.type == "VerifierCalibrated"
    assert calibration.data["verifier"] == "math"
    assert [w["response"] for w in calibration.data["accepted_wrong"]] == ["3 or 4"]
    assert "task t1: accepted '3 or 4'" in calibration.details
    assert "verifier math accepted wrong answers '3 or 4'" in item.story
    assert [t.type for t in item.then] == ["StateChanged", "RunFailed"]
    assert "verification -> failed" in item.then[0].summary


def test_why_flattens_the_calibration_reports_nested_candidates(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    outcome = {
        "candidate": {"task_id": "add-7", "kind": "hedge", "text": "12 or 13", "correct": False},
        "status": "ok",
        "reason": "last number matches",
    }
    calibrated = VerifierCalibrated(
        verifier="math", n_right=10, n_wrong=10, false_positive_rate=0.1,
        false_negative_rate=0.0, accepted_wrong=[outcome],
    )  # fmt: skip
    log.append("r", [calibrated], expected_seq=0)
    gate = GateEvaluated(
        gate="false_positive_rate", stage="verification", metric="false_positive_rate",
        value=0.1, threshold=0.05, comparator="<", passed=False, evidence_seqs=[1],
    )  # fmt: skip
    log.append("r", [gate], expected_seq=1)
    [item] = explain(list(log.read("r"))).items
    assert item.evidence[0].details == [
        "task add-7: accepted '12 or 13' [hedge]: last number matches"
    ]
    assert item.then == []


def test_why_on_an_adversary_variant_that_passed_names_its_kind_and_example(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    outcome = {"task_id": "add-7", "kind": "adversary:hedge", "response": "Answer: 45 or 46",
               "status": "ok", "reason": "last number matches"}  # fmt: skip
    calibrated = VerifierCalibrated(
        verifier="math", n_right=10, n_wrong=400, false_positive_rate=0.0025,
        false_negative_rate=0.0, accepted_wrong=[outcome],
        accepted_hack_kinds={"adversary:hedge": 1},
        accepted_hack_examples={"adversary:hedge": "Answer: 45 or 46"},
        adversary_variants=300, right_variant_pass_rate=1.0,
    )  # fmt: skip
    log.append("r", [calibrated], expected_seq=0)
    gate = GateEvaluated(
        gate="false_positive_rate", stage="verification", metric="false_positive_rate",
        value=0.0025, threshold=0.05, comparator="<", passed=False, evidence_seqs=[1],
    )  # fmt: skip
    log.append("r", [gate], expected_seq=1)
    [item] = explain(list(log.read("r"))).items
    summary = item.evidence[0].summary
    assert "known-hack kinds accepted (zero tolerance): adversary:hedge x1" in summary
    assert "(e.g. 'Answer: 45 or 46')" in summary
    assert "accepted 'Answer: 45 or 46' [adversary:hedge]" in item.evidence[0].details[0]


def test_why_explains_a_rollback_with_its_benchmark_numbers(
    chaos_events: list[StoredEvent],
) -> None:
    explanation = explain(chaos_events)
    by_name = {item.name: item for item in explanation.items}
    assert set(by_name) == {
        "kl_control:halve_lr", "rollback:rollback", "entropy:raise_temperature", "kl:rollback"
    }  # fmt: skip
    rollback = by_name["rollback:rollback"]
    assert rollback.step == 20
    assert "reverse dropped 1.0 -> 0.9 (-10.0%) at step 20" in rollback.story
    assert (
        f"rolled back from step 20 to step 10 (checkpoint {GOOD_CHECKPOINT[:12]})" in rollback.story
    )
    eval_evidence = next(ev for ev in rollback.evidence if ev.type == "EvalRecorded")
    reverse = next(r for r in eval_evidence.data["benchmarks"] if r["benchmark"] == "reverse")
    assert reverse == {
        "benchmark": "reverse",
        "baseline": 1.0,
        "value": 0.9,
        "change": pytest.approx(-0.1),
    }
    rolled = next(t for t in rollback.then if t.type == "RolledBack")
    assert rolled.data["checkpoint"] == GOOD_CHECKPOINT and rolled.data["to_step"] == 10
    kl = by_name["kl_control:halve_lr"]
    assert "learning_rate 0.0001 -> 5e-05" in kl.story  # from the recorded grpo.learning_rate


def test_why_explains_a_kl_rollback_with_the_window_it_read(
    chaos_events: list[StoredEvent],
) -> None:
    [rollback] = [i for i in explain(chaos_events).items if i.name == "kl:rollback"]
    assert (rollback.step, rollback.threshold) == (39, 0.1)
    # the three steps over the limit it cites, their mean against the limit
    assert rollback.window.steps == [37, 38, 39]
    assert rollback.window.values == [0.15, 0.17, 0.19]
    assert rollback.window.combined == pytest.approx(rollback.value) == pytest.approx(0.17)
    assert "rolled back from step 39 to step 10" in rollback.story


def test_why_on_a_rolled_back_seq_explains_the_decision_that_asked_for_it(
    chaos_events: list[StoredEvent],
) -> None:
    rolled_seq = next(e.seq for e in chaos_events if e.type == "RolledBack")
    [item] = explain(chaos_events, seq=rolled_seq).items
    assert item.name == "rollback:rollback"
    assert rolled_seq in [t.seq for t in item.then]


def test_why_on_the_retention_gate_shows_each_benchmark_from_baseline_to_now(
    chaos_events: list[StoredEvent],
) -> None:
    [item] = explain(chaos_events, gate="capability_retention").items
    assert item.passed is True
    [eval_evidence] = [ev for ev in item.evidence if ev.type == "EvalRecorded"]
    assert "arith: 0.8 -> 0.81 (+1.3%)" in eval_evidence.details
    assert "reverse: 1.0 -> 0.98 (-2.0%)" in eval_evidence.details
    assert [t.type for t in item.then] == ["StateChanged", "RunCompleted"]
    assert item.then[0].summary == "state evaluation -> completed (advance)"


def test_why_refuses_what_it_cannot_explain_with_one_clear_line(
    chaos_events: list[StoredEvent],
) -> None:
    with pytest.raises(OrchestratorError, match=r"no gate 'nope' .*capability_retention"):
        explain(chaos_events, gate="nope")
    with pytest.raises(OrchestratorError, match=r"seq 1 is a RunStarted"):
        explain(chaos_events, seq=1)
    with pytest.raises(OrchestratorError, match=r"no seq 99999 .*1\.\.\d+"):
        explain(chaos_events, seq=99999)
    with pytest.raises(OrchestratorError, match="not both"):
        explain(chaos_events, gate="kl", seq=3)


def test_a_rewound_span_is_still_explained_and_marked_abandoned(tmp_path: Path) -> None:
    log, run_id = drive(tmp_path, FakeStages(false_positive_rate=0.2))
    events = list(log.read(run_id))
    calibrated = next(e.seq for e in events if e.type == "VerifierCalibrated")
    log.append(
        run_id, [RunRewound(to_seq=calibrated - 1, reason="try a stricter verifier")], len(events)
    )
    explanation = explain(list(log.read(run_id)))
    rewind_seq = len(events) + 1
    assert explanation.abandoned == [(calibrated, len(events), rewind_seq)]
    [item] = explanation.items
    assert item.abandoned_by == rewind_seq
    text = _render(explanation)
    assert f"abandoned: rewound at seq {rewind_seq}" in text


def _render(explanation: Explanation) -> str:
    console = Console(record=True, width=200)
    print_explanation(explanation, console)
    return console.export_text()


def test_why_command_prints_a_tree_for_people_and_json_for_machines(
    loose_verifier_run: tuple[EventLog, str],
) -> None:
    log, run_id = loose_verifier_run
    store = log.url.removeprefix("sqlite:///")
    runner = CliRunner()
    text = runner.invoke(app, ["why", run_id, "--store", store], env={"COLUMNS": "200"})
    assert text.exit_code == 0, text.output
    assert "gate false_positive_rate (verification) FAILED" in text.output
    assert "task t1: accepted '3 or 4'" in text.output
    as_json = runner.invoke(
        app, ["why", run_id, "--gate", "verifiability", "--json", "--store", store]
    )
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.output)
    assert data["run_id"] == run_id
    assert [i["name"] for i in data["items"]] == ["verifiability"]
    assert data["items"][0]["passed"] is True
