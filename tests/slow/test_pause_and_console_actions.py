"""A real small run: `rlvr pause` typed while its driver trains (another process, SQLite) pauses
it at its next batch, and `rlvr resume` ends it on the same final checkpoint as the same run left
alone; a branch started through the console's POST /api/actions/branch on the finished parent is
driven by a detached process to completion and sits under its parent in the store's lineage."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from store.log import EventLog
from tests.scenario.actions_server import serving
from tests.slow.runs import QUICKSTART, SHORT, events, only_run, rlvr, start, wait_until

pytestmark = pytest.mark.slow

# Enough RL steps (about two seconds each here) for a pause typed after the first to land mid-stage.
TINY = [*SHORT, "sft.steps=200", "pipeline.rl_steps=8", "pipeline.round_steps=4", "save_every=2",
        "eval_every=2"]  # fmt: skip
TOKEN = "a-token-for-this-launch"


def _final_digest(store: Path, run_id: str) -> str:
    return events(store, run_id, "RunCompleted")[-1].event.final_checkpoint


def _in_rl(store: Path) -> bool:
    if not store.exists() or not EventLog(store).runs():
        return False
    started = events(store, only_run(store), "StageStarted")
    return any(row.event.stage == "rlvr_optimization" for row in started)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The same run twice, side by side: one left alone, one paused by `rlvr pause` in RL."""
    alone_dir, paused_dir = tmp_path_factory.mktemp("alone"), tmp_path_factory.mktemp("paused")
    alone = start("run", str(QUICKSTART), *TINY, cwd=alone_dir)
    driven = start("run", str(QUICKSTART), *TINY, cwd=paused_dir)
    store = paused_dir / "runs" / "events.db"
    try:
        wait_until(lambda: driven.poll() is not None or _in_rl(store), timeout=1500,
                   what="the run to reach its RL stage", every=0.2)  # fmt: skip
        run_id = only_run(store)
        asked = rlvr("pause", run_id, "--reason", "a person looks at the KL", cwd=paused_dir)
        paused_out, paused_err = driven.communicate(timeout=600)
        alone_out, alone_err = alone.communicate(timeout=1500)
    finally:
        for job in (alone, driven):
            if job.poll() is None:
                job.kill()
    assert alone.returncode == 0, alone_err[-3000:]
    return {"alone": alone_dir, "paused": paused_dir, "run_id": run_id, "asked": asked,
            "driver": (driven.returncode, paused_out, paused_err)}  # fmt: skip


def test_rlvr_pause_stops_a_live_driver_at_its_next_batch_and_resume_ends_where_alone_did(
    two_runs: dict,
) -> None:
    workdir, run_id = two_runs["paused"], two_runs["run_id"]
    asked: subprocess.CompletedProcess = two_runs["asked"]
    assert asked.returncode == 0, asked.stderr
    assert f"run {run_id} is being driven by " in asked.stdout
    code, out, err = two_runs["driver"]
    assert code == 3, err[-3000:]  # paused
    assert "paused at the request of " in out and f"rlvr resume {run_id}" in out
    store = workdir / "runs" / "events.db"
    [paused] = events(store, run_id, "RunPaused")
    [request] = events(store, run_id, "PauseRequested")
    assert paused.seq == request.seq + 1
    assert paused.event.reason.endswith("(rlvr pause): a person looks at the KL")
    resumed = rlvr("resume", run_id, cwd=workdir, timeout=1200)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    alone = two_runs["alone"] / "runs" / "events.db"
    assert _final_digest(store, run_id) == _final_digest(alone, only_run(alone))


def test_a_branch_started_through_the_console_completes_under_its_parent(
    two_runs: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    workdir = two_runs["alone"]
    monkeypatch.chdir(workdir)  # where `rlvr console` runs: the runs' log_path is relative to it
    log = EventLog(workdir / "runs" / "events.db")
    parent = only_run(workdir / "runs" / "events.db")
    at = next(r.seq for r in log.read(parent, types=["MetricsRecorded"]) if r.event.step == 2)
    body = {"run_id": parent, "at_seq": at, "overrides": {"grpo.learning_rate": "5e-5"}}
    headers = {"X-Console-Token": TOKEN}
    # A loaded CI machine folds the parent slowly: the client waits for it.
    with serving(log, TOKEN) as base, httpx.Client(timeout=120) as http:
        preview = http.post(base + "/api/actions/branch/preview", json=body, headers=headers)
        assert preview.json()["ok"], preview.text
        assert [c["key"] for c in preview.json()["changes"]] == ["grpo.learning_rate"]
        started = http.post(base + "/api/actions/branch", json=body, headers=headers)
        assert started.status_code == 200, started.text
        child, pid = started.json()["run_id"], started.json()["pid"]
        assert os.getsid(pid) == pid  # a session of its own: it outlives the console

        def finished() -> bool:
            state = http.get(base + f"/api/actions/runs/{child}").json()["state"]
            return state in ("completed", "failed", "paused")

        wait_until(finished, timeout=900, what=f"branch {child} to finish", every=1)
        time.sleep(0.5)
        assert http.get(base + f"/api/actions/runs/{child}").json()["state"] == "completed", (
            workdir / "runs" / child / "detached.log"
        ).read_text()[-3000:]
    lineage = log.parent(child)
    assert lineage is not None and (lineage.run_id, lineage.seq) == (parent, at)
    [branched] = log.read(child, types=["RunBranched"])
    assert branched.event.overrides == ["grpo.learning_rate=5e-5"]
    assert "completed" in (workdir / "runs" / child / "detached.log").read_text()
    assert log.verify(child).ok
