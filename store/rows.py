"""The stored form of an event: the `events` table's row (`EventRow`), and `StoredEvent`, a row as
the log hands it out (its payload text as stored, decoded only on request), plus a run's summary
row. Split out of store/log.py, which re-exports them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
import sqlalchemy as sa
from pydantic import ValidationError
from sqlmodel import Field, SQLModel

from store.errors import PayloadMismatchError, StoreError
from store.events import EVENT_TYPES, Event
from store.upcasters import decode, upcast

# What reading a payload of the wrong shape raises: a missing key, a text where a number goes, a
# list where a mapping goes; JSONDecodeError and pydantic's ValidationError are ValueErrors.
PAYLOAD_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError)


def payload_mismatch(stored: StoredEvent, error: Exception) -> PayloadMismatchError:
    """The store error for a row whose payload does not fit its type, naming the run and seq."""
    if isinstance(error, ValidationError) and error.errors():
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        why = f"{where}: {first['msg']}" if where else first["msg"]
    else:
        why = f"{type(error).__name__}: {error}"
    return PayloadMismatchError(
        f"run {stored.run_id}: seq {stored.seq}: payload does not match {stored.type} "
        f"(edited?): {why}"
    )


class EventRow(SQLModel, table=True):
    __tablename__ = "events"
    __table_args__ = (sa.Index("ix_events_run_type", "run_id", "type"),)

    run_id: str = Field(primary_key=True, max_length=200)
    seq: int = Field(primary_key=True)
    type: str = Field(max_length=100)
    schema_version: int
    payload: str
    recorded_at: str
    prev_hash: str = Field(max_length=64)
    hash: str = Field(max_length=64)


EVENTS_TABLE = EventRow.__table__
# StoredEvent's field order, so a selected row unpacks straight into it.
COLUMNS = [
    "run_id",
    "seq",
    "type",
    "schema_version",
    "recorded_at",
    "prev_hash",
    "hash",
    "payload",
]


@dataclass(frozen=True, slots=True)
class StoredEvent:
    run_id: str
    seq: int
    type: str
    schema_version: int
    recorded_at: str
    prev_hash: str
    hash: str
    payload: str

    @property
    def event(self) -> Event:
        """The event as the current code knows it (old versions upcast on read). A payload that
        does not fit its type is a `PayloadMismatchError` naming the seq."""
        try:
            known = EVENT_TYPES.get(self.type)
            if known is not None and self.schema_version == known.schema_version:
                # as `decode` reads; the seq: evidence must name rows before it (CitesEvidence)
                return known.model_validate_json(
                    self.payload, strict=True, context={"seq": self.seq}
                )
            return decode(self.type, self.schema_version, orjson.loads(self.payload), self.seq)
        except PAYLOAD_ERRORS as e:
            raise payload_mismatch(self, e) from e
        except StoreError as e:  # a schema_version out of range: no upcaster, or a future one
            raise self._unreadable(e) from e

    def fields(self) -> dict[str, Any]:
        """The payload as the current code knows it (upcast), as plain JSON values: the one way a
        reader that wants a few fields decodes a row (building the pydantic event for every row is
        the slow part of a long log). An unknown type is given as stored. A payload that is not a
        JSON object is a `PayloadMismatchError` naming the seq."""
        try:
            payload = orjson.loads(self.payload)
            known = EVENT_TYPES.get(self.type)
            if known is not None and self.schema_version != known.schema_version:
                payload = upcast(self.type, self.schema_version, payload)
        except PAYLOAD_ERRORS as e:
            raise payload_mismatch(self, e) from e
        except StoreError as e:
            raise self._unreadable(e) from e
        if not isinstance(payload, dict):
            raise payload_mismatch(
                self, TypeError(f"a JSON {type(payload).__name__}, not an object")
            )
        return payload

    def _unreadable(self, error: StoreError) -> StoreError:
        """`upcast`'s refusal (it knows no run or seq), naming the run and the row's seq."""
        return StoreError(f"run {self.run_id}: seq {self.seq}: {error} (schema_version edited?)")

    def checked_fields(self) -> dict[str, Any]:
        """`fields()` of a row whose payload has first been checked against its event's schema
        (types included): for readers that take fields outside the fold."""
        if self.type in EVENT_TYPES:
            _ = self.event
        return self.fields()

    def to_json(self) -> dict[str, Any]:
        row = {name: getattr(self, name) for name in COLUMNS}
        row["payload"] = orjson.loads(self.payload)
        return row

    def export_line(self, batch_end: bool = False) -> bytes:
        """`to_json` as one line of sorted-key JSON, the stored payload text spliced in as it is
        (it is canonical JSON already): exporting a long run streams without re-parsing it.
        `batch_end` marks the last row of an appended batch."""
        row: dict[str, Any] = {name: getattr(self, name) for name in COLUMNS}
        row["payload"] = orjson.Fragment(self.payload)
        if batch_end:
            row["batch_end"] = True
        return orjson.dumps(row, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE)


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    n_events: int
    last_seq: int
    last_type: str
    last_recorded_at: str
