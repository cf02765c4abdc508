"""The Runs, Events and Compare routes on a real server over the chaos log and its branch: rows
equal `rlvr status --json`, a branch sits under its parent with its cut, events page by seq and
filter by type, the chain's state, and the compare default (a branch and its parent)."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa

from orchestrator.driver.lifecycle import branch
from store.events import MetricsRecorded
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.tampering import edit_payload, synthetic_run
from tests.unit.audit.chaos_log import chaos_run
from tests.unit.console.serve import serving


@pytest.fixture(scope="module")
def chaos_and_branch(tmp_path_factory):
    root = tmp_path_factory.mktemp("console-chaos")
    log, parent = chaos_run(root)
    child, cut = branch(log, parent, 40, ["grpo.learning_rate=0.0001"])
    yield log, parent, child, cut, root
    log.close()


def test_the_runs_list_puts_a_branch_under_its_parent_and_matches_rlvr_status(
    chaos_and_branch, capsys
):
    log, parent, child, cut, root = chaos_and_branch
    with serving(log) as served, served.client() as client:
        rows = {r["run_id"]: r for r in client.get("/api/runs").json()["runs"]}
    assert rows[child]["parent"] == {"run_id": parent, "seq": cut}
    assert rows[parent]["parent"] is None
    status = rlvr(capsys, "status", "--json", "--store", str(root / "events.db"))
    assert status.code == 0
    for expected in json.loads(status.out):
        row = rows[expected["run_id"]]
        assert (row["state"], row["step"], row["health"]) == (
            expected["state"], expected["step"], expected["health"],
        )  # fmt: skip
        assert row["last_event"] == expected["last_event"]
        for name, value in expected["last_metrics"].items():
            assert row["metrics"][name] == value
    assert rows[parent]["state"] == "completed" and rows[parent]["health_word"] == "done"


def test_the_runs_list_reads_only_what_a_run_appended_since(tmp_path, run_id):
    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, run_id, steps=3)
    with serving(log) as served, served.client() as client:
        first = {r["run_id"]: r for r in client.get("/api/runs").json()["runs"]}[run_id]
        log.append(
            run_id, [MetricsRecorded(step=9, metrics={"reward_mean": 0.75})], log.last_seq(run_id)
        )
        second = {r["run_id"]: r for r in client.get("/api/runs").json()["runs"]}[run_id]
    assert (first["step"], second["step"]) == (3, 9)
    assert second["metrics"]["reward_mean"] == 0.75
    assert second["last_seq"] == first["last_seq"] + 1


def test_events_page_by_seq_filter_by_type_and_link_each_seq(chaos_and_branch):
    log, parent, child, cut, _ = chaos_and_branch
    last = log.last_seq(parent)
    with serving(log) as served, served.client() as client:
        seqs, after = [], 0
        while after is not None:
            body = client.get(
                f"/api/runs/{parent}/events", params={"after_seq": after, "limit": 7}
            ).json()
            assert len(body["events"]) <= 7
            seqs += [e["seq"] for e in body["events"]]
            after = body["next_after_seq"]
        assert seqs == list(range(1, last + 1))
        assert body["chain"] == {"verified_to": last, "broken_at": None, "reason": "ok"}
        gates = client.get(
            f"/api/runs/{parent}/events", params={"type": "GateEvaluated", "limit": 500}
        ).json()
        expected = [r.seq for r in log.read(parent, types=["GateEvaluated"])]
        assert [e["seq"] for e in gates["events"]] == expected
        assert {e["type"] for e in gates["events"]} == {"GateEvaluated"}
        # A branch's history: its parent's rows up to the cut (stored under the parent), then its own.
        own = client.get(f"/api/runs/{child}/events", params={"after_seq": cut - 2}).json()[
            "events"
        ]
        assert [(e["seq"], e["run_id"]) for e in own[:3]] == [
            (cut - 1, parent), (cut, parent), (cut + 1, child),
        ]  # fmt: skip
        page = client.get(f"/runs/{parent}/events").text
        assert f'data-run="{parent}"' in page
        assert (
            client.get(f"/api/runs/{parent}/events", params={"type": "NoSuchEvent"}).status_code
            == 400
        )
        assert (
            client.get(f"/api/runs/{parent}/events", params={"after_seq": "-1"}).status_code == 400
        )
        assert client.get("/api/runs/no-such-run/events").status_code == 404


def test_the_events_page_names_an_edited_row_and_a_truncated_chain(tmp_path, run_id):
    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, run_id, steps=6)
    last = log.last_seq(run_id)
    with serving(log) as served, served.client() as client:
        ok = client.get(f"/api/runs/{run_id}/events").json()
        assert ok["chain"]["verified_to"] == last and ok["page_error"] is None
        edit_payload(log, run_id, 4, {"step": 2, "metrics": {"kl": 99.0}})
        edited = client.get(f"/api/runs/{run_id}/events").json()
        assert "seq 4" in edited["page_error"] and edited["events"] == []
        # a page walks from the row its first row links to (as a typed read does): the page
        # after seq 4 is refused too, the one after seq 5 is not
        after_4 = client.get(f"/api/runs/{run_id}/events", params={"after_seq": 4}).json()
        assert "seq 4" in after_4["page_error"]
        assert (
            client.get(f"/api/runs/{run_id}/events", params={"after_seq": 5}).json()["page_error"]
            is None
        )
        with log.engine.begin() as conn:
            conn.execute(
                sa.text("DELETE FROM events WHERE run_id = :r AND seq = :s"),
                {"r": run_id, "s": last},
            )
        cut = client.get(f"/api/runs/{run_id}/events", params={"after_seq": 4}).json()["chain"]
    # the first bad seq, as `rlvr verify` names it, not the cut tail behind it
    assert cut["broken_at"] == 4 and "content does not match" in cut["reason"]


def test_compare_defaults_to_a_branch_and_its_parent_with_the_branch_point(chaos_and_branch):
    log, parent, child, cut, _ = chaos_and_branch
    with serving(log) as served, served.client() as client:
        body = client.get("/api/compare", params={"b": child}).json()
        assert (body["a"]["run_id"], body["b"]["run_id"]) == (parent, child)
        assert body["branch_point"]["seq"] == cut
        steps_before_cut = [
            r.fields()["step"] for r in log.read(parent, types=["MetricsRecorded"], to_seq=cut)
        ]
        assert body["branch_point"]["step"] == steps_before_cut[-1]
        kl = [r.fields()["metrics"]["kl"] for r in log.read(parent, types=["MetricsRecorded"])]
        assert body["a"]["kl"] == kl
        assert client.get("/api/compare").json()["b"]["run_id"] == child
        assert client.get("/api/compare", params={"b": parent}).status_code == 400
        assert client.get("/api/compare", params={"a": parent, "b": "nope"}).status_code == 404
