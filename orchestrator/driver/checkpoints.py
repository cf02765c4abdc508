"""The run's checkpoints on disk: the disk budget (`checkpoints.max_bytes`) and the blob GC.

The budget counts the distinct blobs of the checkpoints retention keeps (policies/retention.py;
the base model, stored once, is not counted) plus the new bytes of the incoming checkpoint. A
checkpoint that would exceed it is not written: the run pauses with the reason (Driver._pause), and
`rlvr resume RUN checkpoints.max_bytes=N` continues.

The GC deletes the blobs of pruned checkpoints, and the optimizer state of checkpoints retention
keeps for their weights only, that no run sharing the blob store still references (a branch
shares its parent's checkpoints: its log names them, or its `RunBranched` points at them). It
reads only the runs that may write to this blob store (orchestrator/driver/references.py). Every
ORPHAN_GRACE_S it also sweeps orphans: blobs no row of those runs names, directly or through a
tree (`sweep_orphans` says how a blob being written is kept safe).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from orchestrator.driver.references import ReferenceCache, References, references
from orchestrator.logging import get_logger
from policies.retention import staying_after_next
from store.blobs import BlobStore, sha256_file
from store.errors import StoreError
from store.log import EventLog
from store.projections import RunState
from store.text_files import NotUTF8Error, open_appending, read_utf8

log_ = get_logger("rlvr.checkpoints")
OPTIMIZER_FILE = "optimizer.safetensors"  # stages/training/checkpoint.py's name for it


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


def with_rollouts(log: EventLog, state: RunState, pruning: Any) -> Any:
    """`pruning` (a `CheckpointsPruned`) with each pruned checkpoint's rollout blobs: those of
    the steps trained from it, up to the next checkpoint saved (their seqs lie between the two
    `CheckpointSaved` rows). Old rollout text follows checkpoint retention: what no retained
    checkpoint could retrain goes. Reads only the rows of those spans."""
    saved = sorted(c.seq for c in (*state.checkpoints, *state.abandoned_checkpoints))
    entries = []
    for entry in pruning.pruned:
        later = [seq for seq in saved if seq > entry["seq"]]
        if not later or entry.get("rollouts"):
            entries.append(entry)
            continue
        rows = log.read(
            state.run_id, types=["RolloutsSampled"], from_seq=entry["seq"] + 1, to_seq=later[0]
        )
        rollouts = sorted({r.event.blob for r in rows if r.event.blob})
        entries.append({**entry, "rollouts": rollouts} if rollouts else entry)
    return pruning.model_copy(update={"pruned": entries})


def _optimizer_blobs(blobs: BlobStore, trees: Iterable[str]) -> set[str]:
    out = set()
    for tree in trees:
        with contextlib.suppress(StoreError):
            if digest := blobs.manifest(tree).get(OPTIMIZER_FILE):
                out.add(digest)
    return out


def collect_garbage(
    log: EventLog,
    blobs: BlobStore,
    *,
    orphans_older_than_s: float | None = None,
    cache: ReferenceCache | None = None,
) -> tuple[int, int]:
    """Delete the blobs of pruned checkpoints, and the optimizer state of checkpoints kept for
    their weights only, that no run of the store references (a blob shared with a live
    checkpoint, e.g. of a branch, stays). Returns (blobs deleted, bytes freed).
    `orphans_older_than_s`: also sweep orphans, blobs no row of any run names (directly or
    through a tree) and unwritten for that long (see `sweep_orphans`). `cache`: the runs' part
    as of the last GC, so that only the runs whose log moved since are read again."""
    sweep = orphans_older_than_s is not None
    refs = references(log, rollouts=sweep, cache=cache, blob_store=blobs.identity)
    keep = _tree_blobs(blobs, refs.live)
    weights = _tree_blobs(blobs, refs.weights_only)
    keep |= weights - _optimizer_blobs(blobs, refs.weights_only)
    doomed = (_tree_blobs(blobs, refs.pruned) | weights) - keep
    # A pruned checkpoint's rollouts go with it, unless a branch still needs that checkpoint.
    doomed |= {
        d for tree, ds in refs.rollouts_pruned.items() if tree not in refs.live for d in ds
    } - keep
    manifests = doomed & refs.pruned
    # Files before their manifest: a GC cut short leaves a manifest the next GC still follows.
    freed = blobs.remove(sorted(doomed - manifests)) + blobs.remove(sorted(manifests))
    count = len(doomed)
    if orphans_older_than_s is not None:
        swept, swept_bytes = sweep_orphans(blobs, refs, orphans_older_than_s, store_identity(log))
        count, freed = count + swept, freed + swept_bytes
    return count, freed


# An orphan is spared this long after its last write: the time a step may take between writing
# a blob and appending the row that names it (retries of an unavailable store included).
ORPHAN_GRACE_S = 6 * 3600


def sweep_orphans(
    blobs: BlobStore, refs: References, older_than_s: float, store: str
) -> tuple[int, int]:
    """Delete blobs that nothing in `refs` names and that were not (re)written in the last
    `older_than_s` seconds: rollout text of a step that never reached the log, files of a
    checkpoint whose manifest was never written. A step's blob is named by its row only after
    the write; the grace period covers that gap, and `BlobStore.remove_if_unwritten_for` the
    race with a writer. A tree some row names whose manifest cannot be read (it may come back
    from a backup) stops the sweep: its files cannot be told from orphans. So does a blob store
    that another event store's runs write to too (`claim`): their rows are not read here."""
    named = set(refs.blobs) | refs.pruned
    for tree in refs.live | refs.weights_only:
        try:
            named |= blobs.tree_blobs(tree)
        except StoreError as e:
            log_.warning("orphan sweep skipped: a referenced tree is unreadable", error=str(e))
            return 0, 0
    for tree in refs.pruned:  # what the pruned-checkpoint GC left (shared files) stays named
        with contextlib.suppress(StoreError):
            named |= blobs.tree_blobs(tree)
    since = _sweepable_since(blobs, store)
    if since is None:
        log_.warning("orphan sweep skipped: other event stores use this blob store too")
        return 0, 0
    count = freed = 0
    for digest in blobs.all_blobs():
        age = blobs.age_s(digest)
        if digest in named or age is None or time.time() - age < since:
            continue  # named, gone, or older than this store's claim (its writer is unknown)
        gone = blobs.remove_if_unwritten_for(digest, older_than_s)
        if gone is not None:
            count, freed = count + 1, freed + gone
    return count, freed


# The event stores whose drivers wrote to a blob store, one a line, and when the first claimed it.
_CLAIMS = "event-stores.txt"
_MAX_CLAIMS_BYTES = 64 << 20  # a line per event store


def store_identity(log: EventLog) -> str:
    """An event store's name in the claims file: a SQLite file's absolute path, else the URL
    without its credentials."""
    local = log.backend.local_file()
    if local is not None:
        return str(local.resolve())
    parts = urlsplit(log.url)
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def claim(blobs: BlobStore, log: EventLog) -> None:
    """Record that `log`'s runs write to `blobs` (every driver does, when it starts)."""
    path, me = blobs.root / _CLAIMS, store_identity(log)
    if me in _claim_lines(path):
        return
    # O_APPEND: claims of concurrent drivers never overwrite each other.
    with open_appending(path) as f:
        if f.tell() == 0:
            f.write(f"since {time.time()}\n")
        f.write(me + "\n")


def check_side_files(blobs: BlobStore) -> None:
    """The blob store's own files (its id, the claims) read as a driver will read them:
    `StoreError` naming one that is not a regular file, before a branch or a rewind is written."""
    blobs.identity  # noqa: B018 (read for its check)
    _claim_lines(blobs.root / _CLAIMS)


def _claim_lines(path: Path) -> list[str]:
    """The claims file's lines ([] when there is none); `StoreError` naming it when it is not a
    regular file (a FIFO there would block every branch and resume) or not text."""
    try:
        return read_utf8(path, _MAX_CLAIMS_BYTES).splitlines()
    except FileNotFoundError:
        return []
    except (OSError, NotUTF8Error) as e:
        raise StoreError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from e


def _sweepable_since(blobs: BlobStore, store: str) -> float | None:
    """When `store` claimed `blobs`, if it is the only store that did; else None. Blobs from
    before the first claim (older versions, other stores) are never swept."""
    lines = _claim_lines(blobs.root / _CLAIMS)
    if not lines:
        return None
    try:
        stamps = [float(x.split()[1]) for x in lines if x.startswith("since ")]
    except (IndexError, ValueError):  # a claims file someone edited: sweep nothing
        return None
    stores = {x for x in lines if x and not x.startswith("since ")}
    return min(stamps) if stamps and stores == {store} else None
