"""Transient store errors and the backoff that rides them out.

Transient: the connection was lost (a restarted or failed-over server, a killed backend), a
serialization failure or deadlock, a lock timeout, SQLite busy/locked. Everything else (a bad query,
a constraint) is not retried. When the retries run out the caller gets `StoreUnavailable`, with
nothing written: every append is one transaction.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy.exc import DBAPIError

from store.errors import StoreError

T = TypeVar("T")

# PostgreSQL SQLSTATEs worth another try: serialization failure, deadlock, lock timeout, the server
# shutting down or terminating this backend, cannot connect now. Class 08 is connection exceptions.
_PG_TRANSIENT = {"40001", "40P01", "55P03", "57P01", "57P02", "57P03"}


class StoreUnavailable(StoreError):
    """The store kept failing with transient errors until the retries ran out; nothing was written."""


def is_transient(error: BaseException) -> bool:
    if not isinstance(error, DBAPIError):
        return False
    if error.connection_invalidated:
        return True
    orig = error.orig
    sqlstate = getattr(orig, "sqlstate", None) or ""
    if sqlstate in _PG_TRANSIENT or sqlstate.startswith("08"):
        return True
    kind = type(orig).__name__
    text = str(orig).lower()
    if type(orig).__module__.startswith("sqlite3"):
        return kind == "OperationalError" and ("locked" in text or "busy" in text)
    # psycopg: a connection closed under us raises OperationalError with no SQLSTATE.
    return kind == "OperationalError" and not sqlstate


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 10
    first_delay_s: float = 0.05
    max_delay_s: float = 5.0

    def delays(self) -> list[float]:
        """The waits between attempts (about 16 s in all with the defaults)."""
        return [min(self.first_delay_s * 2**i, self.max_delay_s) for i in range(self.attempts - 1)]


def with_retries(
    what: str,
    action: Callable[[], T],
    policy: RetryPolicy,
    on_retry: Callable[[BaseException, float], None] = lambda _e, _d: None,
) -> T:
    """Run `action`, retrying transient store errors with backoff; `StoreUnavailable` when they
    outlast the policy. `action` must be safe to repeat (one transaction each time)."""
    delays = policy.delays()
    for attempt in range(policy.attempts):
        try:
            return action()
        except DBAPIError as e:
            if not is_transient(e):
                raise
            if attempt == len(delays):
                raise StoreUnavailable(
                    f"{what}: the store kept failing after {policy.attempts} attempts "
                    f"({sum(delays):.1f} s): {_first_line(e.orig)}"
                ) from e
            on_retry(e, delays[attempt])
            time.sleep(delays[attempt])
    raise AssertionError("unreachable: the loop returns or raises")


def _first_line(error: BaseException | None) -> str:
    return (str(error).strip().splitlines() or ["?"])[0]
