"""One malformed run (an imported event of a schema version this code does not know) must not
break `rlvr status`, `rlvr status RUN` or `rlvr supervise --once` for the rest of the store: each
still works and names the broken run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.driver.supervisor import SupervisorConfig, scan
from store.log import EventLog, StoredEvent, chain_hash
from tests.scenario.test_cli_events import _finished_run

RLVR = [sys.executable, "-c", "from orchestrator.cli.app import main; main()"]
BROKEN = "imported-from-the-future"


def _rlvr(*args: str) -> subprocess.CompletedProcess:
    # A terminal wide enough that the status table shows whole run ids.
    env = {**os.environ, "COLUMNS": "250"}
    return subprocess.run([*RLVR, *args], capture_output=True, text=True, timeout=120, env=env)


def _store_with_a_broken_run(tmp_path: Path) -> tuple[str, str]:
    store, good = _finished_run(tmp_path)
    log = EventLog(store)
    rows, prev = [], "0" * 64
    for row in log.read(good, to_seq=3):
        version = 99 if row.seq == 2 else row.schema_version
        digest = chain_hash(prev, BROKEN, row.seq, row.type, version, row.recorded_at, row.payload)
        rows.append(StoredEvent(BROKEN, row.seq, row.type, version, row.recorded_at, prev,
                                digest, row.payload))  # fmt: skip
        prev = digest
    log.import_rows(rows)  # a valid chain: only the fold finds the unknown version
    return store, good


def test_status_of_the_store_lists_every_run_and_names_the_broken_one(tmp_path: Path) -> None:
    store, good = _store_with_a_broken_run(tmp_path)
    listing = _rlvr("status", "--store", store)
    assert listing.returncode == 0, listing.stderr
    assert good in listing.stdout and "completed" in listing.stdout
    assert f"run {BROKEN} cannot be read" in listing.stderr and "v99" in listing.stderr
    rows = json.loads(_rlvr("status", "--json", "--store", store).stdout)
    assert {r["run_id"]: r["state"] for r in rows} == {good: "completed", BROKEN: "unreadable"}


def test_status_of_one_run_works_beside_a_broken_run_and_names_a_broken_one(
    tmp_path: Path,
) -> None:
    store, good = _store_with_a_broken_run(tmp_path)
    healthy = _rlvr("status", good, "--store", store)
    assert healthy.returncode == 0, healthy.stderr
    assert "completed" in healthy.stdout
    broken = _rlvr("status", BROKEN, "--store", store)
    assert broken.returncode != 0 and "Traceback" not in broken.stderr
    # one line naming the run once, as every other reader of it (round 27)
    assert broken.stderr.startswith(f"error: run {BROKEN}: seq 2: StateChanged v99"), broken.stderr


def test_supervise_once_names_the_broken_run(tmp_path: Path) -> None:
    store, _ = _store_with_a_broken_run(tmp_path)
    done = _rlvr("supervise", "--once", "--store", store)
    assert done.returncode == 0, done.stderr
    assert f"{BROKEN}: broken" in done.stdout and "v99" in done.stdout


def test_a_supervisor_pass_restarts_an_orphan_beside_a_broken_run(tmp_path: Path) -> None:
    store, good = _store_with_a_broken_run(tmp_path)
    log = EventLog(store)
    orphan = "orphan-run"  # a copy of the run's start, left in a stage with no driver or lease
    prev, rows = "0" * 64, []
    for row in log.read(good, to_seq=8):
        digest = chain_hash(prev, orphan, row.seq, row.type, row.schema_version, row.recorded_at,
                            row.payload)  # fmt: skip
        rows.append(StoredEvent(orphan, row.seq, row.type, row.schema_version, row.recorded_at,
                                prev, digest, row.payload))  # fmt: skip
        prev = digest
    log.import_rows(rows)
    launched: list[str] = []
    actions = scan(log, SupervisorConfig(grace_s=0), launched.append)
    assert {(a.run_id, a.action) for a in actions} == {(BROKEN, "broken"), (orphan, "restart")}
    assert launched == [orphan]


def test_a_supervisor_pass_does_not_fold_a_finished_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import orchestrator.driver.commands as commands

    store, _ = _finished_run(tmp_path)

    def no_fold(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a finished run was folded")

    monkeypatch.setattr(commands, "fold_run", no_fold)
    assert scan(EventLog(store), SupervisorConfig(grace_s=0), lambda run: None) == []
