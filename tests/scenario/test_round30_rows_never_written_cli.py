"""Red team round 30 (log), typed as a person types the commands: a row the code never wrote, its
unkeyed chain recomputed after it (SQL), of a kind the fold has no use for.
- A type the fold has no handler for (StageStarted, PauseRequested, RunCompleted ...) with a
  payload that is not its event's, or a type no event has: `status`, `why`, `report`, the run
  list, `resume --from` and the console's run data took the run as intact while `verify`
  refused it (log30-001..008, 011..018). The fold now decodes such rows and refuses them by seq.
- A middle row's time that is no time (`yesterday`): `verify` said intact, `events` and the
  console's events page showed it (log30-009/010/019/020)."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from orchestrator.console.app import create_app
from orchestrator.console.security import Binding
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages
from tests.scenario.test_tampered_reads_cli import _built, _copy
from tests.scenario.test_tampered_round19_cli import _one_error
from tests.tampering import forge_columns


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory):
    return _built(tmp_path_factory, "round30", FakeStages(), keyed=False)


def _forged(built, name: str, **columns: object) -> tuple[str, int]:
    """A copy of the store with one row's columns forged; (the store, the forged seq)."""
    log, store = _copy(built, name)
    kind = "PauseRequested" if columns.get("type") == "PauseRequested" else "StageStarted"
    seq = next(r.seq for r in log.read(built[1]) if r.type == kind)
    if "type" in columns and columns["type"] != "PauseRequested":
        seq = 20  # a MetricsRecorded row retyped
    forge_columns(log, built[1], seq, **columns)
    log.close()
    return store, seq


FORGERIES = {
    "log30-001 not JSON": {"payload": "garbage"},
    "an empty object": {"payload": "{}"},
    "a stage that is a number": {"payload": '{"stage":5}'},
    "log30-005 an unknown type": {"type": "NoSuchEvent"},
    "an empty type": {"type": ""},
}
READERS = [
    ["status", "{run}"],
    ["why", "{run}"],
    ["report", "{run}", "--out", "{dir}/r"],
    ["resume", "{run}", "--from", "30"],
    ["branch", "{run}", "--at", "30"],
    ["verify", "{run}"],
]


@pytest.mark.parametrize("forgery", list(FORGERIES))
@pytest.mark.parametrize("command", READERS, ids=[c[0] for c in READERS])
def test_a_row_the_fold_has_no_use_for_is_still_refused_by_its_seq(
    capsys, finished, tmp_path, forgery: str, command: list[str]
) -> None:
    store, seq = _forged(finished, f"f{abs(hash((forgery, command[0])))}", **FORGERIES[forgery])
    args = [a.replace("{run}", finished[1]).replace("{dir}", str(tmp_path)) for a in command]
    line = _one_error(rlvr(capsys, *args, "--store", store))
    assert f"seq {seq}: " in line, line


def test_the_run_list_and_the_console_refuse_it_too(capsys, finished) -> None:
    """log30-011/015: listed `completed 30 done`; the data route answered 200 after the list
    had called the run unreadable."""
    store, seq = _forged(finished, "console", payload="{}")
    listed = rlvr(capsys, "status", "--store", store)
    assert listed.code == 0 and f"seq {seq}: payload does not match StageStarted" in listed.err
    app = create_app(EventLog(store), Binding("127.0.0.1", 8765, "t" * 16))
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        runs = client.get("/api/runs").json()["runs"]
        data = client.get(f"/api/runs/{finished[1]}/data")
    assert [r["state"] for r in runs] == ["unreadable"]
    assert data.status_code == 409 and f"seq {seq}: " in data.text


@pytest.mark.parametrize("moment", ["yesterday", "99999-01-01T00:00:00+00:00", "2026-11-30"])
def test_a_row_time_that_is_no_time_is_refused_by_its_seq(capsys, finished, moment: str) -> None:
    """log30-009/019: verify said intact; `events` and the console's events page showed it."""
    log, store = _copy(finished, f"time{len(moment)}")
    forge_columns(log, finished[1], 20, recorded_at=moment)
    log.close()
    for command in (["verify", finished[1]], ["events", finished[1]]):
        line = _one_error(rlvr(capsys, *command, "--store", store))
        assert "seq 20: " in line and "is not a time the code writes" in line, line
    app = create_app(EventLog(store), Binding("127.0.0.1", 8765, "t" * 16))
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        page = client.get(f"/api/runs/{finished[1]}/events").json()
    assert page["events"] == [] and "is not a time the code writes" in page["page_error"]
