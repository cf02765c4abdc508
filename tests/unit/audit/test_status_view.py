"""`rlvr status RUN` detail: state, step, last metrics, lease health and parent from the log."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from rich.console import Console

from orchestrator.audit.status_view import detail_table, run_detail
from orchestrator.config import RunConfig
from orchestrator.driver.commands import load_state, transition
from store.events import LeaseAcquired, RunStarted
from store.log import EventLog


def test_a_finished_runs_detail_carries_its_numbers(chaos: tuple[EventLog, str]) -> None:
    log, run_id = chaos
    summary = next(s for s in log.runs() if s.run_id == run_id)
    detail = run_detail(load_state(log, run_id), summary)
    assert (detail["state"], detail["step"], detail["health"]) == ("completed", 40, "done")
    assert detail["last_metrics"]["kl"] > 0 and detail["rollbacks"] == 1
    assert detail["decisions"] == {
        "kl_control:halve_lr": 1,
        "rollback:rollback": 1,
        "entropy:raise_temperature": 1,
    }
    assert detail["parent"] is None and detail["events"] == summary.n_events
    assert detail["gates"]["capability_retention"]["passed"] is True
    console = Console(record=True, width=160)
    console.print(detail_table(detail))
    text = console.export_text()
    assert "completed" in text and "rollback:rollback 1" in text


def test_a_branched_run_names_its_parent_and_an_expired_lease_reads_unhealthy(
    tmp_path: Path,
) -> None:
    log = EventLog(tmp_path / "events.db")
    started = RunStarted(
        config=RunConfig().model_dump(mode="json"), config_hash="h", parent_run_id="parent-run",
        parent_seq=42,
    )  # fmt: skip
    log.append("child", [started], 0)
    transition(log, "child", "start")
    expires = datetime(2026, 1, 1, 12, tzinfo=UTC)
    log.append("child", [LeaseAcquired(owner="host-a:123", expires_at=expires.isoformat())], 2)
    state = load_state(log, "child")
    live = run_detail(state, None, now=expires - timedelta(seconds=5))
    assert (
        live["health"] == "ok (lease held by host-a:123)" and live["lease_holder"] == "host-a:123"
    )
    dead = run_detail(state, None, now=expires + timedelta(seconds=5))
    assert dead["health"].startswith("lease expired at 2026-01-01T12:00:00")
    assert dead["parent"] == {"run_id": "parent-run", "seq": 42}
