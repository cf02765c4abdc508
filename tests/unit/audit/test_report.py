"""`rlvr report`: the run page as one self-contained file, its data inlined: every gate with its
explanation, every decision and rollback explained, and the rollouts of the steps that matter."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from orchestrator.audit.report import build_report
from orchestrator.cli.app import app
from store.log import EventLog


def _data(page: str) -> dict:
    held = re.search(r'<script type="application/json" id="run-data">(.*?)</script>', page, re.S)
    assert held is not None
    return json.loads(held.group(1))


def test_the_report_of_a_chaos_run_explains_every_gate_and_decision(
    chaos: tuple[EventLog, str], tmp_path: Path
) -> None:
    log, run_id = chaos
    index = build_report(log, run_id, tmp_path / "report")
    assert [p.name for p in (tmp_path / "report").iterdir()] == ["index.html"]
    data = _data(index.read_text(encoding="utf-8"))
    gates = [g for stage in data["page"]["stages"] for g in stage["gates"]]
    assert {g["name"] for g in gates} >= {"false_positive_rate", "kl", "capability_retention"}
    explained = [m["seq"] for m in data["page"]["markers"] if m["explained"]]
    assert set(data["why"]) == {str(s) for s in [g["seq"] for g in gates] + explained}
    stories = " ".join(i["story"] for w in data["why"].values() for i in w["items"])
    assert "rolled back from step 20 to step 10" in stories
    assert "learning_rate 0.0001 -> 5e-05" in stories
    # first and last, the rollback's from and to steps, the decisions' steps
    assert {"1", "40", "20", "10", "4", "35"} <= set(data["steps"])
    step40 = data["steps"]["40"]["attempts"][0]["groups"][1]
    assert step40["prompt"] == "40 + 2 ="
    assert [(r["completion"], r["passed"]) for r in step40["rollouts"]] == [
        ("42", True),
        ("43", False),
    ]


def test_the_report_needs_no_server_and_no_network(
    chaos: tuple[EventLog, str], tmp_path: Path
) -> None:
    log, run_id = chaos
    page = build_report(log, run_id, tmp_path).read_text(encoding="utf-8")
    assert not re.search(r"(src|href)=\"(https?:)?//", page)
    assert 'rel="stylesheet"' not in page and "@import" not in page and "<script src" not in page
    assert '<meta http-equiv="Content-Security-Policy"' in page


def test_a_run_that_failed_before_training_still_gets_its_page(
    loose_verifier_run: tuple[EventLog, str], tmp_path: Path
) -> None:
    log, run_id = loose_verifier_run
    data = _data(build_report(log, run_id, tmp_path).read_text(encoding="utf-8"))
    failed = [g for s in data["page"]["stages"] for g in s["gates"] if not g["passed"]]
    assert [g["name"] for g in failed] == ["false_positive_rate"]
    assert data["steps"] == {} and data["page"]["series"]["step"] == []
    [why] = [data["why"][str(g["seq"])] for g in failed]
    assert why["items"][0]["headline"].startswith("gate false_positive_rate (verification) FAILED")


def test_report_command_writes_the_page_where_asked(
    loose_verifier_run: tuple[EventLog, str], tmp_path: Path
) -> None:
    log, run_id = loose_verifier_run
    store = log.url.removeprefix("sqlite:///")
    result = CliRunner().invoke(
        app, ["report", run_id, "--out", str(tmp_path / "r"), "--store", store]
    )
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(tmp_path / "r" / "index.html")
    assert run_id in (tmp_path / "r" / "index.html").read_text(encoding="utf-8")


def test_rollout_text_kept_in_a_blob_is_shown_and_a_missing_blob_is_named(tmp_path: Path) -> None:
    from store.blobs import BlobStore
    from tests.unit.audit.hostile_log import hostile_run

    log, run_id, blobs = hostile_run(tmp_path)
    page = build_report(log, run_id, tmp_path / "a", blobs=blobs).read_text(encoding="utf-8")
    [attempt] = _data(page)["steps"]["1"]["attempts"]
    assert attempt["text"] == "blob" and attempt["groups"][0]["rollouts"][1]["passed"] is False
    elsewhere = build_report(log, run_id, tmp_path / "b", blobs=BlobStore(tmp_path / "none"))
    [missing] = _data(elsewhere.read_text(encoding="utf-8"))["steps"]["1"]["attempts"]
    assert missing["text"].endswith(f"blob {attempt['blob'][:16]}, which is not in this store")


def test_the_report_carries_at_most_max_steps_the_first_and_last_always() -> None:
    from orchestrator.audit.report import MAX_STEPS, steps_that_matter

    markers = [{"kind": "decision", "step": s, "seq": s} for s in range(2, 200)]
    page = {"markers": markers + [{"kind": "rollback", "step": 150, "seq": 999}]}
    why = {999: {"items": [{"then": [{"type": "RolledBack", "data": {"to_step": 140}}]}]}}
    chosen = steps_that_matter(page, why, list(range(1, 301)))
    assert len(chosen) == MAX_STEPS == 60 and chosen[:2] == [1, 300]
    assert chosen[2:6] == [150, 140, 2, 3]  # then the rollback's steps, then the decisions
    assert steps_that_matter(page, why, []) == []
    assert steps_that_matter({"markers": [markers[0]]}, {}, [1, 2, 3]) == [1, 3, 2]
