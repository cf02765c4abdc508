"""Every rollout in the log (issue 31 item 1): the real RL loop logs each step's every rollout
(prompt id, completion, verdict with its full reason, reward, advantage, length, truncation) in
one compressed blob that its rows name; `pipeline.sample_rollouts = N` keeps the first N groups."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from store.blobs import BlobStore
from store.rollouts import decode
from tests.unit.stages.test_stage_verdict_corruption import _run

# Half the verdicts (of an untrained model: all failing) flipped to passed: groups vary.
HALF = "{kind='verdict_corruption', step=0, mode='flip', share=0.5, silent=true}"


def test_each_step_logs_every_rollout_with_its_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, run_id = _run(tmp_path, monkeypatch, HALF)
    blobs = BlobStore(tmp_path / "blobs")
    rows = [r.event for r in log.read(run_id, types=["RolloutsSampled", "VerdictsRecorded"])]
    sampled = [e for e in rows if type(e).__name__ == "RolloutsSampled"]
    assert [e.step for e in sampled] == [0, 1, 2, 3]
    for event in sampled:
        body = decode(blobs.get_bytes(event.blob))
        groups, verdicts = body["samples"], body["verdicts"]
        assert len(groups) == 4 and len(verdicts) == 16
        assert [g["rewards"] for g in groups] == event.rewards
        for g, group in enumerate(groups):
            assert len(group["completions"]) == len(group["lengths"]) == 4
            assert all(0 < n <= 64 for n in group["lengths"])  # quickstart max_tokens
            assert all(isinstance(t, bool) for t in group["truncated"])
            rewards, adv = np.array(group["rewards"]), np.array(group["advantages"])
            assert abs(adv.sum()) < 1e-4  # group-relative
            if np.ptp(rewards) > 0:
                assert (adv[rewards == 1] > 0).all() and (adv[rewards == 0] < 0).all()
            for j in range(4):
                verdict = verdicts[g * 4 + j]
                assert verdict["task_id"] == group["task_id"]
                assert verdict["passed"] == (group["rewards"][j] == 1.0)
                assert verdict["reason"]  # the verifier's own words, uncut
    assert any(np.ptp(r) > 0 for e in sampled for r in e.rewards)


def test_a_coverage_setting_keeps_only_the_first_groups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, run_id = _run(tmp_path, monkeypatch, HALF, "pipeline.sample_rollouts=1")
    blobs = BlobStore(tmp_path / "blobs")
    for row in log.read(run_id, types=["RolloutsSampled"]):
        body = decode(blobs.get_bytes(row.event.blob))
        assert len(body["samples"]) == 1 and len(body["verdicts"]) == 4
        assert len(row.event.rewards) == 4  # every reward stays on the row
