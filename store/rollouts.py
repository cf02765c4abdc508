"""A step's rollouts as the log keeps them: one compressed blob a step, named by its
`RolloutsSampled` and `VerdictsRecorded` rows (the rows keep only what policies, gates and `why`
read). The body is JSON:

    {"format": 2,
     "samples": [{"task_id", "prompt", "completions": [...], "rewards": [...],
                  "advantages": [...], "lengths": [...], "truncated": [...]}, ...],   # groups
     "verdicts": [{"task_id", "passed", "status", "reason"}, ...]}   # flat, group by group

deflated (zlib). Blobs written before format 2 are plain JSON with fewer fields and reasons cut
to 80 characters; `decode` reads both."""

from __future__ import annotations

import zlib
from typing import Any

import orjson

from store.errors import StoreError

FORMAT = 2
# zlib level 6: a 32x8 step of ~1,000-token responses deflates in tens of milliseconds.
_LEVEL = 6
# What a blob may inflate to: 1,024 rollouts of 32,000 tokens are ~130 MB of JSON. A blob named by
# a forged row (no key) that deflates 1 GB of zeros into 1 MB is refused at this size, not read
# into memory whole by `rescore` or the console's step page (red team round 19, log).
MAX_INFLATED = 512 * 2**20


def encode(samples: list[dict[str, Any]], verdicts: list[dict[str, Any]]) -> bytes:
    """The blob bytes of a step's logged groups and their verdicts."""
    body = {"format": FORMAT, "samples": samples, "verdicts": verdicts}
    return zlib.compress(orjson.dumps(body), _LEVEL)


def decode(data: bytes) -> dict[str, Any]:
    """A rollout blob's body, whichever format wrote it: `samples` and `verdicts` always."""
    try:
        raw = data if data[:1] == b"{" else _inflated(data)
        body = orjson.loads(raw)
    except (zlib.error, orjson.JSONDecodeError) as e:
        raise StoreError(f"not a rollout blob: {e}") from e
    if not isinstance(body, dict) or "samples" not in body or "verdicts" not in body:
        raise StoreError("not a rollout blob: no samples and verdicts")
    return body


def _inflated(data: bytes) -> bytes:
    inflater = zlib.decompressobj()
    raw = inflater.decompress(data, MAX_INFLATED)
    if inflater.unconsumed_tail:
        raise StoreError(f"not a rollout blob: it inflates past {MAX_INFLATED // 2**20} MiB")
    if not inflater.eof:  # `zlib.decompress` refused a stream cut short; this object does not
        raise StoreError("not a rollout blob: its deflated stream is cut short")
    return raw
