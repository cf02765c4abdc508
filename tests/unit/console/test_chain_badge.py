"""The console's chain badge and its cached views of a keyed run edited behind its end (a row's
own hash recomputed, inside the verified prefix and under the keyed head): the badge walks a run
whole when first asked and again every `store.cursor.RECHECK_S`, and a break any route met is
shown by every route at once (red team round 17, l17-021/023)."""

from __future__ import annotations

from pathlib import Path

import pytest

import store.cursor
from store.keyed import KEY_ENV
from store.log import EventLog
from tests.tampering import own_hash_edit, synthetic_run, write_key
from tests.unit.console.serve import serving


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def keyed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_ENV, str(write_key(tmp_path)))
    clock = _Clock()
    monkeypatch.setattr(store.cursor, "time", clock, raising=False)
    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, "r", 8)  # seqs 1..10
    assert log.verify("r").ok
    yield log, clock
    log.close()


def _chain(client, after: int = 7) -> dict:
    return client.get("/api/runs/r/events", params={"after_seq": after}).json()["chain"]


def _listed(client) -> dict:
    return {row["run_id"]: row for row in client.get("/api/runs").json()["runs"]}["r"]


def test_the_badge_of_a_run_edited_before_the_console_started_is_broken_not_ok(keyed) -> None:
    log, _ = keyed
    own_hash_edit(log, "r", 4, {"metrics": {"kl": 9.0}})
    with serving(log, read_only=True) as served, served.client() as client:
        chain = _chain(client)  # a page past the edit: the page itself reads
        assert chain["broken_at"] == 4 and chain["reason"] != "ok", chain
        assert chain["verified_to"] == 3


def test_an_edit_behind_the_end_is_refused_by_every_route_once_one_met_it(keyed) -> None:
    log, _ = keyed
    with serving(log, read_only=True) as served, served.client() as client:
        assert _listed(client)["state"] != "unreadable"
        assert _chain(client)["reason"] == "ok"
        assert client.get("/api/compare", params={"a": "r", "b": "r"}).status_code == 200
        own_hash_edit(log, "r", 4, {"metrics": {"kl": 9.0}})
        assert client.get("/api/runs/r/data").status_code == 409  # the fold reads it
        assert client.get("/api/compare", params={"a": "r", "b": "r"}).status_code == 409
        assert _listed(client)["state"] == "unreadable"
        assert _chain(client)["broken_at"] == 4


def test_an_edit_behind_the_end_is_found_by_the_next_whole_walk(keyed) -> None:
    log, clock = keyed
    with serving(log, read_only=True) as served, served.client() as client:
        assert _chain(client)["reason"] == "ok"
        assert client.get("/api/compare", params={"a": "r", "b": "r"}).status_code == 200
        own_hash_edit(log, "r", 4, {"metrics": {"kl": 9.0}})
        assert _chain(client)["reason"] == "ok"  # not walked whole again yet: one query
        clock.now += store.cursor.RECHECK_S
        compared = client.get("/api/compare", params={"a": "r", "b": "r"})
        assert compared.status_code == 409 and "seq 4" in compared.json()["error"]
        assert _chain(client)["broken_at"] == 4
        assert _listed(client)["state"] == "unreadable"


def test_the_runs_list_rewalks_its_stalest_run_each_poll(keyed, tmp_path: Path) -> None:
    """Nothing else reads the run: the list itself finds the edit once the recheck is due."""
    log, clock = keyed
    synthetic_run(log, "s", 2)
    with serving(log, read_only=True) as served, served.client() as client:
        assert _listed(client)["state"] != "unreadable"  # both walked in two polls
        client.get("/api/runs")
        own_hash_edit(log, "r", 4, {"metrics": {"kl": 9.0}})
        assert _listed(client)["state"] != "unreadable"  # not due yet
        clock.now += store.cursor.RECHECK_S
        client.get("/api/runs")  # one of the two, then the other
        assert _listed(client)["state"] == "unreadable"
