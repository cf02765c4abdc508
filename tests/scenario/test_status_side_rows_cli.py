"""`rlvr status RUN` of a completed keyed run with forged side-table rows, typed as a person types
it (the real `main`): a queued request whose MAC does not verify is not counted as queued (it is
named as refused), and a lease row never makes a completed run look held by a driver."""

from __future__ import annotations

import json
import sqlite3

import pytest

from store.leases import LeaseTable
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages
from tests.scenario.test_tampered_reads_cli import _built, _copy


@pytest.fixture(scope="module")
def keyed_done(tmp_path_factory: pytest.TempPathFactory):
    return _built(tmp_path_factory, "side-rows", FakeStages(), keyed=True)


def _status(capsys, built, store: str, monkeypatch, *extra: str):
    for key, value in built[2].items():
        monkeypatch.setenv(key, value)
    result = rlvr(capsys, "status", built[1], "--store", store, *extra)
    assert result.code == 0, result.err[-3000:]
    return result


@pytest.mark.parametrize("mac", ["00" * 32, None], ids=["wrong MAC", "no MAC"])
def test_with_a_key_a_forged_queued_request_is_named_refused_not_counted_queued(
    keyed_done, mac, capsys, monkeypatch
) -> None:
    log, store = _copy(keyed_done, "forged-request")
    log.close()
    with sqlite3.connect(store) as db:
        db.execute(
            "INSERT INTO run_requests (run_id, type, schema_version, payload, queued_at, "
            "queued_by, mac) VALUES (?, 'PauseRequested', 1, ?, '2026-11-29T00:00:00', 'evil', ?)",
            (keyed_done[1], '{"by":"evil","reason":"forged pause"}', mac),
        )
    detail = json.loads(_status(capsys, keyed_done, store, monkeypatch, "--json").out)
    assert detail["queued_requests"] == 0
    assert len(detail["refused_requests"]) == 1
    assert "no valid MAC with the chain key" in detail["refused_requests"][0]
    table = " ".join(_status(capsys, keyed_done, store, monkeypatch).out.split())
    assert "for its driver to append" not in table and "refused" in table, table


def test_a_lease_row_on_a_completed_run_names_no_holder(keyed_done, capsys, monkeypatch) -> None:
    log, store = _copy(keyed_done, "forged-lease")
    LeaseTable(log)  # its table, as a driven run's store has it
    log.close()
    with sqlite3.connect(store) as db:
        db.execute(
            "INSERT OR REPLACE INTO leases (run_id, owner, expires_at, renewed_at) "
            "VALUES (?, 'evil-host:4242:deadbeef', '2099-01-01T00:00:00+00:00', "
            "'2026-11-29T00:00:00+00:00')",
            (keyed_done[1],),
        )
    detail = json.loads(_status(capsys, keyed_done, store, monkeypatch, "--json").out)
    assert detail["state"] == "completed" and detail["lease_holder"] is None
    assert detail["lease_expires_at"] is None and detail["health"] == "done"
    table = _status(capsys, keyed_done, store, monkeypatch).out
    assert "evil-host" not in table, table
    listed = rlvr(capsys, "status", "--json", "--store", store)
    assert listed.code == 0 and "evil-host" not in listed.out, listed.out
