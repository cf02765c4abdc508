"""The driver's hold on its run: a lease renewed by an apscheduler heartbeat job.

If a renewal finds the lease taken over (this process stalled past its TTL and a supervisor moved
on), `lost` is set and the driver stops before its next append.

Taking and dropping the lease ride out transient store errors (a lost connection, SQLite's lock
held by another writer) with the store's backoff, as appends do (store/retry.py); a release retries
only briefly, since a lease left behind expires after its TTL anyway.

A lease is released as soon as its run is paused (the driver's pause path), when the context
exits, and on the paths that end the process with `os._exit` (a second SIGTERM/SIGINT, a collective
timeout): `release_held_leases` drops every lease this process still holds. Only SIGKILL (or a
machine lost) leaves a lease behind, and then it expires after `lease_ttl_s`, unless its holder
ran on this host: a lease whose process is provably gone here (`holder_is_dead`) is taken over at
once, as an expired one is.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import socket
import threading
from pathlib import Path

from apscheduler.schedulers.background import BackgroundScheduler

from orchestrator.errors import LeaseHeldError
from orchestrator.logging import get_logger
from store.events import LeaseAcquired
from store.leases import LeaseHeld, LeaseLost, LeaseTable, OwnerUnreadable
from store.log import EventLog
from store.retry import RetryPolicy, with_retries

log_ = get_logger("rlvr.lease")
_HELD: set[LeaseKeeper] = set()  # this process's live leases, for the os._exit paths
# About 1.5 s in all: a release runs on the way out of the process (a pause, os._exit paths).
RELEASE_RETRY = RetryPolicy(attempts=6, first_delay_s=0.05, max_delay_s=1.0)
_PID = re.compile(r"[0-9]{1,7}")  # ASCII digits: str.isdigit() takes '²', which int() refuses
_PID_MAX = 2**22  # the largest pid_max a Linux kernel allows


def driver_identity() -> str:
    """HOST:PID:SPACE-TOKEN, SPACE naming this boot and pid namespace (`_pid_space`)."""
    return f"{socket.gethostname()}:{os.getpid()}:{_pid_space()}-{secrets.token_hex(2)}"


def _pid_space() -> str:
    """Which pids this process sees: its boot and its pid namespace, hashed short. Containers
    may share a host name (Kubernetes hostNetwork pods) and a store, but a pid means nothing
    across pid namespaces: `os.kill(pid, 0)` there asks about some other process (red team round
    12). Empty parts where /proc is missing (macOS): one space per host name, as before."""
    parts = []
    for read in (lambda: os.readlink("/proc/self/ns/pid"),
                 lambda: Path("/proc/sys/kernel/random/boot_id").read_text().strip()):  # fmt: skip
        try:
            parts.append(read())
        except OSError:
            parts.append("")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:8]


def holder_is_dead(owner: str) -> bool:
    """Whether a lease holder (`driver_identity`'s HOST:PID:SPACE-TOKEN, after the BY: of an
    outside writer such as `rlvr pause` or `rescore`) ran on this host, in this pid namespace and
    boot, and its process is gone (or a zombie nobody reaped). Another host's owner is never
    provably dead: its lease waits for its TTL. This host's owner whose pid is no pid (text, negative, past any
    pid_max) was written by no driver: `OwnerUnreadable`, which the lease table reports as a
    damaged row."""
    _, _, identity = owner.partition(":")
    if identity.count(":") == 2:  # an outside writer's BY:HOST:PID:TOKEN (round 25, log 025)
        owner = identity
    host, _, rest = owner.partition(":")
    pid_text, _, token = rest.partition(":")
    if host != socket.gethostname():
        return False
    space, dash, _ = token.partition("-")
    if dash and space != _pid_space():
        return False  # another pid namespace or boot: its pid is not one this process can ask about
    if not _PID.fullmatch(pid_text) or int(pid_text) > _PID_MAX:
        raise OwnerUnreadable(f"owner {owner!r} names this host but no process id")
    pid = int(pid_text)
    if pid <= 1 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, another user's
    try:  # alive, or a zombie: killed, not yet reaped by its parent
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state in ("Z", "X")


class LeaseKeeper:
    def __init__(
        self, log: EventLog, run_id: str, ttl_s: float = 30.0, owner: str | None = None
    ) -> None:
        self.log = log
        self.run_id = run_id
        self.ttl_s = ttl_s
        self.owner = owner or driver_identity()
        self.table = LeaseTable(log)
        self.lost = threading.Event()
        self._scheduler: BackgroundScheduler | None = None

    def acquire(self) -> None:
        """Take the lease and record it in the log; `LeaseHeldError` names the live owner."""
        try:
            # Repeatable: a lease already ours is taken again (a commit whose reply was lost).
            lease = with_retries(
                f"take the lease of run {self.run_id}",
                lambda: self.table.acquire(self.run_id, self.owner, self.ttl_s, holder_is_dead),
                self.log.retry, _warn_retry,
            )  # fmt: skip
        except LeaseHeld as e:
            raise LeaseHeldError(
                f"run {self.run_id} is owned by driver {e.owner} (lease live until {e.expires_at}); "
                "refusing to start a second driver"
            ) from e
        self.log.append(
            self.run_id,
            [
                LeaseAcquired(
                    owner=self.owner,
                    expires_at=lease.expires_at,
                    took_over_from=lease.took_over_from,
                )
            ],
            expected_seq=self.log.last_seq(self.run_id),
            drain_requests=True,  # what was queued while no driver held the run
        )
        self._scheduler = BackgroundScheduler(daemon=True)
        self._scheduler.add_job(
            self._renew,
            "interval",
            seconds=max(self.ttl_s / 3, 0.2),
            id="lease-heartbeat",
            max_instances=1,
        )
        self._scheduler.start()
        _HELD.add(self)

    def _renew(self) -> None:
        try:
            self.table.renew(self.run_id, self.owner, self.ttl_s)
        except LeaseLost as e:
            log_.error("lease lost", reason=str(e))
            self.lost.set()
        except Exception as e:  # a transient store error: the next beat retries before the TTL ends
            log_.warning("lease renewal failed", error=str(e))

    def release(self) -> None:
        """Stop renewing and drop the lease (idempotent): a resume may start at once."""
        _HELD.discard(self)
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=False)
            self._scheduler = None
        if self.lost.is_set():
            return
        try:
            with_retries(
                f"release the lease of run {self.run_id}",
                lambda: self.table.release(self.run_id, self.owner),
                RELEASE_RETRY, _warn_retry,
            )  # fmt: skip
        except Exception as e:  # the store is down: the lease expires after its TTL instead
            log_.error("lease release failed: it expires after its TTL", error=str(e))

    def __enter__(self) -> LeaseKeeper:
        self.acquire()
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


def _warn_retry(error: BaseException, delay_s: float) -> None:
    log_.warning("lease: store error, retrying", error=str(error).splitlines()[0], delay_s=delay_s)


def release_held_leases(why: str) -> None:
    """Drop every lease this process holds, before an `os._exit`; a failure is logged, not raised
    (the lease then expires after its TTL)."""
    for keeper in list(_HELD):
        try:
            keeper.release()
            log_.warning("lease released", run_id=keeper.run_id, why=why)
        except Exception as e:
            log_.error("lease release failed: it expires after its TTL", error=str(e))
