"""A step's rows stay small at real scale (issue 19) while every rollout is logged (issue 31):
32 groups x 8 responses of ~1,000 tokens with the default `pipeline.sample_rollouts` ("all"),
every rollout's text, verdict and figures in one compressed blob, every reward on the row."""

from __future__ import annotations

import random
import zlib
from pathlib import Path

import orjson
import pytest

from stages.config import PipelineConfig
from stages.rl.logged_step import logged_groups, rollout_events
from store.blobs import BlobStore
from store.errors import StoreError
from store.log import canonical_json
from store.rollouts import decode


def _step(rng: random.Random, groups: int) -> tuple[list, list, list]:
    rewards = [[float(rng.random() < 0.5) for _ in range(8)] for _ in range(32)]
    # model-like text: a few hundred distinct words, as real responses repeat their vocabulary
    words = [f"w{i}" for i in range(300)] + ["=", "+", "so", "the", "answer", "is"]
    samples = [
        {"task_id": f"t{g}", "prompt": "1+1=",
         "completions": [" ".join(rng.choices(words, k=1000)) for _ in range(8)],
         "rewards": rewards[g], "advantages": [0.5] * 8, "lengths": [1000] * 8,
         "truncated": [False] * 8}
        for g in range(groups)
    ]  # fmt: skip
    verdicts = [{"task_id": f"t{j // 8}", "passed": True, "status": "ok",
                 "reason": "numeric match: " + "x" * 200} for j in range(groups * 8)]  # fmt: skip
    return rewards, samples, verdicts


def test_every_group_is_logged_by_default() -> None:
    assert logged_groups(PipelineConfig().sample_rollouts) is None
    assert logged_groups(PipelineConfig(sample_rollouts=4).sample_rollouts) == 4
    with pytest.raises(ValueError, match="sample_rollouts"):
        PipelineConfig(sample_rollouts=-1)


def test_a_real_scale_step_logs_under_10_kb_of_rows_and_every_rollout_in_a_deflated_blob(
    tmp_path: Path,
) -> None:
    rewards, samples, verdicts = _step(random.Random(0), 32)
    blobs = BlobStore(tmp_path)
    events = rollout_events(
        blobs, step=1, attempt=0, group_size=8, verifier={"kind": "math"}, rewards_GN=rewards,
        samples=samples, verdicts=verdicts, n_passed=100, n_errors=0,
    )  # fmt: skip
    row_bytes = sum(len(canonical_json(vars(e))) for e in events)
    assert row_bytes < 10_000 - 2_000  # room for the step's metrics row
    assert events[0].rewards == rewards
    stored = blobs.get_bytes(events[0].blob)
    plain = len(orjson.dumps({"samples": samples, "verdicts": verdicts}))
    assert len(stored) < plain / 2  # deflated
    body = decode(stored)
    assert body["samples"] == samples and body["verdicts"] == verdicts
    assert len(body["verdicts"]) == 32 * 8 and len(body["verdicts"][0]["reason"]) > 80


def test_a_blob_of_the_older_plain_json_format_still_reads() -> None:
    old = orjson.dumps({"samples": [{"task_id": "t"}], "verdicts": []})
    assert decode(old)["samples"] == [{"task_id": "t"}]
    with pytest.raises(StoreError, match="not a rollout blob"):
        decode(zlib.compress(b"[1, 2]"))
