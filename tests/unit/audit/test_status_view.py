"""`rlvr status RUN` detail: state, step, last metrics, lease health and parent from the log."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from rich.console import Console

from orchestrator.audit.status_view import detail_table, run_detail
from orchestrator.config import RunConfig
from orchestrator.driver.commands import load_state, transition
from store.events import LeaseAcquired, RunStarted
from store.leases import LeaseRow
from store.log import EventLog


def test_a_finished_runs_detail_carries_its_numbers(chaos: tuple[EventLog, str]) -> None:
    log, run_id = chaos
    summary = next(s for s in log.runs() if s.run_id == run_id)
    detail = run_detail(load_state(log, run_id), summary)
    assert (detail["state"], detail["step"], detail["health"]) == ("completed", 40, "done")
    assert detail["last_metrics"]["kl"] > 0 and detail["rollbacks"] == 2
    assert detail["decisions"] == {
        "kl_control:halve_lr": 1,
        "rollback:rollback": 1,
        "entropy:raise_temperature": 1,
        "kl:rollback": 1,
    }
    assert detail["parent"] is None and detail["events"] == summary.n_events
    assert detail["gates"]["capability_retention"]["passed"] is True
    console = Console(record=True, width=160)
    console.print(detail_table(detail))
    text = console.export_text()
    assert "completed" in text and "rollback:rollback 1" in text


def test_health_reads_the_lease_row_the_heartbeat_renews_not_the_logged_acquisition(
    tmp_path: Path,
) -> None:
    log = EventLog(tmp_path / "events.db")
    started = RunStarted(
        config=RunConfig().model_dump(mode="json"), config_hash="h", parent_run_id="parent-run",
        parent_seq=42,
    )  # fmt: skip
    log.append("child", [started], 0)
    transition(log, "child", "start")
    acquired = datetime(2026, 1, 1, 12, tzinfo=UTC)
    log.append("child", [LeaseAcquired(owner="host-a:123", expires_at=acquired.isoformat())], 2)
    state = load_state(log, "child")
    # An hour later the logged expiry is long past, but the heartbeat keeps the row ahead of now.
    now = acquired + timedelta(hours=1)
    renewed = LeaseRow(
        run_id="child", owner="host-a:123", expires_at=(now + timedelta(seconds=20)).isoformat(),
        renewed_at=(now - timedelta(seconds=10)).isoformat(),
    )  # fmt: skip
    live = run_detail(state, None, renewed, now=now)
    assert live["health"] == "ok (lease held by host-a:123)"
    assert live["lease_holder"] == "host-a:123"
    dead = run_detail(state, None, renewed, now=now + timedelta(seconds=30))
    assert dead["health"].startswith("lease expired at ") and dead["lease_holder"] is None
    assert dead["parent"] == {"run_id": "parent-run", "seq": 42}
    gone = run_detail(state, None, None, now=now)
    assert gone["health"] == "no driver holds it (crashed?): rlvr resume child"
