"""The BLAS loader's libgfortran cache: a copy that is not the expected bytes is rewritten, a cache
that cannot be written falls back to memory, and neither costs a command a line on stderr."""

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stages.training import blas
from stages.training.blas import DISABLE_ENV, blas_status

REPO = Path(__file__).resolve().parents[3]
linux_cpu = pytest.mark.skipif(
    not sys.platform.startswith("linux") or blas_status()["status"] == "not-cpu",
    reason="OpenBLAS preload only applies to mlx[cpu] on Linux",
)

STATUS = "import json, stages.training.blas as b; print(json.dumps(b.blas_status()))"
# blas.py loaded on its own (not through the package, which loads OpenBLAS at import), with
# the cache made unwritable as for a user who may not write it (root writes any folder).
UNWRITABLE = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("blas_alone", sys.argv[1])
b = importlib.util.module_from_spec(spec); spec.loader.exec_module(b)
def refuse(target, data):
    raise PermissionError(13, "Permission denied", str(target))
b._write_cached = refuse
print(json.dumps([b.enable_openblas(), "memfd:" in open("/proc/self/maps").read()]))
"""


def _python(code: str, cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), RLVR_LOG_LEVEL="WARNING")
    env.pop(DISABLE_ENV, None)
    return subprocess.run(
        [sys.executable, *(["-c", code] if code else []), *args],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def _bundled_gfortran() -> Path:
    for base in sys.path:
        found = sorted((Path(base) / "mlx_cpu.libs").glob("libgfortran-*.so*"))
        if found:
            return found[0]
    pytest.skip("no libgfortran bundled with mlx[cpu]")


@linux_cpu
def test_a_cache_root_that_is_a_file_prints_nothing_and_openblas_still_loads(tmp_path):
    (tmp_path / "cache").write_text("not a folder")
    probe = _python(STATUS, tmp_path / "cache")
    assert probe.returncode == 0 and probe.stderr == "", probe.stderr
    assert json.loads(probe.stdout)["status"] == "loaded"
    typed = _python("", tmp_path / "cache", "-m", "orchestrator", "pause", "nosuch",
                    "--store", f"sqlite:///{tmp_path / 'events.db'}")  # fmt: skip
    lines = [line for line in typed.stderr.splitlines() if line.strip()]
    assert typed.returncode != 0 and len(lines) == 1, typed.stderr
    assert lines[0].startswith("error:")


@linux_cpu
def test_a_cut_short_cached_copy_is_rewritten_not_trusted_because_it_exists(tmp_path, monkeypatch):
    source = _bundled_gfortran()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cached = blas._cache_path(source)
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"\x7fELF garbage, cut short")
    probe = _python(STATUS, tmp_path)
    assert probe.returncode == 0 and probe.stderr == "", probe.stderr
    assert json.loads(probe.stdout)["status"] == "loaded"
    assert cached.read_bytes() == blas._renamed_gfortran(source)


@linux_cpu
def test_a_symlink_in_the_cache_is_replaced_not_loaded_through(tmp_path):
    source = _bundled_gfortran()
    outside = tmp_path / "outside.so"
    outside.write_bytes(b"not a library")
    cached = tmp_path / "cache" / "rlvr-orchestrator" / "blas" / "x" / "libgfortran.so.5"
    cached.parent.mkdir(parents=True)
    cached.symlink_to(outside)
    assert not blas._holds(cached, outside.read_bytes())  # a link never counts as the copy
    blas._write_cached(cached, blas._renamed_gfortran(source))
    assert not cached.is_symlink() and outside.read_bytes() == b"not a library"


@linux_cpu
def test_a_cache_this_user_cannot_write_falls_back_to_an_in_memory_copy(tmp_path):
    probe = _python(UNWRITABLE, tmp_path / "cache", str(REPO / "stages" / "training" / "blas.py"))
    assert probe.returncode == 0 and probe.stderr == "", probe.stderr
    assert json.loads(probe.stdout) == ["loaded", True]


def test_the_slow_blas_is_one_warning_line_when_a_model_loads_and_only_once(monkeypatch, caplog):
    monkeypatch.setitem(blas._state, "status", "failed")
    monkeypatch.setitem(blas._state, "detail", "loading libopenblas.so.0 failed: file too short")
    monkeypatch.setattr(blas, "_warned", [])
    with caplog.at_level(logging.INFO, logger="rlvr.training"):
        blas.warn_if_reference_blas()
        blas.warn_if_reference_blas()
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "file too short" in warnings[0].getMessage()


def test_openblas_switched_off_by_the_user_is_not_warned_about(monkeypatch, caplog):
    monkeypatch.setitem(blas._state, "status", "disabled")
    monkeypatch.setattr(blas, "_warned", [])
    with caplog.at_level(logging.INFO, logger="rlvr.training"):
        blas.warn_if_reference_blas()
    assert not caplog.records
