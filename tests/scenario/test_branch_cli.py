"""`rlvr branch RUN --at SEQ`, then the child's `status`, `why`, `verify` and `events export`, typed
as a person types them (stand-in stages drive the child): the child's history is its parent's
prefix by reference plus its own rows, and an edit in that prefix is caught through the child."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver import registry
from orchestrator.driver.commands import load_state, start_run
from orchestrator.driver.runner import Driver
from store.blobs import BlobStore
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages
from tests.tampering import edit_payload


@pytest.fixture
def finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, int]:
    """(store, run id, the seq of step 14's metrics) of a completed run; `rlvr branch` drives
    its child with the same stand-in stages."""
    monkeypatch.setattr(registry, "product_stages", lambda: FakeStages().registry())
    store = str(tmp_path / "events.db")
    log = EventLog(store)
    config = RunConfig(log_path=str(tmp_path))
    run_id, _ = start_run(log, config)
    stages = FakeStages().registry()
    Driver(
        log, run_id, config, stages, run_dir=tmp_path / run_id, blobs=BlobStore(tmp_path / "b")
    ).run()
    at = next(r.seq for r in log.read(run_id, types=["MetricsRecorded"]) if r.event.step == 14)
    return store, run_id, at


def _branch(capsys: pytest.CaptureFixture[str], store: str, run_id: str, at: int) -> str:
    made = rlvr(capsys, "branch", run_id, "--at", str(at), "seed=9", "--store", store)
    assert made.code == 0, made.err[-3000:]
    found = re.search(rf"branched (\S+) from {run_id} at seq {at}", made.err)
    assert found is not None, made.err[-3000:]
    return found.group(1)


def test_branch_then_status_why_and_verify_of_the_child(
    finished: tuple[str, str, int], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store, run_id, at = finished
    child = _branch(capsys, store, run_id, at)
    log = EventLog(store)
    assert log.parent(child) is not None and log.parent(child).seq == at  # a pointer, no copy
    total = log.last_seq(child)

    status = rlvr(capsys, "status", child, "--store", store)
    assert status.code == 0, status.err[-3000:]
    assert f"run {child}" in status.out and "completed" in status.out
    assert f"{run_id} @ seq {at}" in status.out  # the parent row of the detail table
    assert re.search(rf"events\s+│\s+{total}\b", status.out), status.out

    why = rlvr(capsys, "why", child, "--gate", "kl", "--store", store)
    assert why.code == 0, why.err[-3000:]
    gate_seqs = [int(s) for s in re.findall(r"^seq (\d+) gate kl", why.out, re.M)]
    assert gate_seqs and gate_seqs[0] > at, why.out  # the child's own gate, past the branch
    # The window the gate read: each step's KL and their mean, against the threshold.
    assert re.search(r"evidence\n.*kl at steps \d+\.\.\d+: [\d., ]+ -> mean 0\.05", why.out), (
        why.out
    )

    replayed = rlvr(capsys, "replay", child, "--store", store)
    assert replayed.code == 0, replayed.err[-3000:]
    assert f"run {child}: policy decisions under the run's own settings" in replayed.out

    reported = rlvr(capsys, "report", child, "--out", str(tmp_path / "report"), "--store", store)
    assert reported.code == 0, reported.err[-3000:]
    page = (tmp_path / "report" / "index.html").read_text()
    held = re.search(r'<script type="application/json" id="run-data">(.*?)</script>', page, re.S)
    assert held is not None, "the report is the run page with its data inlined"
    data = json.loads(held.group(1))["page"]
    branch = [m for m in data["markers"] if m["kind"] == "branch"]
    assert [(m["seq"], m["step"]) for m in branch] == [(at + 1, 14)]
    gates = {g["name"] for stage in data["stages"] for g in stage["gates"]}
    assert "baseline_recorded" in gates  # a gate of the shared prefix

    verify = rlvr(capsys, "verify", child, "--store", store)
    assert verify.code == 0, verify.err[-3000:]
    assert verify.out.strip() == (
        f"run {child}: hash chain intact ({total} events; seqs 1..{at} shared with run {run_id})"
    )

    exported = rlvr(capsys, "events", "export", child, "--store", store)
    path = tmp_path / "child.jsonl"
    path.write_text(exported.out)
    other = str(tmp_path / "other.db")
    imported = rlvr(capsys, "events", "import", str(path), "--store", other)
    assert imported.code == 0 and f"imported {total} events" in imported.err, imported.err
    again = rlvr(capsys, "verify", child, "--store", other)
    assert again.out.strip() == f"run {child}: hash chain intact ({total} events)"


def test_an_edit_in_the_shared_prefix_is_caught_through_the_child(
    finished: tuple[str, str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    store, run_id, at = finished
    child = _branch(capsys, store, run_id, at)
    log = EventLog(store)
    edited = next(r.seq for r in log.read(run_id, types=["MetricsRecorded"]) if r.event.step == 12)
    edit_payload(log, run_id, edited, {"step": 12, "metrics": {"kl": 0.001}})

    verify = rlvr(capsys, "verify", child, "--store", store)
    assert verify.code == 1
    assert verify.error_lines == [
        f"error: run {child}: hash chain broken at seq {edited}: content does not match its hash "
        f"(edited?) (in run {run_id}'s rows, which this branch's history shares)"
    ]
    for command in (["status", child], ["why", child, "--gate", "kl"]):
        refused = rlvr(capsys, *command, "--store", store)
        assert refused.code == 1 and len(refused.error_lines) == 1, refused.err[-3000:]
        assert f"hash chain broken at seq {edited}" in refused.error_lines[0]


def test_a_branch_cut_before_an_edited_row_shares_none_of_it(
    finished: tuple[str, str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    store, run_id, at = finished
    log = EventLog(store)
    edited = next(r.seq for r in log.read(run_id, types=["MetricsRecorded"]) if r.event.step == 20)
    edit_payload(log, run_id, edited, {"step": 20, "metrics": {"kl": 0.001}})
    child = _branch(capsys, store, run_id, at)
    assert rlvr(capsys, "verify", child, "--store", store).code == 0
    assert rlvr(capsys, "verify", run_id, "--store", store).code == 1  # the parent stays broken


def test_resume_from_a_seq_in_the_shared_prefix_rewinds_the_child_only(
    finished: tuple[str, str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    store, run_id, at = finished
    child = _branch(capsys, store, run_id, at)
    log = EventLog(store)
    parent_rows = [r.hash for r in log.read(run_id)]
    back = next(r.seq for r in log.read(child, types=["MetricsRecorded"]) if r.event.step == 12)
    assert back < at

    resumed = rlvr(capsys, "resume", child, "--from", str(back), "--store", store)
    assert resumed.code == 0, resumed.err[-3000:]
    rewound = [r for r in log.read(child, types=["RunRewound"])]
    assert [(r.run_id, r.event.to_seq) for r in rewound] == [(child, back)]
    assert load_state(log, child).state == "completed" and load_state(log, child).step == 30
    assert rlvr(capsys, "verify", child, "--store", store).code == 0
    assert [r.hash for r in log.read(run_id)] == parent_rows  # the parent is untouched
