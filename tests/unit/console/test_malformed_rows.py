"""A run whose log holds a chain-consistent row that breaks its event's schema (red team round 8,
a8s-26/27/50): the run's JSON routes answered 500. Now a JSON error naming the run and seq."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from orchestrator.console.app import create_app
from orchestrator.console.security import Binding
from store.log import EventLog
from tests.tampering import forge_chain, synthetic_run


@pytest.mark.parametrize(
    "path", ["/api/runs/forged/data", "/api/runs/forged/why/4", "/api/actions/runs/forged"]
)
def test_a_malformed_row_is_a_json_error_naming_its_seq_not_a_500(tmp_path: Path, path: str):
    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, "forged", steps=4)
    forge_chain(log, "forged", 4, {"step": "x"})
    binding = Binding("127.0.0.1", 8765, "tok-malformed")
    app = create_app(log, binding)
    with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as c:
        response = c.get(path)
    assert response.status_code == 409, response.text
    assert "seq 4: payload does not match MetricsRecorded" in response.json()["error"]


# A value of the wrong type in rows the fold keeps (a checkpoint's step, a baseline's capability,
# the run's config) and in rows the step and compare views read outside the fold.
FORGERIES = [
    ("MetricsRecorded", {"step": "x"}),
    ("MetricsRecorded", {"metrics": 5}),
    ("MetricsRecorded", {"metrics": {"kl": "big"}}),
    ("CheckpointSaved", {"step": "x"}),
    ("BaselineRecorded", {"capability": [1]}),
    ("RunStarted", {"config": "x"}),
    ("RolloutsSampled", {"samples": "x"}),
    # red team round 15 (log 031/035/038): numbers stored as text, which the lax schema check
    # coerced while the readers took the text
    ("EvalRecorded", {"verify_rate": "0.99"}),
    ("GateEvaluated", {"value": "0.9"}),
    ("BaselineRecorded", {"verify_rate": "0.5"}),
    # red team round 16 (log 007/009/011): a step's rollout row read for the step view unchecked
    ("RolloutsSampled", {"group_size": "8"}),
    ("RolloutsSampled", {"rewards": [["1.0"]]}),
    ("RunStarted", {"config": {"log_path": ["runs"]}}),
]


@pytest.fixture(scope="module")
def chaos_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.unit.audit.chaos_log import chaos_run

    root = tmp_path_factory.mktemp("chaos-template")
    chaos_run(root)
    return root


@pytest.mark.parametrize(("event_type", "change"), FORGERIES)
def test_no_route_answers_500_on_a_value_of_the_wrong_type(
    chaos_template: Path, tmp_path: Path, event_type: str, change: dict
) -> None:
    import shutil

    for part in chaos_template.glob("events.db*"):  # the WAL too
        shutil.copy(part, tmp_path / part.name)
    log = EventLog(tmp_path / "events.db")
    [run_id] = [r.run_id for r in log.runs()]
    seq = next(r.seq for r in log.read(run_id) if r.type == event_type)
    forge_chain(log, run_id, seq, change)
    app = create_app(log, Binding("127.0.0.1", 8765, "tok-malformed"))
    paths = [
        "/api/runs", f"/api/runs/{run_id}/data", f"/api/runs/{run_id}/step/1",
        f"/api/runs/{run_id}/why/{seq}", f"/api/runs/{run_id}/events",
        f"/api/actions/runs/{run_id}", f"/api/compare?a={run_id}&b={run_id}",
    ]  # fmt: skip
    with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as c:
        answers = {path: c.get(path) for path in paths}
    assert {p: r.status_code for p, r in answers.items() if r.status_code >= 500} == {}
    refused = [r.json()["error"] for r in answers.values() if r.status_code == 409]
    assert refused, "some route reads the forged value"


@pytest.mark.parametrize("action", ["pause", "resume"])
def test_an_action_on_a_tampered_run_is_a_409_naming_the_seq(tmp_path: Path, action: str):
    """Red team round 10: the actions answered 503 (the store unavailable, try later) to a log
    that will never read; like every other route, a 409 that names the row."""
    import json

    from tests.unit.console.serve import serving

    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, "forged", steps=4)
    forge_chain(log, "forged", 4, {"step": "x"})
    with serving(log) as served, served.client() as client:
        client.get("/", params={"token": served.token})
        answer = client.post(
            f"/api/actions/{action}",
            content=json.dumps({"run_id": "forged"}),
            headers={"X-Console-Token": served.token, "Origin": served.base},
        )
    assert answer.status_code == 409, answer.text
    assert "seq 4" in answer.json()["error"]


# Red team round 16 (log 007/009/042): the step view read its rollout rows unchecked; a group size
# stored as text answered 409 naming no seq, rewards as text were rendered as they stood.
@pytest.mark.parametrize("change", [{"group_size": "8"}, {"rewards": [["1.0"]]}])
def test_the_step_view_refuses_a_rollout_row_of_the_wrong_type_by_its_seq(
    chaos_template: Path, tmp_path: Path, change: dict
) -> None:
    import shutil

    for part in chaos_template.glob("events.db*"):
        shutil.copy(part, tmp_path / part.name)
    log = EventLog(tmp_path / "events.db")
    [run_id] = [r.run_id for r in log.runs()]
    row = next(log.read(run_id, types=["RolloutsSampled"]))
    step = row.fields()["step"]
    forge_chain(log, run_id, row.seq, change)
    app = create_app(log, Binding("127.0.0.1", 8765, "tok-malformed"))
    with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as c:
        answer = c.get(f"/api/runs/{run_id}/step/{step}")
    assert answer.status_code == 409, answer.text
    assert f"seq {row.seq}: payload does not match RolloutsSampled" in answer.json()["error"]


# The console's events page hands rows out as `rlvr events --json` does: a rollout row the code
# never wrote (chain recomputed, no key) is shown as a page error naming its seq, not as a row.
@pytest.mark.parametrize("raw", ["not json{", '{"step": 3, "n_groups": "x", "group_size": 2}'])
def test_the_events_page_refuses_a_forged_rollout_row_by_its_seq(tmp_path: Path, raw: str):
    from store.events import RolloutsSampled

    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, "forged", steps=2)
    rollouts = RolloutsSampled(step=3, n_groups=1, group_size=2, rewards=[[1.0, 0.0]])
    log.append("forged", [rollouts], expected_seq=log.last_seq("forged"))
    forge_chain(log, "forged", 5, {}, raw=raw)
    app = create_app(log, Binding("127.0.0.1", 8765, "tok-malformed"))
    with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as c:
        answer = c.get("/api/runs/forged/events")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["events"] == [], body
    assert "run forged: seq 5: payload does not match RolloutsSampled" in body["page_error"], body
