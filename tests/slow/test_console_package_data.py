"""A wheel of the project carries the run page's assets: run.js, run.css, VENDOR.json and the
vendored uPlot files, byte for byte what VENDOR.json records (a non-editable install serves them,
and `rlvr report` inlines them, offline)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
STATIC = "orchestrator/console/static/"


def test_the_wheel_carries_the_run_page_assets(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-2000:]
    [wheel] = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        vendor = json.loads(z.read(STATIC + "VENDOR.json"))
        for name, digest in vendor["uplot"]["files"].items():
            assert hashlib.sha256(z.read(STATIC + name)).hexdigest() == digest, name
    assert {STATIC + f for f in ("run.js", "run_dom.js", "run_detail.js", "run.css")} <= names
