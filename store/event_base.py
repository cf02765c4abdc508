"""The base of every event: `Event` registers each subclass in `EVENT_TYPES` under its class name
(store/events.py documents the contract; events are defined there and in store/events_decisions.py)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator

JSON = dict[str, Any]

# The ranges a value the code writes lies in, as schema constraints (checked by pydantic-core
# with the rest of the row, on the fold's hot path too): a row edited with its chain recomputed
# to a step of -16 or 10**26, or a verify rate of 7.5, is one the code could never have written,
# and every reader that checks a row against its schema refuses it by its seq (red team round
# 18). No run trains a billion steps; a seq is a 64-bit column's positive value.
MAX_STEP = 10**9
MAX_SEQ = 2**63 - 1
Step = Annotated[int, Field(ge=0, le=MAX_STEP)]
Seq = Annotated[int, Field(ge=1, le=MAX_SEQ)]
Count = Annotated[int, Field(ge=0, le=MAX_SEQ)]
Rate = Annotated[float, Field(ge=0.0, le=1.0)]  # a share: verify and pass rates
NonNegative = Annotated[float, Field(ge=0.0)]

# Stored type name -> the class that reads it; filled by `Event.__pydantic_init_subclass__`.
EVENT_TYPES: dict[str, type[Event]] = {}


class Event(BaseModel):
    # NaN/inf are not JSON: a non-finite metric must be recorded as null with a flag beside it.
    # `defer_build`: an event's validator is built the first time one is read or made, not at
    # import; a command touches a few of the ~40 types (a replay: 10), and building them all was
    # most of this package's import time. The schema is the same, built once either way.
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False, defer_build=True)
    schema_version: ClassVar[int] = 1

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if cls.__dict__.get("_shared_base", False):  # a base of events, not one stored
            return
        known = EVENT_TYPES.get(cls.__name__)
        if known is not None and known is not cls:
            raise TypeError(
                f"event type {cls.__name__!r} is already defined in {known.__module__}: "
                "stored rows name their class, so a name means one class"
            )
        EVENT_TYPES[cls.__name__] = cls

    @classmethod
    def type_name(cls) -> str:
        return cls.__name__


class CitesEvidence(Event):
    """An event whose `evidence_seqs` name the rows it was decided from: rows of its run before
    it. Read from a stored row (`context={"seq": ...}`), a seq at or past the row's own (99999)
    points at no row it could have read, so the row is refused rather than explained without it."""

    _shared_base: ClassVar[bool] = True
    evidence_seqs: list[Seq] = Field(default_factory=list)

    @model_validator(mode="after")
    def _evidence_before_row(self, info: ValidationInfo) -> CitesEvidence:
        seq = info.context.get("seq") if isinstance(info.context, dict) else None
        if seq is not None and any(cited >= seq for cited in self.evidence_seqs):
            late = next(cited for cited in self.evidence_seqs if cited >= seq)
            raise ValueError(f"evidence_seqs names seq {late}, not a row before this one")
        return self
