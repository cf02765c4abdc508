"""Run leases: which driver owns a run right now.

A lease is coordination, not history: its row is renewed in place by the owner's heartbeat. Taking a
lease (first time or over an expired one) is also recorded in the run's log as `LeaseAcquired`, so
take-overs stay auditable. Acquisition is a compare-and-swap, so two drivers racing on one run get
exactly one winner on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError as SAIntegrityError
from sqlmodel import Field, SQLModel

from store.backends import created_or_missing
from store.errors import StoreError
from store.log import EventLog


class LeaseRow(SQLModel, table=True):
    __tablename__ = "leases"

    run_id: str = Field(primary_key=True, max_length=200)
    owner: str = Field(max_length=200)
    expires_at: str
    renewed_at: str


_LEASES = LeaseRow.__table__


class LeaseHeld(StoreError):
    """Another owner holds a live lease on the run."""

    def __init__(self, run_id: str, owner: str, expires_at: str) -> None:
        super().__init__(f"run {run_id} is owned by {owner} until {expires_at}")
        self.owner = owner
        self.expires_at = expires_at


class LeaseLost(StoreError):
    """The lease expired and someone else took it: the old owner must stop writing."""


class LeaseUnreadable(StoreError):
    """A lease row no driver wrote (a garbled expiry or owner): it is neither honoured as held
    nor taken over, since nothing says whether its driver still runs; the operator clears it."""

    def __init__(self, run_id: str, why: str) -> None:
        super().__init__(
            f"run {run_id}: its lease row (table leases) is unreadable: {why}; the row is "
            f"damaged: once no driver runs {run_id}, delete it "
            f"(DELETE FROM leases WHERE run_id = '{run_id}') and retry"
        )
        self.run_id = run_id


class OwnerUnreadable(ValueError):
    """Raised by a `holder_gone` check for an owner it cannot parse (a pid that is no pid)."""


@dataclass(frozen=True)
class Lease:
    run_id: str
    owner: str
    expires_at: str
    took_over_from: str | None


def _now() -> datetime:
    return datetime.now(UTC)


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="microseconds")


def lease_expiry(row: LeaseRow) -> datetime:
    """When `row`'s lease ends, or `LeaseUnreadable`: the row sits outside the chain, so what it
    holds is checked like any other untrusted input (an ISO time with a zone, as `_iso` writes)."""
    text = row.expires_at
    try:
        moment = datetime.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise LeaseUnreadable(
            row.run_id, f"expires_at {text!r} is not an ISO time with a time zone"
        )
    if not isinstance(row.owner, str):
        raise LeaseUnreadable(row.run_id, f"owner {row.owner!r} is not text")
    return moment


class LeaseTable:
    def __init__(self, log: EventLog) -> None:
        self.engine = log.engine
        # Missing and read-only (round 22, log 039's store): no run has a lease there.
        self.absent = created_or_missing(self.engine, [_LEASES])

    def get(self, run_id: str) -> LeaseRow | None:
        if self.absent:
            return None
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(_LEASES).where(_LEASES.c.run_id == run_id)).first()
        return LeaseRow(**row._mapping) if row else None

    def all(self) -> dict[str, LeaseRow]:
        if self.absent:
            return {}
        with self.engine.connect() as conn:
            return {r.run_id: LeaseRow(**r._mapping) for r in conn.execute(sa.select(_LEASES))}

    def acquire(
        self,
        run_id: str,
        owner: str,
        ttl_s: float,
        holder_gone: Callable[[str], bool] = lambda holder: False,
    ) -> Lease:
        """Take the lease if it is free, expired, already ours, or held by an owner
        `holder_gone` says is provably dead (its process gone on this host); else `LeaseHeld`."""
        now = _now()
        expires = _iso(now + timedelta(seconds=ttl_s))
        current = self.get(run_id)
        if current is None:
            try:
                with self.engine.begin() as conn:
                    conn.execute(
                        sa.insert(_LEASES).values(
                            run_id=run_id, owner=owner, expires_at=expires, renewed_at=_iso(now)
                        )
                    )
                return Lease(run_id, owner, expires, None)
            except SAIntegrityError:
                current = self.get(run_id)  # lost the race for a fresh lease
                if current is None:
                    raise
        if self.is_live(current, owner, now, holder_gone):
            raise LeaseHeld(run_id, current.owner, current.expires_at)
        # Compare-and-swap on the row we read: a concurrent taker changes it and we lose.
        with self.engine.begin() as conn:
            swapped = conn.execute(
                sa.update(_LEASES)
                .where(
                    _LEASES.c.run_id == run_id,
                    _LEASES.c.owner == current.owner,
                    _LEASES.c.expires_at == current.expires_at,
                )
                .values(owner=owner, expires_at=expires, renewed_at=_iso(now))
            ).rowcount
        if swapped != 1:
            latest = self.get(run_id)
            raise LeaseHeld(
                run_id, latest.owner if latest else "?", latest.expires_at if latest else "?"
            )
        took_over = current.owner if current.owner != owner else None
        return Lease(run_id, owner, expires, took_over)

    def live_holder(
        self, run_id: str, holder_gone: Callable[[str], bool] = lambda holder: False
    ) -> str | None:
        """Who holds `run_id`'s lease now: None when no one does, it expired, or its holder is
        gone; `LeaseUnreadable` for a damaged row."""
        current = self.get(run_id)
        if current is None or not self.is_live(current, None, _now(), holder_gone):
            return None
        return current.owner

    @staticmethod
    def is_live(
        current: LeaseRow, owner: str | None, now: datetime, holder_gone: Callable[[str], bool]
    ) -> bool:
        """Whether `current` is a live lease of someone other than `owner`: unexpired and its
        holder not `holder_gone`; `LeaseUnreadable` for a damaged expiry or owner."""
        if lease_expiry(current) <= now or current.owner == owner:
            return False
        try:
            return not holder_gone(current.owner)
        except OwnerUnreadable as e:
            raise LeaseUnreadable(current.run_id, str(e)) from e

    def renew(self, run_id: str, owner: str, ttl_s: float) -> str:
        now = _now()
        expires = _iso(now + timedelta(seconds=ttl_s))
        with self.engine.begin() as conn:
            updated = conn.execute(
                sa.update(_LEASES)
                .where(_LEASES.c.run_id == run_id, _LEASES.c.owner == owner)
                .values(expires_at=expires, renewed_at=_iso(now))
            ).rowcount
        if updated != 1:
            raise LeaseLost(f"run {run_id}: lease of {owner} was taken over")
        return expires

    def release(self, run_id: str, owner: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                sa.delete(_LEASES).where(_LEASES.c.run_id == run_id, _LEASES.c.owner == owner)
            )

    def expire_now(self, run_id: str) -> None:
        """Mark a lease expired (used when its owner is known to be dead, e.g. killed in a test)."""
        with self.engine.begin() as conn:
            conn.execute(
                sa.update(_LEASES).where(_LEASES.c.run_id == run_id).values(expires_at=_iso(_now()))
            )
