"""What the runs sharing a blob store name in it, for the blob GC (orchestrator/driver/checkpoints.py).

Blobs are content-addressed, so runs that share no lineage still share blobs: every run from the
same base model holds the same reference weights, and a deterministic re-run writes the very
checkpoints of the first. No run writing to the blob store can be left out of the GC's reading,
then; runs that write elsewhere are (store/blob_users.py: each run records its blob store; one
with no record, from before, is read by every GC), with their ancestors back in (a branch names
its parent's checkpoints). A tampered run of another blob store cannot stop this one's GC; a
tampered run sharing it stops it, deleting nothing. A run's contribution depends only on its
rows, so a `ReferenceCache` keeps each run's as of its last seq and a pruning reads again only
the runs whose log moved since the last one (its own, and those other drivers are writing), and
of those only the rows after the seq it knew (the whole run when a rewind came since): one query
for the runs' last seqs, not every run's rows. The orphan sweep (every ORPHAN_GRACE_S) reads
every sharing run's rollout blobs too and uses no cache.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from store import blob_users
from store.errors import StoreError
from store.log import EventLog
from store.rewinds import Rewinds


@dataclass
class References:
    """What the runs of a store name: trees (checkpoints, base models) kept whole, trees kept
    without their optimizer state, trees pruned, and every other blob a row names (rollouts)."""

    live: set[str] = field(default_factory=set)
    weights_only: set[str] = field(default_factory=set)
    pruned: set[str] = field(default_factory=set)
    blobs: set[str] = field(default_factory=set)
    # pruned checkpoint -> the rollout blobs of the steps trained from it (they go with it)
    rollouts_pruned: dict[str, set[str]] = field(default_factory=dict)


@dataclass
class RunReferences:
    """One run's part, read from its history (a branch's includes its ancestors' rows up to the
    cut): each tree's status in log order, the trees it names whatever a rewind did (base model,
    final checkpoint), the checkpoints it saved with their seqs, and where it was branched from."""

    last_seq: int
    status: dict[str, str] = field(default_factory=dict)  # tree -> live | weights | pruned
    always_live: set[str] = field(default_factory=set)
    saved: list[tuple[int, str]] = field(default_factory=list)
    branched_from: tuple[str, int] | None = None
    blobs: set[str] = field(default_factory=set)  # rollout blobs, when asked for
    rollouts_pruned: dict[str, set[str]] = field(default_factory=dict)  # with their checkpoint


_TREE_ROWS = ["CheckpointSaved", "CheckpointsPruned", "BaselineRecorded", "RunCompleted"]
_ROLLOUT_ROWS = ["RolloutsSampled", "VerdictsRecorded"]


def read_run(
    log: EventLog,
    run_id: str,
    last_seq: int,
    *,
    rollouts: bool,
    since: RunReferences | None = None,
) -> RunReferences:
    """Read only the rows that name blobs. A checkpoint is live for a run when a row the run
    still counts saved it and no later counted row pruned it: one a rewind (`resume --from`)
    abandoned is not (retention prunes it), while the base model and a final checkpoint count
    wherever they appear. `since`: the run's references as of an earlier seq; when no rewind
    came after it, only the rows after it are read (a read walks every row it spans)."""
    out, from_seq = RunReferences(last_seq), 1
    grown = since is not None and not rollouts and since.last_seq < last_seq
    if grown and (log.last_of(run_id, ["RunRewound"]) or 0) <= since.last_seq:
        out, from_seq = _copy(since, last_seq), since.last_seq + 1
    with log.walking_once():  # two reads of the run: its rows are walked by the first
        rewinds = Rewinds.of(log.read(run_id, from_seq=from_seq, types=["RunRewound"]))
        types = [*_TREE_ROWS, "RunBranched", *(_ROLLOUT_ROWS if rollouts else [])]
        for row in log.read(run_id, from_seq=from_seq, types=types):
            payload = row.event
            if row.type in _ROLLOUT_ROWS:
                if payload.blob:
                    out.blobs.add(payload.blob)
            elif row.type == "RunBranched":
                out.branched_from = (payload.parent_run_id, payload.parent_seq)  # its own is last
            elif row.type == "BaselineRecorded" and payload.checkpoint:
                out.always_live.add(payload.checkpoint)
            elif row.type == "RunCompleted" and payload.final_checkpoint:
                out.always_live.add(payload.final_checkpoint)
            elif row.type == "CheckpointSaved":
                out.saved.append((row.seq, payload.checkpoint))  # abandoned or not: a branch's
                if rewinds.abandoned_by(row.seq) is None:
                    out.status[payload.checkpoint] = "live"
            elif rewinds.abandoned_by(row.seq) is not None:
                continue
            elif row.type == "CheckpointsPruned":
                for p in payload.pruned:
                    out.status[p["checkpoint"]] = "pruned"
                    if p.get("rollouts"):
                        out.rollouts_pruned.setdefault(p["checkpoint"], set()).update(p["rollouts"])
                for p in payload.optimizer_dropped:
                    if out.status.get(p["checkpoint"]) == "live":
                        out.status[p["checkpoint"]] = "weights"
    return out


def _copy(known: RunReferences, last_seq: int) -> RunReferences:
    return RunReferences(
        last_seq, dict(known.status), set(known.always_live), list(known.saved),
        known.branched_from, set(known.blobs),
        {checkpoint: set(blobs) for checkpoint, blobs in known.rollouts_pruned.items()},
    )  # fmt: skip


class ReferenceCache:
    """Each run's `RunReferences` as of its last seq (a driver keeps one for its prunings)."""

    def __init__(self) -> None:
        self.runs: dict[str, RunReferences] = {}
        self.reads = 0  # runs read since it was made (what a test counts)

    def refresh(self, log: EventLog, blob_store: str | None = None) -> dict[str, RunReferences]:
        """The runs sharing `blob_store` (None: every run of the store) and their ancestors,
        reading again only those whose last seq moved (or new)."""
        known, self.runs = self.runs, {}

        def read(run_id: str, last_seq: int) -> RunReferences:
            before = known.get(run_id)
            if before is not None and before.last_seq == last_seq:
                return before
            # A run that moved: only its new rows are read, unless a rewind came among them.
            self.reads += 1
            return read_run(log, run_id, last_seq, rollouts=False, since=before)

        self.runs = read_sharing(log, blob_store, read)
        return self.runs


def read_sharing(
    log: EventLog, blob_store: str | None, read: Callable[[str, int], RunReferences]
) -> dict[str, RunReferences]:
    """`read` each run that may write to `blob_store` (every run when None), then the ancestors
    of those that are branches (a branch's history names its parent's checkpoints up to the
    cut): the parent is read where the branch's record did not bring it."""
    current = {run.run_id: run.last_seq for run in log.runs()}
    wanted = (
        set(current)
        if blob_store is None
        else blob_users.sharing(log.engine, log.retry, blob_store, set(current))
    )
    runs = {run_id: read(run_id, current[run_id]) for run_id in current if run_id in wanted}
    while missing := {r.branched_from[0] for r in runs.values() if r.branched_from} - set(runs):
        # a parent that is gone stays missing: `_needed_by_branches` refuses the GC then
        runs |= {run_id: read(run_id, current[run_id]) for run_id in missing & set(current)}
        if not missing & set(current):
            break
    return runs


def references(
    log: EventLog,
    *,
    rollouts: bool = False,
    cache: ReferenceCache | None = None,
    blob_store: str | None = None,
) -> References:
    """What the runs that may write to `blob_store` name (None: every run of the store;
    `rollouts`: also every rollout blob a row names, abandoned or not: `events` and `why` still
    show those rows). With a `cache` (and no rollouts), only the runs whose log moved since its
    last refresh are read."""
    if cache is not None and not rollouts:
        runs = cache.refresh(log, blob_store)
    else:
        runs = read_sharing(
            log, blob_store, lambda run_id, last: read_run(log, run_id, last, rollouts=rollouts)
        )
    refs = References()
    refs.live |= _needed_by_branches(runs)
    for run in runs.values():
        refs.blobs |= run.blobs
        refs.live |= run.always_live
        for tree, rollouts in run.rollouts_pruned.items():
            refs.rollouts_pruned.setdefault(tree, set()).update(rollouts)
        for tree, what in run.status.items():
            {"live": refs.live, "weights": refs.weights_only, "pruned": refs.pruned}[what].add(tree)
    refs.weights_only -= refs.live
    refs.pruned -= refs.live | refs.weights_only
    return refs


def _needed_by_branches(runs: dict[str, RunReferences]) -> set[str]:
    """Every checkpoint a branch's history names: those its parent saved up to the seq it was
    cut at (and the grandparent's, up to the parent's cut), whether or not the parent pruned or
    abandoned them since. A branch that copied those rows names them itself; one that points at
    its parent's prefix needs this."""
    needed: set[str] = set()
    for child, run in runs.items():
        if run.branched_from is None:
            continue
        seen = {child}
        parent, seq = run.branched_from
        while parent not in seen:
            seen.add(parent)
            if parent not in runs:
                # A parent that cannot be read: the GC is skipped, nothing is deleted.
                raise StoreError(f"run {child} was branched from run {parent}, which is gone")
            needed |= {checkpoint for at, checkpoint in runs[parent].saved if at <= seq}
            cut = runs[parent].branched_from
            if cut is None:
                break
            parent, seq = cut[0], min(seq, cut[1])
    return needed
