"""Every file the command line reads is a regular file of bounded size, read without blocking
(`store/text_files.py`), and every file it writes is renamed into place: a FIFO, a device or a
link put where a person's or a blob store's file belongs gives one `error:` line naming the file,
never a hang, a read of `/dev/zero` until memory runs out, or a write through the link
(red team round 8, issue 28: a8s-19..22, 48, 60..63)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import Result, rlvr

MATH_OK = '{"prompt": "2+2?", "answer": "4"}\n'


def _within(seconds: float, call: Callable[[], Any]) -> Any:
    """`call()`'s result, or a failed test when it has not returned in `seconds` (a FIFO opened
    for reading waits for a writer for ever; the thread is a daemon, left blocked)."""
    done: dict[str, Any] = {}

    def target() -> None:
        try:
            done["value"] = call()
        except BaseException as e:  # re-raised in the test's thread
            done["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"still blocked after {seconds} s")
    if "error" in done:
        raise done["error"]
    return done["value"]


def _one_line(result: Result, expected: str) -> None:
    assert result.code != 0, result.err
    assert len(result.error_lines) == 1, result.err
    assert result.error_lines[0].startswith("error: "), result.err
    assert expected in result.error_lines[0], result.err
    assert "Traceback" not in result.err


def test_the_reader_refuses_a_fifo_a_device_and_a_file_past_its_bound(tmp_path: Path) -> None:
    from store.text_files import read_regular_bytes, read_utf8

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        _within(10, lambda: read_utf8(fifo))
    with pytest.raises(OSError, match="not a regular file"):
        read_utf8(Path("/dev/null"))
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 101)
    with pytest.raises(OSError, match="larger than 100 bytes"):
        read_regular_bytes(big, limit=100)
    assert read_regular_bytes(big, limit=101) == b"x" * 101


def test_a_fifo_as_data_path_is_one_line_not_a_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "tasks.jsonl")
    (tmp_path / "run.toml").write_text('[data]\ntask_family = "math"\ndata_path = "tasks.jsonl"\n')
    result = _within(60, lambda: rlvr(capsys, "run", "run.toml"))
    _one_line(result, "tasks.jsonl: cannot read: not a regular file")
    assert not (tmp_path / "runs").exists()  # refused before any run was started


@pytest.mark.parametrize("special", ["fifo", "/dev/null"])
def test_rlvr_check_on_a_fifo_or_a_device_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    special: str,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    if special == "fifo":
        os.mkfifo(tmp_path / "pairs.jsonl")
        special = "pairs.jsonl"
    result = _within(60, lambda: rlvr(capsys, "check", special, "--verifier", "math"))
    _one_line(result, f"{special}: cannot read: not a regular file")


def _blob_store_with_a_claim(tmp_path: Path):
    from orchestrator.driver.checkpoints import claim
    from store.blobs import BlobStore
    from store.log import EventLog

    blobs, log = BlobStore(tmp_path / "blobs"), EventLog(tmp_path / "events.db")
    claim(blobs, log)
    return blobs, log


def test_a_fifo_as_the_blob_claims_file_is_refused_not_waited_on(tmp_path: Path) -> None:
    from orchestrator.driver.checkpoints import _sweepable_since, claim, store_identity
    from store.errors import StoreError

    blobs, log = _blob_store_with_a_claim(tmp_path)
    claims = blobs.root / "event-stores.txt"
    assert _sweepable_since(blobs, store_identity(log)) is not None
    claims.unlink()
    os.mkfifo(claims)
    with pytest.raises(StoreError, match="event-stores.txt: cannot read: not a regular file"):
        _within(10, lambda: claim(blobs, log))
    with pytest.raises(StoreError, match="event-stores.txt: cannot read: not a regular file"):
        _within(10, lambda: _sweepable_since(blobs, store_identity(log)))


def test_a_fifo_as_the_blob_store_id_is_refused_not_waited_on(tmp_path: Path) -> None:
    from store.errors import StoreError

    blobs, _ = _blob_store_with_a_claim(tmp_path)
    assert len(blobs.identity) == 32
    (blobs.root / "blob-store-id").unlink()
    os.mkfifo(blobs.root / "blob-store-id")
    with pytest.raises(StoreError, match="blob-store-id: cannot read: not a regular file"):
        _within(10, lambda: blobs.identity)


def test_branch_and_resume_with_a_fifo_claims_file_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.unit.audit.chaos_log import chaos_run

    log, run_id = chaos_run(tmp_path)
    last = log.last_seq(run_id)
    log.close()
    monkeypatch.chdir(tmp_path)
    claims = tmp_path / "blobs" / "event-stores.txt"
    claims.unlink(missing_ok=True)
    os.mkfifo(claims)
    store = str(tmp_path / "events.db")
    for args in (["branch", run_id, "--at", "86"], ["resume", run_id, "--from", "86"]):
        result = _within(60, lambda args=args: rlvr(capsys, *args, "--store", store))
        _one_line(result, "event-stores.txt: cannot read: not a regular file")
    from store.log import EventLog

    after = EventLog(store)
    assert [r.run_id for r in after.runs()] == [run_id]  # no branch written
    assert after.last_seq(run_id) == last  # no rewind written


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_report_replaces_a_link_at_index_html_never_writes_through_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    link: str,
) -> None:  # fmt: skip
    from orchestrator.config import RunConfig
    from orchestrator.driver.commands import start_run
    from store.log import EventLog

    monkeypatch.chdir(tmp_path)
    store = str(tmp_path / "events.db")
    run_id, _ = start_run(EventLog(store), RunConfig(log_path=str(tmp_path / "runs")))
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (tmp_path / "rep").mkdir()
    page = tmp_path / "rep" / "index.html"
    if link == "symlink":
        page.symlink_to(victim)
    else:
        os.link(victim, page)
    result = rlvr(capsys, "report", run_id, "--store", store, "--out", "rep")
    assert result.code == 0, result.err
    assert victim.read_text() == "keep me\n"
    assert not page.is_symlink() and page.read_text().startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in page.parent.iterdir()) == ["index.html"]  # no temp file left


def test_a_write_that_fails_leaves_the_old_file_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from store.text_files import write_replacing

    target = tmp_path / "index.html"
    target.write_text("old")

    def refuse(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="No space"):
        write_replacing(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["index.html"]


def test_a_config_past_its_bound_is_refused_not_read_whole(tmp_path: Path) -> None:
    from orchestrator.config_toml import read_toml
    from orchestrator.errors import ConfigError

    config = tmp_path / "run.toml"
    config.write_text("# " + "x" * (16 << 20) + "\n")
    with pytest.raises(ConfigError, match=r"run\.toml: cannot read: larger than 16,777,216 bytes"):
        read_toml(config)


def test_a_fifo_as_the_run_log_is_refused_not_waited_on(tmp_path: Path) -> None:
    """driver.jsonl is appended to by every driver: a FIFO put there blocked the run's start."""
    import logging

    from orchestrator.logging import configure

    os.mkfifo(tmp_path / "driver.jsonl")
    root = logging.getLogger()
    handlers = list(root.handlers)
    try:
        with pytest.raises(OSError, match="not a regular file"):
            _within(10, lambda: configure(json_file=tmp_path / "driver.jsonl"))
    finally:
        root.handlers[:] = handlers


def test_a_fifo_as_the_scheduled_runs_log_is_refused_not_waited_on(tmp_path: Path) -> None:
    """The supervisor's children write to logs it opens for them: a FIFO put there blocked it."""
    from orchestrator.driver.supervisor import ScheduledRun, start_scheduled

    os.mkfifo(tmp_path / "scheduled-runs.log")
    job = ScheduledRun(config="run.toml", cron="0 3 * * *")
    with pytest.raises(OSError, match="not a regular file"):
        _within(10, lambda: start_scheduled("events.db", job, tmp_path))


def test_rlvr_check_on_an_integer_past_the_digit_limit_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Red team round 8 (a8s-54..56): a ValueError traceback, where the task-file reader says one."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pairs.jsonl").write_text('{"response": "x", "reference": ' + "9" * 5000 + "}\n")
    result = rlvr(capsys, "check", "pairs.jsonl", "--verifier", "math")
    _one_line(result, "pairs.jsonl:1: Exceeds the limit (4300 digits)")


def test_a_symlink_in_place_of_a_log_appended_to_is_refused_not_written_through(
    tmp_path: Path,
) -> None:
    """Red team round 10 (s27): driver.jsonl, detached.log and the supervisor's resume logs were
    appended to through a link put in their place, into the file it named."""
    from store.text_files import open_appending

    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    link = tmp_path / "driver.jsonl"
    link.symlink_to(victim)
    with pytest.raises(OSError, match="a symbolic link, not a regular file"):
        open_appending(link)
    assert victim.read_text() == "mine\n"
    with open_appending(tmp_path / "fresh.log") as f:  # a plain file is made and appended to
        f.write("line\n")
    assert (tmp_path / "fresh.log").read_text() == "line\n"


def test_a_fifo_as_a_config_or_an_import_says_not_a_regular_file(tmp_path: Path) -> None:
    """Red team round 10: a FIFO there was reported as `no such file`, which it is not."""
    from orchestrator.config import load_config
    from orchestrator.errors import ConfigError
    from store.errors import StoreError
    from store.exports import read_export

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="pipe: not a regular file"):
        load_config(fifo)
    with pytest.raises(StoreError, match="pipe: not a regular file"):
        read_export(fifo)
