"""Red team round 29 (log), typed as a person types the commands:
- a `RunRewound` whose `to_seq` is not before its own seq (SQL with the chain recomputed, or an
  imported file): every fold met it again and recursed, so every reader said `error:
  RecursionError`, `verify` said intact, the console's run list answered 500 and `rlvr supervise`
  stopped its pass (log29-001..016). It is refused by its seq, as an `evidence_seqs` naming a
  later row is;
- a last row whose time is no time the code writes stopped the supervisor with Python's words
  (017/018);
- stdout closed (`rlvr verify RUN >&-`): `error: AttributeError: 'NoneType' object has no
  attribute 'flush'` (019..022);
- a SQLite store this process may read but not write: `attempt to write a readonly database`
  from every reader (023..026)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from orchestrator.console.app import create_app
from orchestrator.console.security import Binding
from store import sqlite_read_only
from store.events import RunRewound
from store.exports import export_lines
from store.keyed import Head
from store.log import EventLog
from store.rows import StoredEvent
from store.verification import canonical_json, chain_hash
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages
from tests.scenario.test_round28_environment_cli import _one_error as _one_process_error
from tests.scenario.test_tampered_reads_cli import _built, _copy
from tests.scenario.test_tampered_round19_cli import _one_error
from tests.tampering import edit_payload

RLVR = [sys.executable, "-c", "from orchestrator.cli.app import main; main()"]
REFUSED = "seq 55: payload does not match RunRewound (edited?): Value error, to_seq names seq"


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory):
    return _built(tmp_path_factory, "round29", FakeStages(), keyed=False)


def _rewound_to(built, to_seq: int) -> str:
    """A copy of the store whose run has `RunRewound(to_seq)` at seq 55 (its chain intact)."""
    log, store = _copy(built, f"rewound{to_seq}")
    log.append(built[1], [RunRewound(to_seq=to_seq, reason="by hand")], expected_seq=54)
    log.close()
    return store


@pytest.mark.parametrize("to_seq", [55, 60, 99], ids=["log29-002 to itself", "log29-001", "far"])
@pytest.mark.parametrize(
    "command",
    [["status", "{run}"], ["why", "{run}"], ["report", "{run}", "--out", "{dir}"],
     ["sink", "{run}", "--to", "tensorboard", "{dir}"], ["resume", "{run}"], ["verify", "{run}"]],
    ids=["status", "why", "report", "sink", "resume", "verify"],
)  # fmt: skip
def test_a_rewind_forward_is_refused_by_its_seq(
    capsys, finished, tmp_path: Path, to_seq: int, command: list[str]
) -> None:
    store = _rewound_to(finished, to_seq)
    args = [a.replace("{run}", finished[1]).replace("{dir}", str(tmp_path)) for a in command]
    line = _one_error(rlvr(capsys, *args, "--store", store))
    assert f"{REFUSED} {to_seq}, not a row before this one" in line, line


def test_the_console_lists_a_run_with_a_rewind_forward_as_unreadable(finished) -> None:
    store = _rewound_to(finished, 60)
    app = create_app(EventLog(store), Binding("127.0.0.1", 8765, "t" * 16))
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        listed = client.get("/api/runs")
        data = client.get(f"/api/runs/{finished[1]}/data")
    assert listed.status_code == 200, listed.text
    [run] = listed.json()["runs"]
    assert run["state"] == "unreadable" and REFUSED in run["error"]
    assert data.status_code == 409 and REFUSED in data.text


def test_supervise_names_a_rewind_forward_and_a_time_no_code_writes(
    capsys, finished, tmp_path: Path
) -> None:
    """Both in one store: the pass reports each run broken and goes on (log29-015, 017)."""
    store = _rewound_to(finished, 60)
    with sqlite3.connect(store) as db:  # an orphan: a copy cut back to seq 40, its time edited
        db.execute(
            "INSERT INTO events SELECT 'orphan-run', seq, type, schema_version, recorded_at, "
            "prev_hash, hash, payload FROM events WHERE run_id = ? AND seq <= 40",
            (finished[1],),
        )
    log = EventLog(store)
    edit_payload(log, "orphan-run", 40, {})  # reads break at 40 either way; the time is named
    with sqlite3.connect(store) as db:
        db.execute("UPDATE events SET recorded_at = 'garbage' WHERE run_id = 'orphan-run'")
    config = tmp_path / "sv.toml"
    config.write_text("grace_s = 0.0\nmax_restarts = 0\n")
    done = rlvr(capsys, "supervise", "--once", "--config", str(config), "--store", store)
    assert done.code == 0, done.err
    assert f"{finished[1]}: broken" in done.out and REFUSED in done.out, done.out
    assert "orphan-run: broken" in done.out and "RecursionError" not in done.out, done.out


@pytest.mark.parametrize(
    "command", [["verify", "{run}"], ["status"], ["events", "export", "{run}"]]
)
def test_a_closed_stdout_is_one_line(finished, command: list[str]) -> None:
    """log29-019/021: `rlvr verify RUN >&-`."""
    args = [a.replace("{run}", finished[1]) for a in command]
    store = str(finished[0] / "events.db")
    done = subprocess.run(
        [*RLVR, *args, "--store", store], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        timeout=120, pass_fds=(), close_fds=True, preexec_fn=lambda: os.close(1),
    )  # fmt: skip
    assert _one_process_error(done) == "error: cannot write standard output: Bad file descriptor"


def test_a_closed_stdout_leaves_a_refusal_its_one_line(finished) -> None:
    """log29-020: the refusal, not a second line after it."""
    log, store = _copy(finished, "closed-refusal")
    edit_payload(log, finished[1], 20, {"step": 11, "metrics": {}})
    done = subprocess.run(
        [*RLVR, "verify", finished[1], "--store", store], stderr=subprocess.PIPE, timeout=120,
        preexec_fn=lambda: os.close(1),
    )  # fmt: skip
    assert "hash chain broken at seq 20" in _one_process_error(done)


def test_a_store_this_process_may_not_write_is_read_read_only(
    capsys, finished, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """log29-023/024 as root (who may write anything): the read-only open is what a user who may
    not write the store gets; the store is left as it was (no verified prefix, no WAL files)."""
    store = tmp_path / "theirs.db"
    shutil.copy(finished[0] / "events.db", store)
    before = store.read_bytes()
    monkeypatch.setattr(sqlite_read_only, "may_not_write", lambda path: path == store)
    done = rlvr(capsys, "verify", finished[1], "--store", str(store))
    assert done.code == 0 and "hash chain intact" in done.out, done.err
    assert rlvr(capsys, "status", finished[1], "--store", str(store)).code == 0
    assert store.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["theirs.db"]
    with sqlite3.connect(store) as db:  # now tampered: named by its seq, read-only still
        db.execute("UPDATE events SET payload = '{}' WHERE seq = 20")
    line = _one_error(rlvr(capsys, "verify", finished[1], "--store", str(store)))
    assert "hash chain broken at seq 20" in line, line


def test_another_users_store_is_read_as_that_user(finished, tmp_path: Path) -> None:
    """log29-023 for real, as user 65534, where this interpreter is reachable by that user."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to read as another user")
    probe = subprocess.run(
        ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", sys.executable,
         "-c", "import store"], capture_output=True, env={**os.environ, "PYTHONPATH": os.getcwd()},
    )  # fmt: skip
    if probe.returncode != 0:
        pytest.skip("this interpreter is not reachable by user 65534 (under /root)")
    folder = Path(tempfile.mkdtemp(prefix="rlvr-theirs-", dir="/tmp"))  # pytest's is root's only
    folder.chmod(0o755)
    shutil.copy(finished[0] / "events.db", folder / "events.db")
    (folder / "events.db").chmod(0o644)
    done = subprocess.run(
        ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", *RLVR, "verify",
         finished[1], "--store", str(folder / "events.db")],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": os.getcwd(), "HOME": str(folder)},
    )  # fmt: skip
    shutil.rmtree(folder)
    assert done.returncode == 0 and "hash chain intact" in done.stdout, done.stderr


@pytest.mark.parametrize("to_seq", [55, 60], ids=["log29-008 to itself", "log29-007"])
def test_an_export_file_with_a_rewind_forward_is_refused_by_its_line(
    capsys, finished, tmp_path: Path, to_seq: int
) -> None:
    """The file written by hand (`rlvr events export` refuses such a run): the intact run's
    export, then a row 55 chained onto it and the head moved there. It was imported ("hash chain
    verified"), and the new store could not be read at all."""
    log = EventLog(finished[0] / "events.db")
    lines = list(export_lines(log, finished[1]))[:-1]
    rows = list(log.read(finished[1]))
    payload = canonical_json({"reason": "by hand", "to_seq": to_seq})
    at = rows[-1].recorded_at
    digest = chain_hash(rows[-1].hash, finished[1], 55, "RunRewound", 1, at, payload)
    row = StoredEvent(finished[1], 55, "RunRewound", 1, at, rows[-1].hash, digest, payload)
    lines.append(row.export_line(batch_end=True).decode())
    lines.append(json.dumps({"head": Head(finished[1], 55, digest, None).to_json()}) + "\n")
    path = tmp_path / "run.jsonl"
    path.write_text("".join(lines))
    line = _one_error(
        rlvr(capsys, "events", "import", str(path), "--store", str(tmp_path / "n.db"))
    )
    assert line.startswith(f"error: {path}:55: not an exported event (RunRewound: "), line
    assert f"to_seq names seq {to_seq}, not a row before this one, at seq 55" in line, line
    assert not (tmp_path / "n.db").exists()
