"""configs/math_latex.toml, run exactly as shipped (no shortening overrides): the MATH-style sample
of LaTeX answers passes stage 2 (a MATH-style dataset used to fail its 80% verifiability gate
because every LaTeX reference was unparseable), and the run completes with every gate passing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from store.log import EventLog

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def test_the_math_latex_config_runs_as_shipped_and_keeps_its_latex_tasks(tmp_path: Path) -> None:
    store = tmp_path / "events.db"
    result = subprocess.run(
        [sys.executable, "-m", "orchestrator", "run", "configs/math_latex.toml",
         f"log_path={tmp_path}", "--store", str(store)],
        cwd=ROOT, env={**os.environ, "RLVR_LOG_LEVEL": "WARNING"},
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    log = EventLog(str(store))
    try:
        (summary,) = log.runs()
        events = [(e.type, json.loads(e.payload)) for e in log.read(summary.run_id)]
    finally:
        log.close()
    (designed,) = [p for t, p in events if t == "TasksDesigned"]
    assert designed["n_tasks"] == 60
    assert designed["n_verifiable"] / designed["n_tasks"] >= 0.8, designed["dropped"]
    failed_gates = [p for t, p in events if t == "GateEvaluated" and not p["passed"]]
    assert result.returncode == 0 and not failed_gates, (failed_gates, result.stderr[-3000:])
    assert any(t == "RunCompleted" for t, _ in events)
