"""Progress on long work: a rich bar on a terminal, a log line now and then otherwise.

The bars and the run's console log lines share one console on stderr (`shared_console`): rich
prints a log line above a live bar instead of through it (orchestrator/logging.py writes there).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import structlog
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

log_ = structlog.get_logger("rlvr.progress")
_console: Console | None = None


def shared_console() -> Console:
    """The process's one stderr console for progress bars and log lines."""
    global _console
    if _console is None:
        _console = Console(stderr=True, emoji=False, highlight=False)
    return _console


class Ticker:
    def __init__(self, progress: Progress | None, task: int | None, label: str, total: int) -> None:
        self._progress, self._task, self.label, self.total = progress, task, label, total
        self._done, self._last_log = 0, time.monotonic()

    def advance(self, n: int = 1, **fields: object) -> None:
        self._done += n
        if self._progress is not None and self._task is not None:
            extra = "  ".join(
                f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in fields.items()
            )
            self._progress.update(self._task, advance=n, extra=extra)
        elif time.monotonic() - self._last_log > 10 or self._done == self.total:
            # Not a terminal: a line every ~10 s keeps logs readable and shows the run is alive.
            self._last_log = time.monotonic()
            log_.info(self.label, done=self._done, total=self.total, **fields)


@contextmanager
def progress(label: str, total: int) -> Iterator[Ticker]:
    if not sys.stderr.isatty():
        yield Ticker(None, None, label, total)
        return
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[extra]}"),
        console=shared_console(),
        transient=False,
    )
    with bar:
        task = bar.add_task(label, total=total, extra="")
        yield Ticker(bar, task, label, total)
