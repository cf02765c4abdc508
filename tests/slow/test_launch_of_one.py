"""One code path for a step: `rlvr run` under `mlx.launch -n 1` logs what a plain `rlvr run` logs
(the same event types in the same order, every non-timing field equal)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.slow.runs import QUICKSTART, SHORT, events, only_run, rlvr

pytestmark = pytest.mark.slow
LAUNCH = Path(sys.executable).with_name("mlx.launch")
# SHORT, shorter still: a few steps with a checkpoint and an eval in each stage are enough.
TINY = [*SHORT, "sft.steps=200", "pipeline.rl_steps=4", "pipeline.round_steps=2", "save_every=2",
        "eval_every=2", "lease_ttl_s=5"]  # fmt: skip
# Wall-clock figures, and what names this process or this moment, differ between any two runs.
TIMING_SUFFIXES = ("_s", "per_s")
VOLATILE = {"owner", "expires_at", "seconds"}  # the lease; SFTCompleted's wall-clock seconds


def _comparable(value: object) -> object:
    if isinstance(value, dict):
        return {
            k: _comparable(v) for k, v in value.items()
            if k not in VOLATILE and not k.endswith(TIMING_SUFFIXES)
        }  # fmt: skip
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    return value


def _log(store: Path) -> list[tuple[str, object]]:
    return [
        (row.type, _comparable(json.loads(row.payload))) for row in events(store, only_run(store))
    ]


def test_a_launch_of_one_rank_logs_what_a_plain_run_logs(tmp_path: Path) -> None:
    plain_dir, launched_dir = tmp_path / "plain", tmp_path / "launched"
    plain_dir.mkdir()
    launched_dir.mkdir()
    plain = rlvr("run", str(QUICKSTART), *TINY, cwd=plain_dir, timeout=900)
    assert plain.returncode == 0, plain.stderr[-4000:]
    launched = rlvr(
        "run", str(QUICKSTART), *TINY, cwd=launched_dir, timeout=900,
        launcher=[str(LAUNCH), "--backend", "ring", "-n", "1", "--"],
    )  # fmt: skip
    assert launched.returncode == 0, launched.stderr[-4000:]

    ours, theirs = _log(launched_dir / "runs" / "events.db"), _log(plain_dir / "runs" / "events.db")
    assert [t for t, _ in ours] == [t for t, _ in theirs]
    assert "MetricsRecorded" in {t for t, _ in ours} and "CheckpointSaved" in {t for t, _ in ours}
    differing = [(seq, kind, mine, reference)
                 for seq, ((kind, mine), (_, reference)) in enumerate(zip(ours, theirs, strict=True), 1)
                 if mine != reference]  # fmt: skip
    assert not differing, differing[:3]
