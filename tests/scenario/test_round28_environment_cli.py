"""Red team round 28 (log), typed as a person types the commands, in a real process: what the
environment and the command line hand `rlvr` before it reads anything.
- a store path holding `%41` or `?` opened another file (SQLAlchemy decodes a URL): `verify` said
  "intact" for an edited store beside an intact one (log28-001/002);
- `COLUMNS=0` made every refusal exit 1 with no line at all (003/004);
- an `RLVR_LOG_LEVEL` logging does not know (`info`, `bogus`) was a traceback (005/006);
- a run id that is not UTF-8 (bytes a shell passed through) was `error: UnicodeEncodeError`
  (007/008);
- an ASCII stdout with a person's `café` in the log ended half a page in UnicodeEncodeError
  (009).
The key file changed under a live driver and a killed keyed import: tests/unit/test_key_faults.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from store.events import RunPaused
from store.log import EventLog
from tests.scenario.fake_stages import FakeStages
from tests.scenario.test_tampered_reads_cli import _built
from tests.tampering import edit_payload

RLVR = [sys.executable, "-c", "from orchestrator.cli.app import main; main()"]


def _rlvr(*args: str | bytes, **env: str) -> subprocess.CompletedProcess:
    environ = {**os.environ, **env}
    environ.pop("RLVR_DEBUG", None)
    return subprocess.run([*RLVR, *args], capture_output=True, timeout=120, env=environ)


def _one_error(done: subprocess.CompletedProcess) -> str:
    err = done.stderr.decode("utf-8", "replace")
    lines = [line for line in err.splitlines() if line.strip()]
    assert done.returncode != 0 and "Traceback" not in err, err[-2000:]
    assert len(lines) == 1 and lines[0].startswith("error:"), err[-2000:]
    return lines[0]


@pytest.fixture(scope="module")
def tampered(tmp_path_factory: pytest.TempPathFactory):
    """A finished run whose seq 20 (a MetricsRecorded row) is edited in `events.db`, and an intact copy of the store."""
    directory, run_id, _ = _built(tmp_path_factory, "round28", FakeStages(), keyed=False)
    shutil.copy(directory / "events.db", directory / "intact.db")
    log = EventLog(directory / "events.db")
    seq = next(r.seq for r in log.read(run_id) if r.type == "MetricsRecorded")
    assert seq == 20
    edit_payload(log, run_id, seq, {"step": 11, "metrics": {"kl": 0.0}})
    log.close()
    return directory, run_id


@pytest.mark.parametrize(
    ("named", "decoded"),
    [("team%41", "teamA"), ("exp?1", "exp"), ("runs%20old", "runs old")],
    ids=["log28-001 %41", "log28-002 ?", "a space escaped"],
)
def test_a_store_path_is_opened_as_written(tmp_path: Path, tampered, named: str, decoded: str):
    directory, run_id = tampered
    (tmp_path / named).mkdir()
    shutil.copy(directory / "events.db", tmp_path / named / "events.db")
    (tmp_path / decoded).mkdir()
    shutil.copy(directory / "intact.db", tmp_path / decoded / "events.db")
    store = str(tmp_path / named / "events.db")
    assert "seq 20" in _one_error(_rlvr("verify", run_id, "--store", store))
    assert "seq 20" in _one_error(_rlvr("status", run_id, "--store", store))
    EventLog(store).append("written-here", [RunPaused(reason="a test")], 0)  # writers too
    assert EventLog(store).last_seq("written-here") == 1
    assert EventLog(tmp_path / decoded / "events.db").last_seq("written-here") == 0


@pytest.mark.parametrize("columns", ["0", "1", "19"])
def test_a_refusal_is_one_line_whatever_columns_says(tampered, columns: str) -> None:
    """log28-003/004: COLUMNS=0 printed nothing, exit 1; COLUMNS=1 a character a line."""
    directory, run_id = tampered
    store = str(directory / "events.db")
    assert "seq 20" in _one_error(_rlvr("verify", run_id, "--store", store, COLUMNS=columns))
    listed = _rlvr("status", "--store", store, COLUMNS=columns)
    assert listed.returncode == 0 and b"seq 20" in listed.stderr, listed.stderr
    assert run_id.encode() in listed.stdout


@pytest.mark.parametrize("level", ["info", " warning", "10", "Error"])
def test_a_log_level_is_read_as_people_type_it(tampered, level: str) -> None:
    """log28-005: `info` was `ValueError: Unknown level: 'info'` with a traceback."""
    directory, run_id = tampered
    store = str(directory / "events.db")
    assert "seq 20" in _one_error(_rlvr("verify", run_id, "--store", store, RLVR_LOG_LEVEL=level))


def test_an_unknown_log_level_is_one_line(tampered) -> None:
    """log28-006."""
    directory, run_id = tampered
    done = _rlvr("status", "--store", str(directory / "events.db"), RLVR_LOG_LEVEL="bogus")
    line = _one_error(done)
    assert line.startswith("error: RLVR_LOG_LEVEL: 'bogus' is not a log level"), line
    assert done.returncode == 2


@pytest.mark.parametrize(
    "command",
    [["status", b"\xff"], ["verify", b"run-\xff"], ["events", "export", b"\xfe"]],
    ids=["log28-007 status", "verify", "export"],
)
def test_a_run_id_that_is_not_utf8_is_named(tampered, command: list) -> None:
    """It was `error: UnicodeEncodeError: 'utf-8' codec can't encode character '\\udcff'`."""
    directory, _ = tampered
    done = _rlvr(*command, "--store", str(directory / "events.db"))
    line = _one_error(done)
    assert "a run id is UTF-8 text" in line and "\\udc" in line, line
    assert done.returncode == 2


def test_an_ascii_stdout_escapes_text_it_cannot_hold(tmp_path: Path) -> None:
    """log28-009: a pause reason a person typed, read through a C-locale stdout."""
    store = tmp_path / "events.db"
    EventLog(store).append("r-ascii", [RunPaused(reason="café ☕ überprüft")], 0)
    done = _rlvr("events", "r-ascii", "--store", str(store), PYTHONIOENCODING="ascii")
    assert done.returncode == 0 and not done.stderr, done.stderr
    assert b"caf\\xe9 \\u2615 \\xfcberpr\\xfcft" in done.stdout, done.stdout
