"""Data-parallel GRPO on `mlx.core.distributed` (launched by `mlx.launch`): who this rank is, how a
count of groups is apportioned over ranks, and the few collectives the loop needs.

Every collective goes through `World`: it is evaluated at once under a deadline, and a lost peer
(the ring backend raises "connection to a peer was lost") becomes `RankLost`, a `StageInterrupted`,
so the driver pauses the run with the reason instead of retrying the step. A peer that hangs trips
the deadline; `on_timeout` (set by the orchestrator) records the pause and ends the process, since
the blocked collective cannot be interrupted from Python. How a step's groups are split over the
ranks, and the state of that split, is stages/rl/split.py's.

Objects travel as JSON bytes over `all_sum` (the other ranks contribute zeros): mlx has no
broadcast. A payload goes in pieces of at most `World.chunk_bytes` (64 MiB), its length as two
30-bit halves, so no single message comes near the 2 GiB that a 32-bit length allows and a payload
of any size goes through (a follower starting on a long run is sent a RunState, not the log, but
a shared read of the log can still be large).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from stages.errors import StageInterrupted
from store.text_files import read_utf8

CHUNK_BYTES = 64 << 20  # the most one collective carries; mlx counts a message's bytes in 32 bits
_HALF = 1 << 30  # a length travels as two int32 halves (high, low), so any size fits


class DistributedConfig(BaseModel):
    """`[distributed]`: data-parallel RL across the ranks `mlx.launch` starts."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(
        False,
        description="Run RL steps through the distributed path (split-invariant sampling, averaged "
        "gradients). Set automatically when `rlvr run` starts under mlx.launch with several ranks; "
        "kept on resume so a run resumed on fewer ranks samples the same rollouts.",
    )
    split: Literal["auto"] | list[float] = Field(
        "auto",
        description="auto: split each step's groups in proportion to each rank's measured "
        "throughput; or one weight per rank (e.g. [3, 1]) for a fixed manual split.",
    )
    calibration_groups: int = Field(
        2,
        ge=1,
        le=65_536,
        description="Groups each rank samples and trains on to measure its throughput.",
    )
    drift_tolerance: float = Field(
        0.3,
        gt=0,
        le=100.0,
        description="Re-split when a rank's measured groups/s differs from its calibrated rate by "
        "more than this fraction...",
    )
    drift_patience: int = Field(
        3, ge=1, le=10_000, description="...averaged over this many consecutive steps."
    )
    collective_timeout_s: float = Field(
        600.0,
        gt=0,
        le=86_400.0,
        description="A collective that does not complete within this many seconds means a rank "
        "hangs: the run is paused with the reason and the process exits.",
    )
    throttle: dict[str, Annotated[float, Field(gt=0, le=1000)]] = Field(
        default_factory=dict,
        description='Benchmarks and tests: slow rank R\'s work down by factor F ({"1": 3.0}).',
    )


class RankLost(StageInterrupted):
    """A peer died mid-collective: the step is abandoned (nothing of it was appended)."""


def apportion(total: int, weights: Sequence[float]) -> list[int]:
    """`total` items split in proportion to `weights` (largest remainder), at least one each."""
    if total < len(weights):
        raise ValueError(f"cannot split {total} groups over {len(weights)} ranks: need >= 1 each")
    if not weights or any(w <= 0 for w in weights):
        raise ValueError(f"split weights must be positive, got {list(weights)}")
    exact = [total * w / sum(weights) for w in weights]
    counts = [int(x) for x in exact]
    by_remainder = sorted(range(len(weights)), key=lambda r: (counts[r] - exact[r], r))
    for r in by_remainder[: total - sum(counts)]:
        counts[r] += 1
    for r in range(len(counts)):  # a rank rounded down to nothing takes one from the largest
        if counts[r] == 0:
            counts[counts.index(max(counts))] -= 1
            counts[r] = 1
    return counts


def offsets(counts: Sequence[int]) -> list[int]:
    """Where each rank's contiguous slice of the step's prompt list starts."""
    starts, at = [], 0
    for c in counts:
        starts.append(at)
        at += c
    return starts


class World:
    """This process's place in the `mlx.distributed` group (size 1 when not launched), and the
    collectives the RL step needs. Each goes through `_guarded`: evaluated at once under the
    deadline, a lost peer raised as `RankLost`. How a step's groups are split over the ranks is
    stages/rl/split.py's."""

    def __init__(self, group: Any, config: DistributedConfig) -> None:
        self.group = group
        self.rank: int = group.rank() if group is not None else 0
        self.size: int = group.size() if group is not None else 1
        self.config = config  # the deadline of a collective (collective_timeout_s)
        self.on_timeout: Callable[[str], None] = lambda reason: None
        self.broken = False  # a collective failed: no further ones are attempted
        self.comm_s = 0.0  # seconds spent in collectives (a rank waiting for a slower one)
        self.chunk_bytes = CHUNK_BYTES
        self.sent_bytes = 0  # payload bytes this rank has put into share/gather (benchmarks)

    @property
    def leader(self) -> bool:
        return self.rank == 0

    # --- collectives ------------------------------------------------------------------------

    @contextmanager
    def _deadline(self, what: str, timeout_s: float | None) -> Iterator[None]:
        if timeout_s is None:
            yield
            return
        reason = (
            f"rank {self.rank}: collective {what!r} did not complete within {timeout_s:g} s "
            "(a rank hangs or is too slow; distributed.collective_timeout_s)"
        )
        timer = threading.Timer(timeout_s, self.on_timeout, args=(reason,))
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()

    def _guarded(self, what: str, timeout_s: float | None, collective: Callable[[], Any]) -> Any:
        """`collective()` evaluated now, under the deadline (`None`: none; -1: the config's); a
        lost peer raises `RankLost`, and no later collective is attempted."""
        import mlx.core as mx

        if self.broken:
            raise RankLost(f"rank {self.rank}: an earlier collective failed; not attempting {what}")
        timeout = self.config.collective_timeout_s if timeout_s == -1.0 else timeout_s
        start = time.perf_counter()
        try:
            with self._deadline(what, timeout):
                out = collective()
                mx.eval(out)
        except RuntimeError as e:
            self.broken = True
            raise RankLost(f"rank {self.rank} lost a peer during {what}: {e}") from e
        finally:
            self.comm_s += time.perf_counter() - start
        return out

    def _sum(self, x: Any, what: str, timeout_s: float | None = -1.0) -> Any:
        """`all_sum` over the ranks."""
        import mlx.core as mx

        if self.size == 1:
            return x
        return self._guarded(what, timeout_s, lambda: mx.distributed.all_sum(x, group=self.group))

    def sum_tree(self, tree: Any, weight: float, what: str = "gradients") -> Any:
        """The reducer of `train_step`: the sum over ranks of `weight * tree`, evaluated now; for
        one process `weight * tree` itself, and `tree` untouched at weight 1 (as mlx-lm's
        `average_gradients` is a no-op there)."""
        from mlx.nn.utils import average_gradients
        from mlx.utils import tree_map

        if self.size == 1:
            return tree_map(lambda x: x * weight, tree) if weight != 1.0 else tree
        scaled = tree_map(lambda x: x * (weight * self.size), tree)
        # mlx's own bucketed all-reduce
        return self._guarded(what, -1.0, lambda: average_gradients(scaled, group=self.group))

    def gather_json(self, obj: Any, what: str, timeout_s: float | None = -1.0) -> list[Any]:
        """Every rank's `obj`, in rank order, on every rank."""
        data = json.dumps(obj, separators=(",", ":")).encode()
        if self.size == 1:
            return [json.loads(data)]
        sizes = self._lengths(len(data), f"{what} (sizes)", timeout_s)
        bounds = [0]
        for n in sizes:
            bounds.append(bounds[-1] + n)
        joined = self._pieces(data, bounds[self.rank], bounds[-1], what, timeout_s, keep=True)
        return [json.loads(joined[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]

    def share_json(self, obj: Any, what: str, timeout_s: float | None = -1.0) -> Any:
        """Rank 0's `obj` on every rank (what the others pass is ignored)."""
        data = json.dumps(obj if self.leader else None, separators=(",", ":")).encode()
        if self.size == 1:
            return json.loads(data)
        mine = data if self.leader else b""
        total = self._lengths(len(mine), f"{what} (size)", timeout_s)[0]
        received = self._pieces(mine, 0, total, what, timeout_s, keep=not self.leader)
        return json.loads(data if self.leader else received)

    def _lengths(self, mine: int, what: str, timeout_s: float | None) -> list[int]:
        """Every rank's byte count; each travels as two int32 halves (no 2 GiB ceiling)."""
        import mlx.core as mx
        import numpy as np

        halves = np.zeros(2 * self.size, dtype=np.int32)
        halves[2 * self.rank : 2 * self.rank + 2] = divmod(mine, _HALF)
        summed = np.array(self._sum(mx.array(halves), what, timeout_s)).astype(np.int64)
        return [int(hi) * _HALF + int(lo) for hi, lo in summed.reshape(self.size, 2)]

    def _pieces(
        self, mine: bytes, at: int, total: int, what: str, timeout_s: float | None, keep: bool
    ) -> bytearray:
        """The `total`-byte buffer in which this rank holds `mine` at offset `at` (the others
        zeros), summed over ranks one piece of at most `chunk_bytes` at a time. `keep`: put the
        pieces together (a rank that only sends skips the copy)."""
        import mlx.core as mx
        import numpy as np

        out = bytearray(total if keep else 0)
        for lo in range(0, total, self.chunk_bytes):
            hi = min(lo + self.chunk_bytes, total)
            piece = np.zeros(hi - lo, dtype=np.uint8)
            a, b = max(lo, at), min(hi, at + len(mine))
            if a < b:
                piece[a - lo : b - lo] = np.frombuffer(mine, np.uint8, b - a, a - at)
            summed = self._sum(mx.array(piece), f"{what} (bytes {lo}..{hi} of {total})", timeout_s)
            if keep:
                out[lo:hi] = memoryview(np.array(summed))
        self.sent_bytes += len(mine)
        return out

    def from_leader(self, compute: Callable[[], Any], what: str) -> Any:
        """Rank 0 computes (a checkpoint write, an eval), every rank gets the JSON result."""
        return self.share_json(compute() if self.leader else None, what)


def init_world(config: DistributedConfig) -> World:
    """Join the group `mlx.launch` set up (ring, MPI, NCCL); a group of one when not launched."""
    import os

    import mlx.core as mx

    # `mlx.launch -n 1` writes an empty ring host file, which `init()` cannot parse: a world of one.
    if os.environ.get("MLX_HOSTFILE") is not None and _blank(os.environ["MLX_HOSTFILE"]):
        return World(None, config)
    group = mx.distributed.init() if mx.distributed.is_available() else None
    return World(group, config)


def _blank(path: str) -> bool:
    try:
        return not read_utf8(Path(path), 1 << 20).strip()
    except (OSError, ValueError):
        return False  # not ours to judge: init() reports what is wrong with it
