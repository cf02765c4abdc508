"""The run's checkpoints on disk: the disk budget (`checkpoints.max_bytes`) and the blob GC.

The budget counts the distinct blobs of the checkpoints retention keeps (policies/retention.py;
the base model, stored once, is not counted) plus the new bytes of the incoming checkpoint. A
checkpoint that would exceed it is not written: the run pauses with the reason (Driver._pause), and
`rlvr resume RUN checkpoints.max_bytes=N` continues.

The GC deletes the blobs of pruned checkpoints that no run of the store still references (a branch
shares its parent's checkpoints; its log names them). Only checkpoint blobs are candidates: other
blobs (rollout text) are never touched.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from policies.retention import staying_after_next
from store.blobs import BlobStore, sha256_file
from store.errors import StoreError
from store.log import EventLog
from store.projections import RunState


def over_budget(state: RunState, config: Any, blobs: BlobStore, folder: Path) -> str | None:
    """Why writing the checkpoint in `folder` would exceed `checkpoints.max_bytes`, or None.
    Counts what would be retained once it is saved and pruning has run, plus its new bytes."""
    limit = config.checkpoints.max_bytes
    if limit is None:
        return None
    staying = staying_after_next(state, config)
    held = _tree_blobs(blobs, (c.digest for c in staying))
    now = sum(blobs.size(d) for d in held)
    incoming = 0
    for path in folder.rglob("*"):
        if path.is_file() and sha256_file(path) not in held:
            incoming += path.stat().st_size
    if now + incoming <= limit:
        return None
    step = json.loads((folder / "state.json").read_text()).get("step", "next")
    return (
        f"checkpoint budget: the step {step} checkpoint would bring the run's checkpoints "
        f"to {now + incoming:,} bytes (retained {now:,} + new {incoming:,}), over "
        f"checkpoints.max_bytes = {limit:,}; resume with `rlvr resume {state.run_id} "
        "checkpoints.max_bytes=N` (a larger N) or a smaller checkpoints.keep_last"
    )


def _tree_blobs(blobs: BlobStore, digests: Iterable[str]) -> set[str]:
    held: set[str] = set()
    for digest in digests:
        try:
            held |= blobs.tree_blobs(digest)
        except StoreError:
            continue  # a corrupt or missing manifest holds nothing we could count
    return held


def referenced_trees(log: EventLog) -> tuple[set[str], set[str]]:
    """(trees some run of the store still references, trees some run pruned). Reads only the
    rows that name trees; abandoned (rewound) spans count as referenced, to be safe."""
    live: set[str] = set()
    pruned: set[str] = set()
    for run in log.runs():
        saved: set[str] = set()
        gone: set[str] = set()
        for row in log.read(
            run.run_id,
            types=["CheckpointSaved", "CheckpointsPruned", "BaselineRecorded", "RunCompleted"],
        ):
            payload = row.event
            if row.type == "CheckpointSaved":
                saved.add(payload.checkpoint)
            elif row.type == "CheckpointsPruned":
                gone |= {p["checkpoint"] for p in payload.pruned}
            elif row.type == "BaselineRecorded" and payload.checkpoint:
                live.add(payload.checkpoint)
            elif row.type == "RunCompleted" and payload.final_checkpoint:
                live.add(payload.final_checkpoint)
        live |= saved - gone
        pruned |= gone
    return live, pruned - live


def collect_garbage(log: EventLog, blobs: BlobStore) -> tuple[int, int]:
    """Delete the blobs of pruned checkpoints that no run of the store references (a blob shared
    with a live checkpoint, e.g. of a branch, stays). Returns (blobs deleted, bytes freed).
    Only checkpoint blobs are candidates: other blobs (rollout text) are never touched."""
    live, pruned = referenced_trees(log)
    keep = _tree_blobs(blobs, live)
    doomed = _tree_blobs(blobs, pruned) - keep
    manifests = doomed & pruned
    # Files before their manifest: a GC cut short leaves a manifest the next GC still follows.
    freed = blobs.remove(sorted(doomed - manifests)) + blobs.remove(sorted(manifests))
    return len(doomed), freed
