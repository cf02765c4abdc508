"""Text from the log is printed as text: rich markup in a payload is neither interpreted nor
swallowed (a `[/]` used to crash `rlvr events`; a gate's `[detail]` vanished from the summary),
and control characters (ANSI escapes, newlines) are shown escaped, never sent to the terminal."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run, transition
from orchestrator.driver.runner import Driver
from policies.config import GateConfig
from store.blobs import BlobStore
from store.events import IsolationWaived, RunFailed
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages

HOSTILE = "\x1b[2J\x1b[31mred[/] [bold]loud[/bold] :warning: line\nforged"


def _assert_shown_as_text(text: str) -> None:
    # `events` shows the payload's JSON (\u001b), the others the text (\x1b): escaped either way
    assert "\x1b" not in text
    assert "x1b[31mred[/] [bold]loud[/bold] :warning: line\\nforged" in text.replace("u001b", "x1b")


@pytest.fixture
def coverage_failed(tmp_path: Path, store_url: str) -> tuple[str, str]:
    """A run whose coverage gate failed on the category share (the real driver and gates), with
    a hostile payload appended."""
    log = EventLog(store_url)
    config = RunConfig(
        run_name=f"text-{uuid.uuid4().hex[:8]}",
        log_path=str(tmp_path),
        gates=GateConfig(max_category_share=0.4),
    )
    run_id, _ = start_run(log, config)
    stages = FakeStages().registry()
    Driver(
        log, run_id, config, stages, run_dir=tmp_path / run_id, blobs=BlobStore(tmp_path / "b")
    ).run()
    log.append(run_id, [IsolationWaived(verifier="code", reason=HOSTILE)], log.last_seq(run_id))
    log.close()
    return store_url, run_id


def test_the_summary_shows_the_gates_real_reason(
    coverage_failed: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    store, run_id = coverage_failed
    result = rlvr(capsys, "status", run_id, "--store", store)
    assert result.code == 0, result.err
    assert "largest share 0.50 (max 0.40)]" in result.out


def test_events_prints_markup_and_escapes_as_text(
    coverage_failed: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    store, run_id = coverage_failed
    result = rlvr(capsys, "events", run_id, "--store", store)
    assert result.code == 0, result.err
    _assert_shown_as_text(result.out)


@pytest.fixture
def hostile_failure(tmp_path: Path, store_url: str) -> tuple[str, str]:
    """A run that failed with a reason holding markup, an ANSI escape and a newline."""
    log = EventLog(store_url)
    run_id, _ = start_run(
        log, RunConfig(run_name=f"ansi-{uuid.uuid4().hex[:8]}", log_path=str(tmp_path))
    )
    transition(log, run_id, "start")
    transition(log, run_id, "fail", reason=HOSTILE, after=[RunFailed(reason=HOSTILE)])
    log.close()
    return store_url, run_id


@pytest.mark.parametrize(
    "command",
    [("status", "{run}"), ("status",), ("why", "{run}"), ("replay", "{run}"), ("events", "{run}")],
)
def test_read_commands_never_send_log_text_to_the_terminal(
    hostile_failure: tuple[str, str], capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    store, run_id = hostile_failure
    if command == ("status",) and not store.endswith(".db"):
        pytest.skip("the list form reads every run of the shared database, other sessions' too")
    args = [part.format(run=run_id) for part in command]
    result = rlvr(capsys, *args, "--store", store)
    assert result.code == 0, result.err
    assert "\x1b" not in result.out + result.err
    if command != ("status",) and command[0] != "replay":  # the list and replay omit the reason
        _assert_shown_as_text(result.out)
