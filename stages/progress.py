"""Progress on long work: a rich bar on a terminal, a log line now and then otherwise."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import structlog
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

log_ = structlog.get_logger("rlvr.progress")


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
        TimeRemainingColumn(),
        TextColumn("{task.fields[extra]}"),
        transient=False,
    )
    with bar:
        task = bar.add_task(label, total=total, extra="")
        yield Ticker(bar, task, label, total)
