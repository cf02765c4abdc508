"""A step's rows stay small at real scale (issue 19): 32 groups x 8 responses of ~1,000 tokens
with the default `pipeline.sample_rollouts`, the text in a blob and every reward on the row."""

from __future__ import annotations

import random
from pathlib import Path

from stages.config import PipelineConfig
from stages.rl.logged_step import rollout_events
from store.blobs import BlobStore
from store.log import canonical_json


def test_a_real_scale_step_logs_under_10_kb_and_keeps_every_reward(tmp_path: Path) -> None:
    rng = random.Random(0)
    keep = PipelineConfig().sample_rollouts
    rewards = [[float(rng.random() < 0.5) for _ in range(8)] for _ in range(32)]
    text = " ".join(f"w{rng.randrange(5000)}" for _ in range(1000))
    samples = [{"task_id": f"t{g}", "prompt": "1+1=", "completions": [text] * 8,
                "rewards": rewards[g]} for g in range(keep)]  # fmt: skip
    verdicts = [{"task_id": "t", "passed": True, "status": "ok", "reason": "x" * 80}] * (keep * 8)
    blobs = BlobStore(tmp_path)
    events = rollout_events(
        blobs, step=1, attempt=0, group_size=8, verifier="math", rewards_GN=rewards,
        samples=samples, verdicts=verdicts, n_passed=100, n_errors=0,
    )  # fmt: skip
    row_bytes = sum(len(canonical_json(vars(e))) for e in events)
    assert row_bytes < 10_000 - 2_000  # room for the step's metrics row
    assert events[0].rewards == rewards
    assert len(blobs.get_bytes(events[0].blob)) > 100_000  # the text went to the blob
