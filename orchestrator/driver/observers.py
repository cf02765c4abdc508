"""What follows a run from outside its log while a driver appends to it: the run's metric sinks.
The command line brings them (orchestrator/sinks/live.py): the driver does not import the
readers of the log, so it only knows this contract."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Protocol

from orchestrator.config import RunConfig
from store.log import EventLog


class Observers(Protocol):
    def refuse(self, config: RunConfig) -> None:
        """Raise when a run of `config` could not be followed (a sink's package is missing):
        called before the run starts, so nothing is written."""
        ...

    def follow(
        self, log: EventLog, config: RunConfig, run_dir: Path, run_id: str
    ) -> AbstractContextManager[object]:
        """Follow every batch a driver appends to `run_id` until the context ends."""
        ...


class Unobserved:
    """No one follows the run (the default of the driver's entry points)."""

    def refuse(self, config: RunConfig) -> None:
        return None

    def follow(
        self, log: EventLog, config: RunConfig, run_dir: Path, run_id: str
    ) -> AbstractContextManager[object]:
        return nullcontext()


UNOBSERVED = Unobserved()
