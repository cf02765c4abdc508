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
