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


def encode(samples: list[dict[str, Any]], verdicts: list[dict[str, Any]]) -> bytes:
    """The blob bytes of a step's logged groups and their verdicts."""
    body = {"format": FORMAT, "samples": samples, "verdicts": verdicts}
    return zlib.compress(orjson.dumps(body), _LEVEL)


def decode(data: bytes) -> dict[str, Any]:
    """A rollout blob's body, whichever format wrote it: `samples` and `verdicts` always."""
    try:
        raw = data if data[:1] == b"{" else zlib.decompress(data)
        body = orjson.loads(raw)
    except (zlib.error, orjson.JSONDecodeError) as e:
        raise StoreError(f"not a rollout blob: {e}") from e
    if not isinstance(body, dict) or "samples" not in body or "verdicts" not in body:
        raise StoreError("not a rollout blob: no samples and verdicts")
    return body
