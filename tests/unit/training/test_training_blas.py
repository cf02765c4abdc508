"""OpenBLAS under mlx[cpu]: the fast path is taken on Linux and agrees with the reference BLAS."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stages.training.blas import DISABLE_ENV, _elf_soname_offset, blas_status

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


def test_soname_reader_rejects_a_non_elf_file(tmp_path):
    with pytest.raises(ValueError, match="ELF64"):
        _elf_soname_offset(b"not an elf at all" * 4)
