"""Which runs write to which blob store, so that the blob GC reads only the runs sharing its own.

A side table `run_blob_stores(run_id, blob_store)`. A blob store is named by the id kept in its
own root (`BlobStore.identity`), not by its path: one store mounted at two paths on two hosts, or
moved, is still one. A driver records its run's blob store when it starts; a branch inherits its
parent's records when it is created (its history names the parent's checkpoints, which live
there) and adds its own when its driver starts. A run may name several (a `log_path` that moved).
A new run (`EventLog.append` at seq 0) is recorded with no blob store (`NONE`) as it is created:
it writes none before its driver starts, and only a driver writes to one.

A run with no record at all (written before this table existed, or imported) may use any blob
store: every GC reads it, as every GC read every run before. Only a run whose records all name
other blob stores (or none) is left out. The table is outside the chain, like the
lease table: an edit there can hide a run from a GC (README, `keep_last`).
"""

from __future__ import annotations

import contextlib

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError as SAIntegrityError
from sqlmodel import Field, SQLModel

from store.retry import RetryPolicy, with_retries


class RunBlobStoreRow(SQLModel, table=True):
    __tablename__ = "run_blob_stores"

    run_id: str = Field(primary_key=True, max_length=200)
    blob_store: str = Field(primary_key=True, max_length=200)


TABLE = RunBlobStoreRow.__table__
NONE = ""  # a run's record before its driver names a blob store


def created(conn: sa.Connection, run_id: str) -> None:
    """A new run's record, in the transaction that writes its first rows."""
    _insert_absent(conn, run_id, NONE)


def _insert_absent(conn: sa.Connection, run_id: str, blob_store: str) -> None:
    known = conn.execute(
        sa.select(TABLE.c.run_id).where(
            (TABLE.c.run_id == run_id) & (TABLE.c.blob_store == blob_store)
        )
    ).first()
    if known is None:
        conn.execute(sa.insert(TABLE), [{"run_id": run_id, "blob_store": blob_store}])


def record(engine: sa.Engine, retry: RetryPolicy, run_id: str, blob_store: str) -> None:
    """Note that `run_id` writes to `blob_store` (once; retried through an outage)."""

    def insert() -> None:
        with engine.begin() as conn:
            _insert_absent(conn, run_id, blob_store)

    with contextlib.suppress(SAIntegrityError):  # another process recorded the pair meanwhile
        with_retries(f"record run {run_id}'s blob store", insert, retry)


def inherit(conn: sa.Connection, child: str, parent: str) -> None:
    """A new branch writes where its parent does (inside the branch's own transaction)."""
    conn.execute(
        sa.insert(TABLE).from_select(
            ["run_id", "blob_store"],
            sa.select(sa.literal(child), TABLE.c.blob_store).where(TABLE.c.run_id == parent),
        )
    )


def sharing(engine: sa.Engine, retry: RetryPolicy, blob_store: str, run_ids: set[str]) -> set[str]:
    """Of `run_ids`, those that may write to `blob_store`: recorded with it, or with no record
    at all (older versions; `NONE` is a record)."""

    def query() -> list[sa.Row]:
        with engine.connect() as conn:
            return list(conn.execute(sa.select(TABLE.c.run_id, TABLE.c.blob_store)))

    recorded: dict[str, set[str]] = {}
    for run_id, store in with_retries("read the runs' blob stores", query, retry):
        recorded.setdefault(run_id, set()).add(store)
    return {r for r in run_ids if r not in recorded or blob_store in recorded[r]}
