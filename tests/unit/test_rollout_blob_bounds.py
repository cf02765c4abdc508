"""A rollout blob is inflated up to a bound (`store.rollouts.MAX_INFLATED`): one named by a forged
row that deflates a gigabyte of zeros into a megabyte is refused as not a rollout blob, never read
into memory whole (red team round 19, log); a blob cut short is refused as before."""

from __future__ import annotations

import zlib

import pytest

from store import rollouts
from store.errors import StoreError


def test_a_blob_as_written_reads_back() -> None:
    samples = [{"task_id": "t", "prompt": "p", "completions": ["a" * 5000]}]
    verdicts = [{"task_id": "t", "passed": True, "status": "ok", "reason": "r"}]
    body = rollouts.decode(rollouts.encode(samples, verdicts))
    assert body["samples"] == samples and body["verdicts"] == verdicts


def test_a_blob_that_inflates_past_the_bound_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rollouts, "MAX_INFLATED", 2**20)
    bomb = zlib.compress(b'{"samples": [], "verdicts": [], "x": "' + b"0" * (2**21) + b'"}', 9)
    assert len(bomb) < 2**14
    with pytest.raises(StoreError, match="inflates past 1 MiB"):
        rollouts.decode(bomb)


def test_a_blob_cut_short_is_refused() -> None:
    blob = rollouts.encode([{"task_id": "t", "completions": ["x" * 1000]}], [])
    with pytest.raises(StoreError, match="not a rollout blob"):
        rollouts.decode(blob[: len(blob) // 2])
