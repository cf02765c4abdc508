"""The run's metric sinks (orchestrator/sinks/metrics.py) following a driver as it appends: what the
command line hands the driver as its observers (orchestrator/driver/observers.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from orchestrator.sinks.metrics import SinkFeed, check_installed, open_sinks
from store.log import EventLog


class MetricSinks:
    def refuse(self, config: Any) -> None:
        """A sink this install cannot feed refuses the run before it starts."""
        check_installed(config.model_dump(mode="json"))

    @contextmanager
    def follow(self, log: EventLog, config: Any, run_dir: Path, run_id: str) -> Iterator[None]:
        """The run's metric sinks follow every batch this driver appends, until it stops."""
        feed = SinkFeed(open_sinks(config.model_dump(mode="json"), run_dir, run_id))
        if not feed.sinks:
            yield
            return
        log.observers.append(feed)
        try:
            yield
        finally:
            log.observers.remove(feed)
            feed.close()


METRIC_SINKS = MetricSinks()
