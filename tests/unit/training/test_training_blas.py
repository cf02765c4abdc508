"""OpenBLAS under mlx[cpu]: the fast path is taken on Linux and agrees with the reference BLAS."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stages.training.blas import (
    CORE_FLAGS,
    DISABLE_ENV,
    _elf_soname_offset,
    blas_status,
    cpu_flags,
    missing_cpu_flags,
)

PROBE = """
import json, time
import stages.training
from stages.training.blas import blas_status
import mlx.core as mx
import numpy as np
a = mx.random.normal((512, 512), key=mx.random.key(1))
b = mx.random.normal((512, 512), key=mx.random.key(2))
c = a @ b
mx.eval(c)
t = time.perf_counter()
for _ in range(5):
    mx.eval(a @ b)
gflops = 5 * 2 * 512**3 / (time.perf_counter() - t) / 1e9
print(json.dumps({"status": blas_status()["status"], "gflops": gflops,
                  "c": np.array(c)[:4, :4].tolist(), "sum": float(np.array(c, dtype=np.float64).sum())}))
"""

linux_cpu = pytest.mark.skipif(
    not sys.platform.startswith("linux") or blas_status()["status"] == "not-cpu",
    reason="OpenBLAS preload only applies to mlx[cpu] on Linux",
)


def probe(disable: bool) -> dict:
    env = dict(os.environ)
    env.pop(DISABLE_ENV, None)
    if disable:
        env[DISABLE_ENV] = "1"
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, cwd=root, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@linux_cpu
def test_openblas_agrees_with_the_reference_blas_and_is_faster():
    fast, reference = probe(disable=False), probe(disable=True)
    assert fast["status"] == "loaded" and reference["status"] == "disabled"
    for row_fast, row_ref in zip(fast["c"], reference["c"], strict=True):
        assert row_fast == pytest.approx(row_ref, rel=1e-4, abs=1e-3)
    assert fast["sum"] == pytest.approx(reference["sum"], rel=1e-4, abs=1.0)
    assert fast["gflops"] > 3 * reference["gflops"]


def test_this_process_took_the_fast_path_or_says_why():
    assert blas_status()["status"] in {"loaded", "disabled", "not-linux", "not-cpu", "absent"}
    # (never "unsupported-cpu" with the pinned wheel: see the test below)


def test_soname_reader_rejects_a_non_elf_file(tmp_path):
    with pytest.raises(ValueError, match="ELF64"):
        _elf_soname_offset(b"not an elf at all" * 4)


def test_a_build_for_instructions_this_cpu_lacks_is_refused_not_loaded():
    # the regression: cmeel-openblas 0.3.31 (SKYLAKEX) killed the process with SIGILL on an
    # AVX2-only AMD EPYC at the first matmul
    avx2_cpu = frozenset({"sse4_2", "avx", "avx2", "fma", "bmi2", "f16c"})
    skylakex = "OpenBLAS 0.3.31 NO_AFFINITY SKYLAKEX MAX_THREADS=64"
    assert missing_cpu_flags(skylakex, avx2_cpu) >= {"avx512f", "avx512bw"}
    assert missing_cpu_flags("OpenBLAS 0.3.29 NO_AFFINITY ZEN MAX_THREADS=64", avx2_cpu) == set()
    assert missing_cpu_flags(skylakex, avx2_cpu | CORE_FLAGS["SKYLAKEX"]) == set()
    assert missing_cpu_flags("OpenBLAS 0.3.29 DYNAMIC_ARCH NO_AFFINITY Zen", frozenset()) == set()
    assert missing_cpu_flags(skylakex, None) == set()  # flags unknown: not refused


def test_cpu_flags_come_from_the_flags_line(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse avx2 fma\n")
    assert cpu_flags(info) == {"fpu", "sse", "avx2", "fma"}
    assert cpu_flags(tmp_path / "missing") is None


@linux_cpu
def test_the_installed_openblas_names_a_known_target_this_cpu_runs():
    import ctypes

    from stages.training.blas import _build_config

    status = blas_status()
    assert status["status"] == "loaded", status
    config = _build_config(ctypes.CDLL(status["detail"]))
    assert "DYNAMIC_ARCH" in config.split() or any(c in config.split() for c in CORE_FLAGS)
    assert missing_cpu_flags(config, cpu_flags()) == set()
