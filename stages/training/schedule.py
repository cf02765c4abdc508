"""Learning-rate schedule (linear warmup, then constant, cosine or linear decay to a floor) and the\nderivation of every random seed from (seed, stage, step, attempt)."""

from __future__ import annotations

import hashlib
import math


def lr_multiplier(
    step: int, schedule: str, warmup_steps: int, total_steps: int, min_lr_ratio: float
) -> float:
    """Factor on the base LR at optimizer step `step` (0-based)."""
    if schedule not in ("constant", "cosine", "linear"):
        raise ValueError(f"unknown lr_schedule {schedule!r}: use constant, cosine or linear")
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    if schedule == "constant":
        return 1.0
    span = max(1, total_steps - warmup_steps)
    progress = min(1.0, (step - warmup_steps) / span)
    cosine = 0.5 * (1.0 + math.cos(math.pi * progress))
    shape = cosine if schedule == "cosine" else 1.0 - progress
    return min_lr_ratio + (1.0 - min_lr_ratio) * shape


def derive_seed(*parts: object) -> int:
    """A 63-bit seed that depends only on `parts` (stable across processes and machines)."""
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1
