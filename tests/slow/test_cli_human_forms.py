"""Every `rlvr` command in its human form (not only `--json`), typed as a person types it, on one
real finished run: each exits as documented and prints what it is for, with no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from store.log import EventLog
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
    # The report is the run page with its data inlined: the steps it carries hold their rollouts,
    # each completion beside its verdict.
    import re

    held = re.search(r'<script type="application/json" id="run-data">(.*?)</script>', html, re.S)
    assert held is not None
    steps = json.loads(held.group(1))["steps"]
    rollouts = [r for step in steps.values() for attempt in step["attempts"]
                for group in attempt["groups"] for r in group["rollouts"]]  # fmt: skip
    assert rollouts and all(isinstance(r["passed"], bool) for r in rollouts)
    assert any(r["completion"] for r in rollouts)


def test_sink_supervise_and_a_refused_resume_in_human_form(finished, tmp_path: Path) -> None:
    workdir, run_id = finished
    assert "steps written" in _ok("sink", run_id, "--to", "tensorboard", str(tmp_path), cwd=workdir)
    _ok("supervise", "--once", cwd=workdir)  # a finished run: nothing to restart
    refused = rlvr("resume", run_id, cwd=workdir, timeout=300)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert f"run {run_id} is completed" in refused.stderr


# --- issue 29: the model out, as typed --------------------------------------------------------

_PROBE = """
import sys
import mlx.core as mx
from mlx_lm import generate, load
model, tokenizer = load(sys.argv[1], adapter_path=sys.argv[2] if len(sys.argv) > 2 else None)
prompt = tokenizer.apply_chat_template([{"role": "user", "content": "57+8="}], add_generation_prompt=True)
print(repr(generate(model, tokenizer, prompt, max_tokens=8)))
logits = model(mx.array([prompt]))[0, -1]
print(" ".join(f"{v:.5f}" for v in logits.tolist()))
"""


def _load_and_generate(cwd: Path, *paths: Path) -> tuple[str, list[float]]:
    """`mlx_lm.load` then `generate`, in a process of their own, as a user's script does."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _PROBE, *map(str, paths)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    text, logits = done.stdout.strip().splitlines()[-2:]
    return text, [float(v) for v in logits.split()]


def test_export_model_then_mlx_lm_load_and_generate(finished, tmp_path: Path) -> None:
    workdir, run_id = finished
    out = tmp_path / "model"
    said = _ok("export-model", "latest", "--out", str(out), cwd=workdir)
    assert f"mlx_lm.load('{out}')" in said and "stopped at EOS" in said
    assert sorted(p.name for p in out.iterdir()) == [
        "config.json",
        "model.safetensors",
        "special_tokens_map.json",
        "tokenizer.json",
        "tokenizer_config.json",
    ]  # fmt: skip: no optimizer, reference or trainer state
    config = json.loads((out / "tokenizer_config.json").read_text())
    assert config["eos_token"] and config["chat_template"]
    text, _ = _load_and_generate(workdir, out)
    assert text.strip("'\"")  # it generated, and stopped (max 8 tokens)
    store = workdir / "runs" / "events.db"
    [exported] = events(store, run_id, "ModelExported")
    final = events(store, run_id, "RunCompleted")[0].event.final_checkpoint
    assert (exported.event.checkpoint, exported.event.which) == (final, "best")
    again = rlvr("export-model", run_id, "--out", str(out), cwd=workdir, timeout=300)
    assert again.returncode == 2 and "exists and is not empty" in again.stderr
    missing = rlvr("export-model", run_id, "--checkpoint", "99", "--out", str(tmp_path / "x"),
                   cwd=workdir, timeout=300)  # fmt: skip
    assert missing.returncode == 2 and "checkpoints kept at steps" in missing.stderr
    assert "hash chain intact" in _ok("verify", run_id, cwd=workdir)


# --- issue 29: exit codes and a live run, as typed --------------------------------------------


def test_a_run_over_its_checkpoint_budget_pauses_exit_3_with_the_resume_command(
    tmp_path: Path,
) -> None:
    paused = rlvr("run", str(QUICKSTART), *TINY, "checkpoints.max_bytes=1000", cwd=tmp_path,
                  timeout=900)  # fmt: skip
    assert paused.returncode == 3, paused.stderr[-3000:]
    run_id = only_run(tmp_path / "runs" / "events.db")
    assert f"run {run_id}: paused at step" in paused.stdout
    assert "paused: checkpoint budget" in paused.stdout
    assert f"continue with: rlvr resume {run_id}" in paused.stdout


def test_a_run_whose_gate_fails_exits_1_and_unknown_input_exits_2(tmp_path: Path) -> None:
    failed = rlvr("run", str(QUICKSTART), *TINY, "gates.max_false_positive_rate=0.0",
                  cwd=tmp_path, timeout=900)  # fmt: skip
    assert failed.returncode == 1, failed.stderr[-3000:]
    run_id = only_run(tmp_path / "runs" / "events.db")
    assert f"why it failed: rlvr why {run_id}" in failed.stdout
    unknown = rlvr("status", "no-such-run", cwd=tmp_path, timeout=300)
    assert unknown.returncode == 2 and "no run 'no-such-run'" in unknown.stderr
    typo = rlvr("events", run_id, "--type", "GateEvaluted", cwd=tmp_path, timeout=300)
    assert typo.returncode == 2 and "did you mean GateEvaluated" in typo.stderr


def test_a_live_run_reads_healthy_can_be_hidden_and_ctrl_c_pauses_it_exit_130(
    tmp_path: Path,
) -> None:
    """A real `rlvr run` in another process, lease TTL 2 s: `status` reads the lease its heartbeat
    renews (healthy long after the TTL the log recorded), `runs hide` leaves its chain alone,
    and Ctrl-C (SIGINT) pauses it: exit 130 and the resume command."""
    import signal
    import time

    from tests.slow.runs import start, wait_until

    job = start("run", str(QUICKSTART), *TINY, "lease_ttl_s=2", cwd=tmp_path)
    store = tmp_path / "runs" / "events.db"
    try:
        wait_until(lambda: store.exists() and bool(EventLog(store).runs())
                   and bool(events(store, only_run(store), "LeaseAcquired")),
                   timeout=300, what="the run to take its lease")  # fmt: skip
        run_id = only_run(store)
        time.sleep(6)  # three TTLs: the expiry the log recorded at acquisition is long past
        detail = json.loads(rlvr("status", "latest", "--json", cwd=tmp_path, timeout=300).stdout)
        assert detail["health"].startswith("ok (lease held by "), detail["health"]
        assert f"run {run_id}: hidden from lists" in _ok("runs", "hide", run_id, cwd=tmp_path)
        job.send_signal(signal.SIGINT)
        out, err = job.communicate(timeout=600)
    finally:
        if job.poll() is None:
            job.kill()
    assert job.returncode == 130, err[-3000:]
    assert "paused: SIGINT received" in out and f"continue with: rlvr resume {run_id}" in out
    assert "hash chain intact" in _ok("verify", run_id, cwd=tmp_path)
    assert run_id not in _ok("status", cwd=tmp_path)  # hidden
