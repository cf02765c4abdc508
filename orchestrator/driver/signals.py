"""SIGTERM / SIGINT: the first asks the driver to stop at the next safe point (after the current
step, then the run is paused and its lease released), the second releases the lease and exits at
once."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from orchestrator.logging import get_logger

log_ = get_logger("rlvr.signals")


class StopRequest:
    def __init__(self) -> None:
        self.event = threading.Event()
        self.reason = ""
        self.signal: str | None = None  # the first signal that asked, by name (SIGINT: Ctrl-C)

    def request(self, reason: str, signal_name: str | None = None) -> None:
        if not self.event.is_set():
            self.reason, self.signal = reason, signal_name
        self.event.set()

    def __call__(self) -> bool:
        return self.event.is_set()


@contextmanager
def graceful_signals(stop: StopRequest) -> Iterator[StopRequest]:
    def handle(signum: int, _frame: object) -> None:
        name = signal.Signals(signum).name
        if stop():
            log_.warning("second signal: exiting now", signal=name)
            from orchestrator.driver.lease import release_held_leases

            release_held_leases(f"second {name}")
            os._exit(128 + signum)
        log_.warning("stop requested: finishing the current step", signal=name)
        stop.request(f"{name} received", name)

    if threading.current_thread() is not threading.main_thread():
        yield stop  # signals can only be handled on the main thread (tests drive from others)
        return
    previous = {s: signal.signal(s, handle) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
