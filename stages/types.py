"""The one interface every stage implements, and what the orchestrator hands it.

A stage reads plain config, gets its shared objects from the run's typed services (the task suite,
the verifiers, the base model, the world, the RL session: stages/services.py), and reports
through `ctx.emit`: each call appends one batch of events in one transaction (a training step, a
stage result) and returns the stored events, whose `seq`s later gates cite as evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from stages.config import RunConfig
from stages.errors import StageError, StageInterrupted  # noqa: F401  (re-exported: their home was here)
from stages.services import RunServices
from store.blobs import BlobStore
from store.events import Event
from store.log import StoredEvent
from store.projections import RunState


@dataclass
class StageContext:
    run_id: str
    config: RunConfig
    run_dir: Path
    blobs: BlobStore
    emit: Callable[[Sequence[Event]], list[StoredEvent]]
    state: Callable[[], RunState]
    # What the stages of one driver share (built by the driver; a resumed driver's start empty:
    # they are rebuilt from the log and the blob store).
    services: RunServices
    # The run's events from a seq on (abandoned spans of rewinds left out), and the state as of a seq.
    read: Callable[[int], list[StoredEvent]] = lambda _seq: []
    state_at: Callable[[int], RunState] = lambda _seq: RunState()
    should_stop: Callable[[], bool] = lambda: False
    # Why the checkpoint written to this folder must not be stored (the run's disk budget), or
    # None: the driver answers (orchestrator/driver/checkpoints.py).
    checkpoint_refusal: Callable[[Path], str | None] = lambda _folder: None


class Stage(Protocol):
    name: str

    def run(self, ctx: StageContext) -> None:
        """Do the stage's work, emitting its events; the orchestrator then evaluates the gate."""
        ...
