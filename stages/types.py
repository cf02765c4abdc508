"""The one interface every stage implements, and what the orchestrator hands it.

A stage reads plain config, builds its heavy objects itself (the mlx model, the OpenAI client), and
reports through `ctx.emit`: each call appends one batch of events in one transaction (a training
step, a stage result) and returns the stored events, whose `seq`s later gates cite as evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from stages.errors import StageError, StageInterrupted  # noqa: F401  (re-exported: their home was here)
from store.blobs import BlobStore
from store.events import Event
from store.log import StoredEvent
from store.projections import RunState


@dataclass
class StageContext:
    run_id: str
    config: (
        Any  # orchestrator.config.RunConfig; typed loosely so stages never import the orchestrator
    )
    run_dir: Path
    blobs: BlobStore
    emit: Callable[[Sequence[Event]], list[StoredEvent]]
    state: Callable[[], RunState]
    # The run's events from a seq on (abandoned spans of rewinds left out), and the state as of a seq.
    read: Callable[[int], list[StoredEvent]] = lambda _seq: []
    state_at: Callable[[int], RunState] = lambda _seq: RunState()
    # In-process objects shared between stages of one driver (the loaded model, task sets). A resumed
    # driver starts with it empty: stages rebuild what they need from the log and the blob store.
    workspace: dict[str, Any] = field(default_factory=dict)
    should_stop: Callable[[], bool] = lambda: False
    # Why the checkpoint written to this folder must not be stored (the run's disk budget), or
    # None: the driver answers (orchestrator/driver/checkpoints.py).
    checkpoint_refusal: Callable[[Path], str | None] = lambda _folder: None


class Stage(Protocol):
    name: str

    def run(self, ctx: StageContext) -> None:
        """Do the stage's work, emitting its events; the orchestrator then evaluates the gate."""
        ...
