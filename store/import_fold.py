"""An export's rows read as the readers read them, before any is written: each folded
(`projections.project`, which checks each row's payload against its event's schema and the
settings' types), then given to the layers above's `check` (the recorded config, which the store
does not read). A row any reader would refuse ("seq 1: payload does not match RunStarted
(edited?)") is refused by its file and line, not stored as a run nobody can read (red team round
26, log 015/017)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from store.errors import BadExportError, PayloadMismatchError, SequenceGapError, StoreError
from store.rows import StoredEvent

# The layers above's check of one row (a `ValueError` or `StoreError` saying why it is refused).
RowCheck = Callable[[StoredEvent], None]


def check_readable(
    rows: list[StoredEvent], lines: Mapping[int, int], path: Path, check: RowCheck | None
) -> None:
    """Refuse, by `path:LINE` (`lines`: seq -> line), the first row the fold or `check` refuses.
    A gap or a broken chain is left to the chain check (`import_check.checked_import`)."""
    from store.projections import project  # (store.log -> import_check: no cycle at import)

    last: list[StoredEvent] = []

    def each() -> Iterator[StoredEvent]:
        for stored in rows:
            last[:] = [stored]
            if check is not None:
                check(stored)
            yield stored

    try:
        project(each())
    except SequenceGapError:
        return
    except (PayloadMismatchError, ValueError, StoreError) as e:
        stored = last[0]
        raise BadExportError(f"{path}:{lines[stored.seq]}: {_why(stored, e)}") from e


def _why(stored: StoredEvent, error: Exception) -> str:
    """What is wrong with the row, as a person reads it: the field and the value, without the
    readers' "seq N: payload does not match T (edited?)" frame, which names a stored row, nor
    Python's exception class (round 26, log 018)."""
    if isinstance(error, PayloadMismatchError):
        frame = "(edited?): "
        text = str(error)
        why = text.split(frame, 1)[1] if frame in text else text
        for name in ("TypeError: ", "ValueError: "):
            why = why.removeprefix(name)
        return f"{stored.type}: {why.strip().splitlines()[0]}"
    why = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return f"not an exported event ({why})"
