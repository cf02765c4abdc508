"""Verdict provenance (issue 31 item 2): each step's verdicts name the verifier that produced them
(kind, project version, digests of its settings and code; a judge's model and prompt digest);
`RunStarted` records the task file's digest; the fold, `status` and `why` say where the verifier
changed within a run."""

from __future__ import annotations

import json
from pathlib import Path

from orchestrator.audit.status_view import run_detail
from orchestrator.audit.verifier_changes import verifier_lines
from orchestrator.config import load_config
from orchestrator.driver.commands import start_run
from stages.tasks.references import default_config
from stages.verifiers import provenance as prov
from stages.verifiers.config import JudgeConfig
from store.events import MetricsRecorded, VerdictsRecorded
from store.log import EventLog
from store.snapshots import fold_run, state_from_json, state_to_json
from tests.cli_runner import rlvr

ROOT = Path(__file__).resolve().parents[2]


def test_provenance_names_kind_version_and_the_digests_of_settings_and_code() -> None:
    math = prov.provenance(default_config("math"))
    assert math["kind"] == "math" and math["version"] == prov.project_version()
    assert len(math["settings_digest"]) == len(math["code_digest"]) == 64
    stricter = default_config("math").model_copy(update={"rel_tolerance": 1e-3})
    assert prov.provenance(stricter)["settings_digest"] != math["settings_digest"]
    assert prov.provenance(stricter)["code_digest"] == math["code_digest"]
    assert prov.provenance(default_config("qa"))["code_digest"] != math["code_digest"]


def test_the_code_digest_follows_the_kinds_imports_within_the_verifiers() -> None:
    modules = prov._closure("math_verifier")
    assert {"math_verifier", "math_parse", "types"} <= modules
    assert "code_verifier" not in modules and "judge" not in modules


def test_a_judges_provenance_names_its_model_and_prompt() -> None:
    judged = prov.provenance(JudgeConfig(judge_model="judge-7b"))
    assert judged["model"] == "judge-7b" and len(judged["prompt_digest"]) == 64


def _verdicts(step: int, **verifier) -> list:
    return [
        VerdictsRecorded(step=step, verifier={"kind": "math", **verifier}, n_passed=1, n_total=2),
        MetricsRecorded(step=step, metrics={}),
    ]


def test_the_fold_status_and_why_say_where_the_verifier_changed(tmp_path: Path, capsys) -> None:
    data = tmp_path / "tasks.jsonl"
    data.write_text('{"task_id": "a", "prompt": "1+1=", "answer": "2"}\n')
    config = load_config(
        ROOT / "configs" / "quickstart.toml",
        [f"log_path={tmp_path}", "data.task_family=math", f"data.data_path={data}"],
    )
    log = EventLog(tmp_path / "events.db")
    run_id, _ = start_run(log, config)
    for step in range(4):
        code = "a" * 64 if step < 2 else "b" * 64
        log.append(run_id, _verdicts(step, version="0.1.0", code_digest=code),
                   expected_seq=log.last_seq(run_id))  # fmt: skip
    state = fold_run(log, run_id)
    assert state.data_digest == prov._sha(data.read_bytes())
    assert [c["step"] for c in state.verifier_changes] == [2]
    assert state_from_json(state_to_json(state)).verifier_changes == state.verifier_changes
    line = verifier_lines(state)[0]
    assert line.startswith("step 2 (seq ") and "code aaaaaaaaaaaa -> bbbbbbbbbbbb" in line
    assert "version" not in line  # only what differed
    assert run_detail(state, None)["verifier_changes"] == [line]
    shown = rlvr(capsys, "status", run_id, "--store", str(tmp_path / "events.db"))
    assert shown.code == 0 and "verifier changed" in shown.out and "bbbbbbbbbbbb" in shown.out
    why = rlvr(capsys, "why", run_id, "--store", str(tmp_path / "events.db"))
    assert why.code == 0 and line in why.out
    as_json = rlvr(capsys, "why", run_id, "--json", "--store", str(tmp_path / "events.db"))
    assert json.loads(as_json.out)["verifier_changes"] == [line]


def test_one_verifier_throughout_shows_no_change(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    config = load_config(ROOT / "configs" / "quickstart.toml", [f"log_path={tmp_path}"])
    run_id, _ = start_run(log, config)
    for step in range(3):
        log.append(run_id, _verdicts(step, code_digest="a" * 64),
                   expected_seq=log.last_seq(run_id))  # fmt: skip
    state = fold_run(log, run_id)
    assert state.verifier_changes == () and state.data_digest is None
    assert state.verifier["code_digest"] == "a" * 64


def test_a_step_that_recorded_no_metrics_folds(tmp_path: Path) -> None:
    # The fold once took min() of no early metrics and raised on an empty metrics row.
    log = EventLog(tmp_path / "events.db")
    config = load_config(ROOT / "configs" / "quickstart.toml", [f"log_path={tmp_path}"])
    run_id, _ = start_run(log, config)
    log.append(run_id, [MetricsRecorded(step=0, metrics={})], expected_seq=1)
    assert fold_run(log, run_id).step == 0
