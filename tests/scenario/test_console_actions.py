"""The console's action routes over a real uvicorn on 127.0.0.1: every POST is refused without the
per-launch token in `X-Console-Token` (a wrong one, a cookie alone) and under `--read-only`; a
branch preview validates the overrides through the config schema, naming the field at fault, and
shows the config diff; a pause through the console is `rlvr pause`'s; the form page escapes what
it is given and loads its script from a file."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import httpx
import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import load_state, start_run
from orchestrator.driver.lifecycle import drive
from store.log import EventLog
from tests.scenario.actions_server import serving
from tests.scenario.fake_stages import FakeStages

TOKEN = "t0ken-for-this-launch"
# A loaded machine answers slowly (a preview folds the run): wait longer than httpx's 5 s.
_post = functools.partial(httpx.post, timeout=60)
_get = functools.partial(httpx.get, timeout=60)


@pytest.fixture
def finished(tmp_path: Path) -> tuple[EventLog, str]:
    log = EventLog(tmp_path / "events.db")
    config = RunConfig(log_path=str(tmp_path))
    run_id, _ = start_run(log, config)
    assert drive(log, run_id, config, FakeStages().registry()).state == "completed"
    return log, run_id


def _rl_seq(log: EventLog, run_id: str) -> int:
    """A cut inside the RL stage: the end of its step 12's batch."""
    return next(r.seq for r in log.read(run_id, types=["MetricsRecorded"]) if r.event.step == 12)


@pytest.mark.parametrize(
    "path", ["/api/actions/branch/preview", "/api/actions/branch", "/api/actions/resume",
             "/api/actions/pause"],
)  # fmt: skip
def test_every_action_is_refused_without_the_token_with_a_wrong_one_and_with_a_cookie_alone(
    finished: tuple[EventLog, str], path: str
) -> None:
    log, run_id = finished
    last = log.last_seq(run_id)
    body = {"run_id": run_id, "at_seq": 5, "overrides": {}}
    with serving(log, TOKEN) as base:
        for headers, cookies in (
            ({}, {}),
            ({"X-Console-Token": "t0ken-for-this-launcH"}, {}),
            ({}, {"rlvr_console": TOKEN}),
        ):
            answer = _post(base + path, json=body, headers=headers, cookies=cookies)
            assert answer.status_code == 403
            assert "X-Console-Token" in answer.json()["error"]
    assert log.last_seq(run_id) == last


def test_a_read_only_console_refuses_every_action_even_with_the_token(
    finished: tuple[EventLog, str],
) -> None:
    log, run_id = finished
    with serving(log, TOKEN, read_only=True) as base:
        for path in ("/api/actions/branch", "/api/actions/pause", "/api/actions/resume"):
            answer = _post(base + path, json={"run_id": run_id, "at_seq": 5},
                                headers={"X-Console-Token": TOKEN})  # fmt: skip
            assert answer.status_code == 403 and "read-only" in answer.json()["error"]
    assert len(log.runs()) == 1


def test_a_branch_preview_names_the_field_at_fault_and_shows_the_config_diff(
    finished: tuple[EventLog, str],
) -> None:
    log, run_id = finished
    at = _rl_seq(log, run_id)
    headers = {"X-Console-Token": TOKEN}
    url = "/api/actions/branch/preview"
    with serving(log, TOKEN) as base:
        bad = _post(base + url, headers=headers, json={
            "run_id": run_id, "at_seq": at,
            "overrides": {"grpo.learning_rate": "-1", "grpo.temprature": "0.5", "seed": "7"},
        }).json()  # fmt: skip
        good = _post(base + url, headers=headers, json={
            "run_id": run_id, "at_seq": at, "overrides": {"grpo.learning_rate": 5e-5},
        }).json()  # fmt: skip
        past = _post(base + url, headers=headers,
                          json={"run_id": run_id, "at_seq": 10_000, "overrides": {}}).json()  # fmt: skip
        branch = _post(base + "/api/actions/branch", headers=headers, json={
            "run_id": run_id, "at_seq": at, "overrides": {"grpo.learning_rate": "-1"},
        })  # fmt: skip
    assert bad["ok"] is False and sorted(bad["errors"]) == ["grpo.learning_rate", "grpo.temprature"]
    assert "grpo.learning_rate" in bad["errors"]["grpo.learning_rate"]
    assert "unknown config key 'grpo.temprature'" in bad["errors"]["grpo.temprature"]
    assert good["ok"] is True and good["at_seq"] == at and good["errors"] == {}
    assert good["overrides"] == ["grpo.learning_rate=5e-05"]
    [change] = good["changes"]
    assert change["key"] == "grpo.learning_rate" and change["after"] == "5e-05"
    assert change["before"] == repr(RunConfig().grpo.learning_rate)
    assert past["ok"] is False and "has seqs 1.." in past["errors"]["at"]
    # Starting it is refused the same way, and nothing is written.
    assert branch.status_code == 400 and "grpo.learning_rate" in branch.json()["fields"]
    assert len(log.runs()) == 1


def test_a_pause_through_the_console_is_rlvr_pauses_and_a_finished_run_is_refused(
    tmp_path: Path, finished: tuple[EventLog, str]
) -> None:
    log, done = finished
    idle, _ = start_run(log, RunConfig(log_path=str(tmp_path)))  # created, no driver
    headers = {"X-Console-Token": TOKEN}
    with serving(log, TOKEN) as base:
        paused = _post(base + "/api/actions/pause", headers=headers,
                            json={"run_id": idle, "reason": "<b>stop</b>"})  # fmt: skip
        refused = _post(base + "/api/actions/pause", headers=headers, json={"run_id": done})
        resumed = _post(base + "/api/actions/resume", headers=headers, json={"run_id": done})
        unknown = _post(base + "/api/actions/pause", headers=headers, json={"run_id": "nope"})
        followed = _get(base + f"/api/actions/runs/{idle}").json()
    assert paused.status_code == 200 and paused.json()["said"].startswith(f"run {idle} paused")
    assert load_state(log, idle).state == "paused"
    [row] = log.read(idle, types=["RunPaused"])
    assert row.event.reason.endswith("(console): <b>stop</b>")
    assert followed["state"] == "paused" and followed["paused_reason"] == row.event.reason
    assert refused.status_code == 409 and "is completed" in refused.json()["error"]
    assert resumed.status_code == 409 and "is completed" in resumed.json()["error"]
    assert unknown.status_code == 404


def test_the_branch_form_page_escapes_its_data_and_loads_its_script_from_a_file(
    finished: tuple[EventLog, str],
) -> None:
    log, run_id = finished
    with serving(log, TOKEN) as base:
        hostile = _get(base + '/runs/"><img src=x onerror=alert(1)>/branch?at=5"')
        page = _get(base + f"/runs/{run_id}/branch?at=5")
        with_cookie = _get(base + f"/runs/{run_id}/branch", cookies={"rlvr_console": TOKEN})
        script = _get(base + "/actions/actions.js")
    assert "<img" not in hostile.text and "&quot;&gt;&lt;img src=x onerror=" in hostile.text
    assert 'data-at=""' in hostile.text  # a seq or nothing
    assert '<script src="/actions/actions.js" defer></script>' in page.text
    assert page.text.count("<script") == 1  # no inline script
    assert f'data-run="{run_id}"' in page.text and 'data-at="5"' in page.text
    assert 'data-token=""' in page.text  # the token is written only for its cookie's holder
    assert f'data-token="{TOKEN}"' in with_cookie.text
    assert script.status_code == 200 and "textContent" in script.text
    assert "innerHTML" not in script.text


def test_a_malformed_action_request_is_a_400_never_a_server_error(finished) -> None:
    """Red team round 5: a body nested 60,000 deep (RecursionError in the JSON decoder) and a seq
    written "²" (str.isdigit says yes, int() raises) answered 500 with a traceback."""
    log, run_id = finished
    headers = {"x-console-token": TOKEN, "content-type": "application/json"}
    bodies = [
        b"[" * 60_000,
        b'{"run_id": ' + b"[" * 30_000 + b"]" * 30_000 + b"}",
        json.dumps({"run_id": run_id, "at_seq": "\u00b2"}).encode(),
        json.dumps({"run_id": run_id, "at_seq": 10**30}).encode(),
        json.dumps({"run_id": run_id, "at_seq": -5}).encode(),
    ]
    with serving(log, TOKEN) as base:
        answers = [
            _post(base + path, content=body, headers=headers).status_code
            for path in ("/api/actions/branch/preview", "/api/actions/branch")
            for body in bodies
        ]
    assert answers == [400] * 10
