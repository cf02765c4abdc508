"""The base of every event: `Event` registers each subclass in `EVENT_TYPES` under its class name
(store/events.py documents the contract; events are defined there and in store/events_decisions.py)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

JSON = dict[str, Any]

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
