"""Red team round 4, issue 28: hostile head files, a seq stored as text, and stdout on a full
disk. Each ends in a refusal naming the right seq or one `error:` line with a non-zero exit,
never a traceback."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from store.keyed import KEY_ENV
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.tampering import synthetic_run, write_key

ROOT = Path(__file__).resolve().parents[2]


def _keyed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, Path]:
    key = write_key(tmp_path)
    monkeypatch.setenv(KEY_ENV, str(key))
    store = str(tmp_path / "events.db")
    log = EventLog(store)
    synthetic_run(log, "r4", 5)
    log.close()
    return "r4", store, key.with_name(key.name + ".heads")


def _one_error(result) -> str:
    assert result.code != 0, result.out[-2000:]
    assert "Traceback" not in result.err and len(result.error_lines) == 1, result.err[-3000:]
    return result.error_lines[0]


def test_a_head_whose_seq_is_text_is_refused_in_one_line(tmp_path, monkeypatch, capsys) -> None:
    # The MAC covers the seq's decimal form, so "7" authenticates as 7 does: the type is checked.
    run_id, store, heads = _keyed_run(tmp_path, monkeypatch)
    for path in heads.glob("*.json"):
        data = json.loads(path.read_text())
        data["head"]["seq"] = str(data["head"]["seq"])
        path.write_text(json.dumps(data))
    for command in (["verify", run_id], ["events", run_id, "--type", "MetricsRecorded"]):
        line = _one_error(rlvr(capsys, *command, "--store", store))
        assert "keyed head" in line and "seq must be a whole number" in line, line
    assert rlvr(capsys, "status", "--store", store).code == 0


def test_a_deeply_nested_head_file_is_refused_in_one_line(tmp_path, monkeypatch, capsys) -> None:
    run_id, store, heads = _keyed_run(tmp_path, monkeypatch)
    for path in heads.glob("*.json"):
        path.write_text("[" * 100_000 + "]" * 100_000)
    line = _one_error(rlvr(capsys, "events", run_id, "--type", "MetricsRecorded", "--store", store))
    assert "keyed head" in line and "nested too deeply" in line, line
    assert rlvr(capsys, "status", "--store", store).code == 0


def test_a_seq_stored_as_text_is_refused_naming_that_seq(tmp_path, capsys) -> None:
    # SQLite keeps text in an INTEGER column, and text sorts after every number: the "last" row.
    store = str(tmp_path / "events.db")
    log = EventLog(store)
    synthetic_run(log, "r4", 5)
    with log.engine.begin() as conn:
        conn.execute(sa.text("UPDATE events SET seq = 'x' WHERE run_id = 'r4' AND seq = 4"))
    log.close()
    for command in (["verify", "r4"], ["events", "r4", "--type", "MetricsRecorded"]):
        line = _one_error(rlvr(capsys, *command, "--store", store))
        assert "hash chain broken at seq 4" in line and "'x'" in line, line


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "command", [["events", "export", "r4"], ["status", "--json"], ["events", "r4", "--json"]],
    ids=["export", "status --json", "events --json"],
)  # fmt: skip
def test_output_to_a_full_disk_is_one_error_line(tmp_path, command) -> None:
    store = str(tmp_path / "events.db")
    log = EventLog(store)
    synthetic_run(log, "r4", 3)
    log.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RLVR_LOG_LEVEL": "WARNING"}
    env.pop(KEY_ENV, None)
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "orchestrator", *command, "--store", store],
            stdout=full, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path, check=False,
        )  # fmt: skip
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert lines == ["error: cannot write standard output: No space left on device"], lines


def test_a_refused_read_returns_its_connection_on_either_backend(
    store_url: str, run_id: str
) -> None:
    # On PostgreSQL the stream of a refused (or abandoned) read was left open mid-result inside
    # its connection, whose rollback then waited on it for ever: `status` hung on an edited row.
    # In a child with a time limit, so that the old hang fails the test instead of stalling it.
    log = EventLog(store_url)
    synthetic_run(log, run_id, 30)
    log.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RLVR_LOG_LEVEL": "WARNING"}
    env.pop(KEY_ENV, None)
    script = (
        "import sys\nimport sqlalchemy as sa\n"
        "from store.log import EventLog\nfrom store.verification import ChainBroken\n"
        "log, run = EventLog(sys.argv[1]), sys.argv[2]\n"
        "rows = log.read(run, types=['RunStarted'])\n"
        "next(rows); rows.close()  # abandoned after its first row\n"
        "with log.engine.begin() as conn:  # then a row edited, nothing verified yet\n"
        "    conn.execute(sa.text('DELETE FROM verified_prefix WHERE run_id = :r'), {'r': run})\n"
        "    conn.execute(sa.text('UPDATE events SET payload = :p WHERE run_id = :r AND seq = 7'),\n"
        "                 {'p': '{\"metrics\":{\"kl\":0.9},\"step\":5}', 'r': run})\n"
        "try:\n    list(log.read(run, types=['MetricsRecorded']))\n"
        "except ChainBroken as e:\n    print('refused at', e.seq)\n"
        "print('last', log.last_seq(run))\n"
    )  # fmt: skip
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, store_url, run_id],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
    finally:  # a shared PostgreSQL keeps no tampered run for the next reader of every run
        log = EventLog(store_url)
        with log.engine.begin() as conn:
            for table in ("events", "verified_prefix", "batches"):
                conn.execute(sa.text(f"DELETE FROM {table} WHERE run_id = :r"), {"r": run_id})
        log.close()
    assert done.stdout.split() == ["refused", "at", "7", "last", "32"], done.stderr[-3000:]


def _sink_into(capsys, tmp_path: Path, target: Path):
    store = str(tmp_path / "events.db")
    log = EventLog(store)
    synthetic_run(log, "r4", 40)
    log.close()
    return rlvr(capsys, "sink", "r4", "--to", "tensorboard", str(target), "--store", store)


def test_a_sink_into_a_path_under_a_regular_file_is_one_error_line(tmp_path, capsys) -> None:
    # tensorboardX leaves the folder to its writer thread, which failed silently: exit 0.
    (tmp_path / "afile").write_text("x")
    line = _one_error(_sink_into(capsys, tmp_path, tmp_path / "afile" / "tb"))
    assert line == (
        f"error: cannot write TensorBoard files into {tmp_path / 'afile' / 'tb' / 'r4'}: "
        "Not a directory"
    ), line


def test_a_sink_onto_a_full_disk_is_one_error_line_not_a_hang(tmp_path, capsys) -> None:
    # The writer thread died of ENOSPC, its queue (10 events) filled, and the next event waited
    # on it for ever. A real full tmpfs: root only.
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], check=True)
    try:
        # Full to the last byte.
        with open(disk / "filler", "wb", buffering=0) as filler, contextlib.suppress(OSError):
            while True:
                filler.write(b"\0" * 4096)
        line = _one_error(_sink_into(capsys, tmp_path, disk / "tb"))
        assert line == (
            f"error: cannot write TensorBoard files into {disk / 'tb' / 'r4'}: "
            "No space left on device"
        ), line
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
