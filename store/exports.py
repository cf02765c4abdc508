"""A run as JSON lines, and back.

An export is one line per row (the last row of each appended batch marked `"batch_end": true`),
then one head line `{"head": {"run_id", "seq", "hash", "mac"}}`
naming the last row. An export cut at a line boundary loses its head line (or ends on a row the
head does not name), so it does not import. `mac` is the keyed head's HMAC when a chain key is
configured: without one, the head line only catches accidental cuts, since anyone can rewrite it.
A branch's export is its whole history: its ancestors' rows (under their run ids and chain), then
its own; it imports as a standalone run (`EventLog.import_rows`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from pydantic import ValidationError

from store.errors import BadExportError, PayloadMismatchError, StoreError
from store.events import EVENT_TYPES
from store.import_fold import RowCheck, check_readable
from store.keyed import Head
from store.log import EventLog, StoredEvent
from store.run_ids import MAX_RUN_ID, name_problem
from store.text_files import NotUTF8Error, is_utf8, jsonl_lines, read_utf8
from store.upcasters import upcast
from store.verification import payload_problem


def checked_rows(rows: Iterable[StoredEvent]) -> Iterator[StoredEvent]:
    """Each row once its payload is the canonical JSON of its event's schema, as `rlvr verify`
    checks it (`verification.payload_problem`: parsed once, re-serialised and validated, ~10 us
    for a step's `RolloutsSampled` row): a row the code never wrote, its chain recomputed (not
    JSON, a count stored as text, a key given twice: round 19, log 007/008), is refused naming its
    seq, never handed out as it is."""
    for stored in rows:
        why = payload_problem(stored)
        if why is not None:
            raise PayloadMismatchError(
                f"run {stored.run_id}: seq {stored.seq}: {stored.type}: {why}"
            )
        yield stored


def export_lines(log: EventLog, run_id: str) -> Iterator[str]:
    """The run's rows (their chain checked as every read checks it, each payload against its
    schema), then its head line."""
    # The last row of each appended batch says so, so an import keeps the run's cut points.
    ends = set(log.batch_ends(run_id, cut=False))  # the importer re-signs them
    last: StoredEvent | None = None
    marked: list[int] = []
    for stored in checked_rows(log.read(run_id)):
        # The stored payload text (checked, canonical) is spliced in as it is: not re-serialised.
        yield stored.export_line(batch_end=stored.seq in ends).decode()
        last = stored
        if stored.seq in ends:
            marked.append(stored.seq)
    if last is None:
        return
    head = Head(run_id, last.seq, last.hash, None)
    if log.key is not None:  # with the key, only signed boundaries, and the marks signed too
        head = log.key.signed(run_id, last.seq, last.hash)
        head = replace(head, ends_mac=log.key.ends_mac(head, marked))
    yield json.dumps({"head": head.to_json()}, sort_keys=True) + "\n"


def read_export(
    path: Path, check: RowCheck | None = None
) -> tuple[list[StoredEvent], Head | None, list[int]]:
    """The rows of an export file, its head line (None when there is none), and the seqs marked
    as ends of batches (none in older exports). Every row is checked against its event's schema
    (the readers read payloads as stored), then folded as the readers fold it, and given to
    `check` (the layers above: the recorded config); a file with no row is refused: `BadExportError`
    with the file and line, before any store is written."""
    if not path.is_file():  # a FIFO or a folder is there, but is not a file to read
        raise BadExportError(
            f"{path}: " + ("not a regular file" if path.exists() else "no such file")
        )
    try:
        text = read_utf8(path)
    except NotUTF8Error as e:
        raise BadExportError(str(e)) from e
    except OSError as e:
        raise BadExportError(f"{path}: cannot read: {e.strerror or e}") from e
    rows: list[StoredEvent] = []
    batch_ends: list[int] = []
    head: Head | None = None
    seen: dict[int, int] = {}  # seq -> the line that holds it
    for number, line in enumerate(jsonl_lines(text), start=1):
        if not line.strip():
            continue
        if head is not None:
            raise BadExportError(f"{path}:{number}: a row after the head line (spliced exports?)")
        try:
            data = json.loads(line)
            if not isinstance(data, dict):  # `[1]` or `"row"`: no field to read (round 19)
                raise ValueError(f"a JSON {type(data).__name__}, not an object")
            if "head" in data:
                head = _head(data["head"])
                continue
            _check_schema(data)
            _check_once(data["seq"], seen, number)
            data["payload"] = json.dumps(data["payload"])
            if data.pop("batch_end", False) is True:
                batch_ends.append(data["seq"])
            rows.append(StoredEvent(**data))
        except RecursionError as e:  # the decoder recurses per level of nesting
            raise BadExportError(
                f"{path}:{number}: not an exported event (nested too deeply)"
            ) from e
        except (
            json.JSONDecodeError,
            TypeError,
            KeyError,
            ValueError,
            OverflowError,
            StoreError,
        ) as e:
            raise BadExportError(
                f"{path}:{number}: not an exported event ({_first_line(e)})"
            ) from e
    if not rows:
        raise BadExportError(f"{path}: no events to import (an empty export)")
    check_readable(rows, seen, path, check)
    return rows, head, batch_ends


# A head line's fields and their types: the head's seq went through int(), so 54.9 was read as
# 54 and 1e999 (inf) raised OverflowError past every handler (red team round 19, log 003/005).
_HEAD_TYPES = {"run_id": (str,), "seq": (int,), "hash": (str,), "mac": (str, type(None)),
               "ends_mac": (str, type(None))}  # fmt: skip


def _head(part: object) -> Head:
    """An export's head line, each field of its type (a seq is a whole number, never converted)."""
    if not isinstance(part, dict):
        raise ValueError("its head is not a JSON object")
    for field, kinds in _HEAD_TYPES.items():
        value = part.get(field)
        if field != "ends_mac" and field not in part or type(value) not in kinds:
            kind = "a whole number" if field == "seq" else "text"
            raise ValueError(f"its head's {field} must be {kind} (got {value!r:.40})")
    return Head(part["run_id"], part["seq"], part["hash"], part["mac"], part.get("ends_mac"))


def _check_once(seq: int, seen: dict[int, int], number: int) -> None:
    """A seq on one line only, after the seqs before it: an export with a line written twice was refused as "seq 21 is
    missing (next is 20)", naming a row that is there, not the repeated one (red team round 18)."""
    if seq in seen:
        raise ValueError(f"seq {seq} again (first on line {seen[seq]}): a repeated row")
    last = next(reversed(seen), None)  # an export's seqs only grow, a branch's ancestors' too
    if last is not None and seq < last:
        raise ValueError(f"seq {seq} after seq {last} (line {seen[last]}): rows out of order")
    seen[seq] = number


# A row's own columns and their types (its payload is `_check_schema`'s): a `recorded_at` of
# `["2026"]`, hashed into a recomputed chain, passed the schema check and crashed the store's
# insert after the store was created (red team round 16, log 021).
_COLUMN_TYPES = {"run_id": str, "seq": int, "type": str, "schema_version": int,
                 "recorded_at": str, "prev_hash": str, "hash": str}  # fmt: skip


def _check_schema(data: dict) -> None:
    """A row's columns of their types, and its payload as its event type and version say it must
    be: known type and version, every field present (a reader takes them from the stored
    payload), each of its type."""
    for column, kind in _COLUMN_TYPES.items():
        value = data.get(column)
        if type(value) is not kind:
            raise ValueError(f"its {column} must be {'text' if kind is str else 'an integer'}")
        if kind is str and not is_utf8(value):
            # a lone surrogate (`"\ud800"` in the file) hashed into a UnicodeEncodeError that named
            # no file or line (red team round 20, log 001/002)
            raise ValueError(f"its {column} is not UTF-8 text (a lone surrogate)")
    problem = name_problem(data["run_id"], MAX_RUN_ID)
    if problem is not None:  # named by its line, as every other refusal (round 26, log 031)
        raise ValueError(f"invalid run id {data['run_id']!r:.80}: {problem}")
    payload = data["payload"]
    if not isinstance(payload, dict):
        raise ValueError("its payload is not a JSON object")
    kind, version = data["type"], data["schema_version"]
    if not isinstance(kind, str) or type(version) is not int:
        raise ValueError("its type must be a string and its schema_version an integer")
    current = upcast(kind, version, dict(payload))
    cls = EVENT_TYPES[kind]
    missing = sorted(set(cls.model_fields) - set(current))
    if missing:
        raise ValueError(f"{kind} without {', '.join(missing)}")
    try:
        # Strict, as JSON: a `step` stored as the text "165" is refused here (lax validation let it
        # in, and every reader that compares steps then raised a TypeError).
        cls.model_validate_json(json.dumps(current), strict=True, context={"seq": data["seq"]})
    except ValidationError as e:
        problem = e.errors()[0]
        where = ".".join(str(p) for p in problem["loc"])
        field = f"{kind}.{where}" if where else kind  # (a whole-row check names no field)
        raise ValueError(f"{field}: {problem['msg']}, at seq {data['seq']}") from e


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def import_file(
    log: EventLog,
    path: Path,
    export: tuple[list[StoredEvent], Head | None, list[int]] | None = None,
) -> int:
    """Import an export file into `log`; refused unless its rows end on its head line.
    `export`: the file as `read_export` read it already (the CLI checks it before it opens, and
    so creates, a store)."""
    rows, head, batch_ends = export if export is not None else read_export(path)
    if rows and head is None:
        raise StoreError(
            f"import refused: {path} has no head line after seq {rows[-1].seq} "
            "(cut short, or exported before heads existed)"
        )
    return log.import_rows(rows, batch_ends, head=head)
