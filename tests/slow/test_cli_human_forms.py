"""Every `rlvr` command in its human form (not only `--json`), typed as a person types it, on one
real finished run: each exits as documented and prints what it is for, with no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.slow.runs import QUICKSTART, SHORT, events, only_run, rlvr

pytestmark = pytest.mark.slow
# A few steps with a checkpoint and an eval in each RL stage: the commands are the subject.
TINY = [*SHORT, "sft.steps=200", "pipeline.rl_steps=4", "pipeline.round_steps=2", "save_every=2",
        "eval_every=2"]  # fmt: skip


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    workdir = tmp_path_factory.mktemp("human")
    done = rlvr("run", str(QUICKSTART), *TINY, cwd=workdir, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    store = workdir / "runs" / "events.db"
    return workdir, only_run(store)


def _ok(*args: str, cwd: Path) -> str:
    # A terminal wide enough that tables show whole run ids.
    done = rlvr(*args, cwd=cwd, timeout=300, env={"COLUMNS": "250"})
    assert done.returncode == 0, f"rlvr {' '.join(args)}:\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stdout + done.stderr
    return done.stdout + done.stderr


def test_status_of_one_run_and_of_the_store_in_human_form(finished) -> None:
    workdir, run_id = finished
    detail = _ok("status", run_id, cwd=workdir)
    assert run_id in detail and "completed" in detail
    listing = _ok("status", cwd=workdir)
    assert run_id in listing and "completed" in listing


def test_events_verify_why_and_replay_in_human_form(finished) -> None:
    workdir, run_id = finished
    assert "RunStarted" in _ok("events", run_id, cwd=workdir)
    assert "GateEvaluated" in _ok("events", run_id, "--type", "GateEvaluated", cwd=workdir)
    assert "hash chain intact" in _ok("verify", run_id, cwd=workdir)
    store = workdir / "runs" / "events.db"
    gate = json.loads(events(store, run_id, "GateEvaluated")[0].payload)["gate"]
    assert gate in _ok("why", run_id, "--gate", gate, cwd=workdir)
    _ok("why", run_id, cwd=workdir)
    assert "decided" in _ok("replay", run_id, cwd=workdir).lower()


def test_export_then_import_into_another_store(finished, tmp_path: Path) -> None:
    workdir, run_id = finished
    exported = rlvr("events", "export", run_id, cwd=workdir, timeout=300)
    assert exported.returncode == 0, exported.stderr[-3000:]
    dump = tmp_path / "run.jsonl"
    dump.write_text(exported.stdout, encoding="utf-8")
    other = tmp_path / "other.db"
    assert "hash chain verified" in _ok(
        "events", "import", str(dump), "--store", str(other), cwd=workdir
    )


def test_report_shows_a_sampled_response_beside_its_verdict(finished) -> None:
    workdir, run_id = finished
    page = workdir / _ok("report", run_id, cwd=workdir).strip().splitlines()[-1]
    html = page.read_text(encoding="utf-8")
    assert "no rollouts were recorded" not in html
    assert 'class="pass"' in html or 'class="fail"' in html


def test_sink_supervise_and_a_refused_resume_in_human_form(finished, tmp_path: Path) -> None:
    workdir, run_id = finished
    assert "steps written" in _ok("sink", run_id, "--to", "tensorboard", str(tmp_path), cwd=workdir)
    _ok("supervise", "--once", cwd=workdir)  # a finished run: nothing to restart
    refused = rlvr("resume", run_id, cwd=workdir, timeout=300)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert f"run {run_id} is completed" in refused.stderr
