"""The GPU benchmark's driver (tests/benchmarks/bench_gpu.py): a TRL path that fails or runs
past its timeout is reported and the run goes on; the ratio's anchor is the fastest TRL path
that completed."""

import time

from tests.benchmarks import bench_gpu


def test_the_anchor_is_the_fastest_trl_path_that_completed():
    results = {
        "ours": {"step_s": 1.0},
        "trl_plain": {"step_s": 7.0},
        "trl_cb": {"rc": bench_gpu.TIMED_OUT, "error": "side trl_cb timed out after 240 s"},
        "trl_static": {"step_s": 6.5},
    }
    assert bench_gpu.anchor(results) == ("trl_static", {"step_s": 6.5})
    assert bench_gpu.anchor({"ours": {"step_s": 1.0}, "trl_plain": {"rc": 1}}) == (None, {})


def test_a_side_past_its_timeout_is_killed_and_reported_as_timed_out(tmp_path):
    script = tmp_path / "slow_side.py"
    script.write_text("import time\nprint('started', flush=True)\ntime.sleep(60)\n")
    log = (tmp_path / "log").open("w")
    start = time.perf_counter()
    rc = bench_gpu.run_side("slow_side", [], {"PYTHONPATH": str(tmp_path)}, log, timeout_s=2)
    assert rc == bench_gpu.TIMED_OUT and time.perf_counter() - start < 30
    assert "started" in (tmp_path / "log").read_text()
    assert bench_gpu.failure(rc, 2, "side trl_cb") == {
        "rc": bench_gpu.TIMED_OUT,
        "error": "side trl_cb timed out after 2 s",
    }
    failing = tmp_path / "failing_side.py"
    failing.write_text("raise SystemExit(3)\n")
    rc = bench_gpu.run_side("failing_side", [], {"PYTHONPATH": str(tmp_path)}, None, 30)
    assert (
        rc == 3 and bench_gpu.failure(rc, 30, "side x")["error"] == "side x failed (rc 3); see log"
    )
