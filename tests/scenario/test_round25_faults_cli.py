"""Red team round 25 (log: faults, leases, crashes), typed as a person types the commands:
- under PYTHONUNBUFFERED a full disk cut `rlvr events export RUN > f` (and every other output)
  short with exit 0: CPython drops the count a raw write returns; now one error line, exit 1;
- `rlvr status` said "ok (lease held by HOST:PID)" of a driver killed on this host, whose lease
  `resume` takes over at once: now "no driver holds it", in the list, `--json` and the console;
- a `rlvr pause` killed inside its write left its lease (`pause:HOST:PID:...`) unprovably dead
  for its whole TTL (the owner's first field was read as the host);
- with a chain key, a run killed inside its first append (no row committed, a pending head
  written) was listed as "deleted whole" for ever, and `verify` called it a broken chain.
The shared cases are log25-001, 003, 023 and 025; the rest are variants of each mechanism."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.console.runs_list import RunsList
from orchestrator.driver.lease import _pid_space, holder_is_dead
from store.keyed import KEY_ENV
from store.leases import LeaseTable
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.faults import small_tmpfs
from tests.tampering import synthetic_run, write_key

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def disk_of_8k(tmp_path: Path):
    """An 8 KiB tmpfs: a write that fits in part is cut short."""
    with small_tmpfs(tmp_path / "disk", "8k") as mount:
        yield mount


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RLVR_LOG_LEVEL": "WARNING", **extra}
    env.pop(KEY_ENV, None)
    return env


@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["PYTHONUNBUFFERED=1", "buffered"])
@pytest.mark.parametrize(
    "command", [["events", "export", "r25"], ["events", "r25", "--json"], ["events", "r25"]],
    ids=["log25-001 export", "events --json", "events"],
)  # fmt: skip
def test_output_a_disk_takes_only_in_part_is_one_error_line(
    tmp_path: Path, disk_of_8k: Path, command: list[str], unbuffered: str
) -> None:
    store = str(tmp_path / "events.db")
    log = EventLog(store)
    synthetic_run(log, "r25", 150)  # ~30 KB exported: more than the disk takes
    log.close()
    with open(disk_of_8k / "out", "w") as out:
        done = subprocess.run(
            [sys.executable, "-m", "orchestrator", *command, "--store", store], stdout=out,
            stderr=subprocess.PIPE, text=True, env=_env(PYTHONUNBUFFERED=unbuffered), check=False,
        )  # fmt: skip
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1, (done.returncode, (disk_of_8k / "out").stat().st_size)
    assert lines == ["error: cannot write standard output: No space left on device"], lines


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _run_with_lease(tmp_path: Path, owner: str) -> tuple[str, EventLog]:
    store = str(tmp_path / "events.db")
    log = EventLog(store)
    synthetic_run(log, "r25", 3)  # a run mid-stage: no terminal event
    LeaseTable(log).acquire("r25", owner, 600, lambda owner: False)
    return store, log


def _here(pid: int, by: str = "") -> str:
    return f"{by}{socket.gethostname()}:{pid}:{_pid_space()}-beef"


@pytest.mark.parametrize(
    "by", ["", "pause:", "rescore:"], ids=["log25-003 driver", "pause", "rescore"]
)
def test_status_says_no_driver_holds_a_run_whose_holder_died_on_this_host(
    capsys, tmp_path: Path, by: str
) -> None:
    store, log = _run_with_lease(tmp_path, _here(_dead_pid(), by))
    one = rlvr(capsys, "status", "r25", "--store", store)
    assert one.code == 0 and "no driver holds it (crashed?): rlvr resume r25" in one.out, one.out
    assert "lease held by" not in one.out
    detail = json.loads(rlvr(capsys, "status", "r25", "--json", "--store", store).out)
    assert detail["lease_holder"] is None and detail["health"].startswith("no driver holds it")
    [row] = json.loads(rlvr(capsys, "status", "--json", "--store", store).out)
    assert row["health"].startswith("no driver holds it") and row["lease_holder"] is None
    [listed] = RunsList(log).rows()
    assert listed["health_word"] == "no driver" and listed["lease_holder"] is None


def test_status_still_names_a_live_holder(capsys, tmp_path: Path) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        store, _ = _run_with_lease(tmp_path, _here(sleeper.pid))
        one = rlvr(capsys, "status", "r25", "--store", store)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert f"ok (lease held by {_here(sleeper.pid)})" in one.out, one.out


def test_a_pause_whose_writer_died_mid_write_is_taken_over_at_once(capsys, tmp_path: Path):
    """log25-025: the killed pause's lease blocked every writer for its TTL; now a second pause
    takes it over and appends, as a driver's dead lease is taken over."""
    store, log = _run_with_lease(tmp_path, _here(_dead_pid(), "pause:"))
    assert holder_is_dead(_here(_dead_pid(), "export-model:"))
    paused = rlvr(capsys, "pause", "r25", "--store", store)
    assert paused.code == 0, paused.err
    assert "run r25 paused (recorded at seq" in paused.out, paused.out
    assert "RunPaused" in [r.type for r in log.read("r25", from_seq=6)]  # appended, not queued
    assert (
        json.loads(rlvr(capsys, "status", "r25", "--json", "--store", store).out)["state"]
        == "paused"
    )


def test_a_keyed_run_killed_in_its_first_append_is_no_run_not_a_deleted_one(
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """log25-023: rows written, not committed, the pending head on disk; then SIGKILL."""
    key = write_key(tmp_path)
    store = str(tmp_path / "events.db")
    EventLog(store).close()
    script = (
        "from store.log import EventLog\nfrom tests.tampering import synthetic_run\n"
        f"synthetic_run(EventLog({store!r}), 'r25', 2)\n"
    )
    env = {**_env(RLVR_CRASH_AT="store_transaction:1"), KEY_ENV: str(key)}
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, check=False)
    assert done.returncode == -9 and list(Path(f"{key}.heads").glob("*.json"))
    monkeypatch.setenv(KEY_ENV, str(key))
    listed = rlvr(capsys, "status", "--store", store)
    assert listed.code == 0 and listed.error_lines == [] and "r25" not in listed.out, listed.err
    assert json.loads(rlvr(capsys, "status", "--json", "--store", store).out) == []
    verify = rlvr(capsys, "verify", "r25", "--store", store)
    assert verify.code == 2 and "no run 'r25'" in verify.err and "broken" not in verify.err
    # the same store's runs written after it read as ever
    log = EventLog(store)
    synthetic_run(log, "r25b", 2)
    assert rlvr(capsys, "verify", "r25b", "--store", store).code == 0


def test_a_keyed_run_whose_rows_were_all_deleted_is_still_listed_unreadable(
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control: a signed head and no row is a run deleted whole, as before."""
    monkeypatch.setenv(KEY_ENV, str(write_key(tmp_path)))
    store = str(tmp_path / "events.db")
    log = EventLog(store)
    synthetic_run(log, "r25", 2)
    with log.engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM events WHERE run_id = 'r25'")
    [row] = json.loads(rlvr(capsys, "status", "--json", "--store", store).out)
    assert row["state"] == "unreadable" and "deleted whole" in row["error"]
