"""Helpers for the end-to-end tests: run `rlvr` as a user would (a subprocess of the real CLI) and
read what it left in the event log."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from store.log import EventLog, StoredEvent
from store.projections import RunState, project

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "configs" / "quickstart.toml"
CHAOS = ROOT / "configs" / "chaos.toml"

# A shortened quickstart for lifecycle tests: the mechanics (leases, crashes, branches) are the
# subject, not the gain, so gates that judge the gain are opened.
SHORT = [
    "sft.steps=400",
    "pipeline.rl_steps=12",
    "pipeline.round_steps=6",
    "pipeline.pass_rate_tasks=96",
    "pipeline.verifiability_sample=100",
    "pipeline.calibration_tasks=30",
    "data.max_heldout=100",
    "data.capability_heldout=50",
    "save_every=4",
    "eval_every=4",
    "gates.max_category_share=1.0",
    "gates.min_verify_rate_gain=-1.0",
    "gates.max_kl=100.0",
    "gates.min_capability_retention=0.0",
    "policies.rollback.enabled=false",
]


def rlvr(
    *args: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 1200,
    check: bool = False,
    launcher: list[str] | None = None,
) -> subprocess.CompletedProcess:
    """`rlvr ARGS` in `cwd`; `launcher` prefixes the command (e.g. `mlx.launch ... --`)."""
    environment = {**os.environ, "RLVR_LOG_LEVEL": "WARNING", **(env or {})}
    result = subprocess.run(
        [*(launcher or []), sys.executable, "-m", "orchestrator", *args], cwd=cwd, env=environment,
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    if check and result.returncode != 0:
        raise AssertionError(
            f"rlvr {' '.join(args)} exited {result.returncode}:\n{result.stderr[-4000:]}"
        )
    return result


def start(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    environment = {**os.environ, "RLVR_LOG_LEVEL": "WARNING", **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-m", "orchestrator", *args], cwd=cwd, env=environment,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def only_run(store: Path) -> str:
    runs = EventLog(store).runs()
    assert len(runs) == 1, [r.run_id for r in runs]
    return runs[0].run_id


def events(store: Path, run_id: str, *types: str) -> list[StoredEvent]:
    return list(EventLog(store).read(run_id, types=list(types) or None))


def state(store: Path, run_id: str) -> RunState:
    return project(EventLog(store).read(run_id))


def wait_until(
    done: Callable[[], object], *, timeout: float, what: str, every: float = 0.5
) -> None:
    """Poll `done` until it is truthy; past `timeout` seconds fail, naming what was awaited."""
    start_at = time.monotonic()
    while not done():
        waited = time.monotonic() - start_at
        assert waited < timeout, f"gave up after {waited:.0f} s waiting for {what}"
        time.sleep(every)


def wait_for_lease_to_expire(log: EventLog, run_id: str, timeout: float = 60) -> None:
    """A SIGKILLed driver cannot release its lease: wait until the row's TTL has run out (it is
    no longer renewed), so a resume is not refused as a second driver."""
    from store.leases import LeaseTable

    def expired() -> bool:
        row = LeaseTable(log).get(run_id)
        return row is None or datetime.fromisoformat(row.expires_at) < datetime.now(UTC)

    wait_until(expired, timeout=timeout, what=f"the lease of run {run_id} to expire", every=0.2)
