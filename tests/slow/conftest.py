"""The README's quick start, run once per session as a new user types it, for every slow test
that reads the run it leaves (tests/slow/test_quickstart.py, test_readme_walkthrough.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.slow import readme
from tests.slow.runs import ROOT


@dataclass(frozen=True)
class QuickstartRun:
    workdir: Path  # a fresh folder holding a copy of configs/, where the commands are typed
    store: Path
    run_id: str
    seconds: float
    stdout: str
    stderr: str


@pytest.fixture(scope="session")
def readme_quickstart(tmp_path_factory: pytest.TempPathFactory) -> QuickstartRun:
    workdir = tmp_path_factory.mktemp("quickstart")
    shutil.copytree(ROOT / "configs", workdir / "configs")
    first = readme.commands()[0]
    assert first[-2:] == ["run", "configs/quickstart.toml"], first  # the README's quick start
    started = time.monotonic()
    done = subprocess.run(first, cwd=workdir, capture_output=True, text=True, timeout=1500,
                          env={**os.environ, "RLVR_LOG_LEVEL": "WARNING"})  # fmt: skip
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-4000:]
    store = workdir / "runs" / "events.db"
    run_id = done.stderr.split("run ", 1)[1].split(" started", 1)[0]
    return QuickstartRun(workdir, store, run_id, seconds, done.stdout, done.stderr)
