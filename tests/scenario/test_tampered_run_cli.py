"""Every reading command, typed as a person types it, refuses a run whose log was edited and names
the broken seq; with a chain key, a forged row with a recomputed chain and a deleted tail are
caught too. One small finished run (stand-in stages) per module, tampered once."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from orchestrator.driver.runner import Driver
from store.blobs import BlobStore
from store.keyed import KEY_ENV
from store.log import EventLog
from tests.scenario.fake_stages import FakeStages
from tests.tampering import edit_payload, forge_chain, truncate, write_key

RLVR = [str(Path(sys.executable).with_name("rlvr"))]


def _rlvr(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None):
    return subprocess.run(
        [*RLVR, *args], capture_output=True, text=True, timeout=120, cwd=cwd,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


def _finished_run(directory: Path) -> tuple[EventLog, str, int]:
    """A completed run with stand-in stages; the seq of its first step's metrics."""
    log = EventLog(directory / "events.db")
    config = RunConfig(log_path=str(directory))
    run_id, _ = start_run(log, config)
    stages = FakeStages().registry()
    Driver(
        log, run_id, config, stages, run_dir=directory / run_id, blobs=BlobStore(directory / "b")
    ).run()
    metrics = next(log.read(run_id, types=["MetricsRecorded"]))
    return log, run_id, metrics.seq


@pytest.fixture(scope="module")
def edited(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, int]:
    """(store, run id, edited seq): a step's KL lowered in place, as a careless hand would."""
    directory = tmp_path_factory.mktemp("edited")
    log, run_id, seq = _finished_run(directory)
    assert log.verify(run_id).ok and list(log.read(run_id))  # read once: all of it verified
    edit_payload(log, run_id, seq, {"step": 11, "metrics": {"kl": 0.001, "reward_mean": 0.6}})
    return str(directory / "events.db"), run_id, seq


@pytest.mark.parametrize(
    "command",
    [
        ["status", "{run}"],
        ["why", "{run}"],
        ["report", "{run}"],
        ["replay", "{run}"],
        ["events", "{run}"],
        ["resume", "{run}"],
        ["resume", "{run}", "--from", "3"],
        # Through the edit: the fold of the history the branch would share reads it. (A branch
        # cut before an edited row shares none of it: tests/scenario/test_branch_cli.py.)
        ["branch", "{run}", "--at", "{last}"],
    ],
    ids=lambda c: " ".join(c).replace("{run}", "RUN"),
)
def test_a_reading_command_refuses_an_edited_run_naming_the_seq(
    edited: tuple[str, str, int], command: list[str]
) -> None:
    store, run_id, seq = edited
    before = EventLog(store).last_seq(run_id)
    args = [part.replace("{run}", run_id).replace("{last}", str(before)) for part in command]
    result = _rlvr(*args, "--store", store)
    assert result.returncode == 1, result.stdout[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr[-3000:]
    assert (
        f"error: run {run_id}: hash chain broken at seq {seq}: content does not match" in lines[0]
    )
    log = EventLog(store)
    assert log.last_seq(run_id) == before  # refused: nothing appended
    assert [r.run_id for r in log.runs()] == [run_id]  # no branch was made


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str, dict[str, str]]:
    """(directory, store, run id, env): a finished run written under a chain key."""
    directory = tmp_path_factory.mktemp("keyed")
    env = {KEY_ENV: str(write_key(directory))}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_ENV, env[KEY_ENV])
        log, run_id, _ = _finished_run(directory)
    return directory, str(directory / "events.db"), run_id, env


def _copy(keyed: tuple[Path, str, str, dict[str, str]], name: str) -> tuple[EventLog, str]:
    directory, store, _, _ = keyed
    copy = directory / f"{name}.db"
    with sqlite3.connect(store) as source, sqlite3.connect(copy) as target:
        source.backup(target)  # the WAL's rows too, which a file copy would miss
    return EventLog(copy), str(copy)


def test_with_a_key_status_catches_a_forged_row_with_a_recomputed_chain(keyed) -> None:
    _, _, run_id, env = keyed
    log, store = _copy(keyed, "forged")
    last = log.last_seq(run_id)
    forge_chain(log, run_id, 12, {"false_positive_rate": 0.01})  # of its schema: verify reads it
    assert _rlvr("verify", run_id, "--store", store).returncode == 0  # unkeyed: it verifies
    result = _rlvr("status", run_id, "--store", store, env=env)
    assert result.returncode == 1
    assert f"hash chain broken at seq {last}: does not match the keyed head" in result.stderr
    verified = _rlvr("verify", run_id, "--store", store, env=env)
    assert verified.returncode == 1 and f"broken at seq {last}" in verified.stderr


def test_with_a_key_status_catches_a_truncated_tail(keyed) -> None:
    _, _, run_id, env = keyed
    log, store = _copy(keyed, "truncated")
    last = log.last_seq(run_id)
    truncate(log, run_id, keep=last - 3, cover_tracks=True)
    assert _rlvr("status", run_id, "--store", store).returncode == 0  # unkeyed: looks unfinished
    result = _rlvr("status", run_id, "--store", store, env=env)
    assert result.returncode == 1
    assert f"hash chain broken at seq {last - 2}: the log ends at seq {last - 3} but the keyed" in (
        result.stderr
    )


def test_an_export_cut_at_a_line_boundary_does_not_import(keyed) -> None:
    directory, store, run_id, env = keyed
    exported = _rlvr("events", "export", run_id, "--store", store, env=env)
    assert exported.returncode == 0, exported.stderr
    cut = directory / "cut.jsonl"
    cut.write_text("".join(exported.stdout.splitlines(keepends=True)[:-4]))
    result = _rlvr("events", "import", str(cut), "--store", str(directory / "other.db"), env=env)
    assert result.returncode == 1 and "verified" not in result.stderr
    assert "import refused: " in result.stderr and "has no head line after seq" in result.stderr
    whole = directory / "whole.jsonl"
    whole.write_text(exported.stdout)
    result = _rlvr("events", "import", str(whole), "--store", str(directory / "other.db"), env=env)
    assert result.returncode == 0 and "verified and its keyed head" in result.stderr


# Red team round 15 (log 031/033/035): in an unkeyed store a number stored as text, its chain
# recomputed, passed the lax schema check; `status` and `why` then crashed formatting it in the
# last-resort handler. Now one error line naming the row.
@pytest.mark.parametrize(
    ("event_type", "change"),
    [("MetricsRecorded", {"metrics": {"kl": "0.001"}}), ("GateEvaluated", {"value": "0.99"})],
)
@pytest.mark.parametrize("command", ["status", "why", "report"])
def test_a_number_stored_as_text_is_one_error_line_naming_its_seq(
    keyed, command: str, event_type: str, change: dict
) -> None:
    _, _, run_id, _ = keyed
    log, store = _copy(keyed, f"text-{command}-{event_type}")
    seq = next(r.seq for r in log.read(run_id, types=[event_type]))
    forge_chain(log, run_id, seq, change)
    result = _rlvr(command, run_id, "--store", store)  # no key: the chain verifies
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1 and len(lines) == 1, result.stderr[-3000:]
    assert lines[0].startswith("error: ")
    assert f"run {run_id}: seq {seq}: payload does not match {event_type}" in lines[0]
