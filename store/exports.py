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
from collections.abc import Iterator
from pathlib import Path

from store.errors import StoreError
from store.keyed import Head
from store.log import EventLog, StoredEvent


def export_lines(log: EventLog, run_id: str) -> Iterator[str]:
    """The run's rows (checked as every read is), then its head line."""
    # The last row of each appended batch says so, so an import keeps the run's cut points.
    ends = set(log.batch_ends(run_id))
    last: StoredEvent | None = None
    for stored in log.read(run_id):
        # The stored payload text is spliced in as it is: a long run exports without re-parsing.
        yield stored.export_line(batch_end=stored.seq in ends).decode()
        last = stored
    if last is None:
        return
    head = Head(run_id, last.seq, last.hash, None)
    if log.key is not None:
        head = log.key.signed(run_id, last.seq, last.hash)
    yield json.dumps({"head": head.to_json()}, sort_keys=True) + "\n"


def read_export(path: Path) -> tuple[list[StoredEvent], Head | None, list[int]]:
    """The rows of an export file, its head line (None when there is none), and the seqs marked
    as ends of batches (none in older exports)."""
    if not path.is_file():
        raise StoreError(f"{path}: no such file")
    rows: list[StoredEvent] = []
    batch_ends: list[int] = []
    head: Head | None = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        if head is not None:
            raise StoreError(f"{path}:{number}: a row after the head line (spliced exports?)")
        try:
            data = json.loads(line)
            if "head" in data:
                part = data["head"]
                head = Head(str(part["run_id"]), int(part["seq"]), str(part["hash"]), part["mac"])
                continue
            data["payload"] = json.dumps(data["payload"])
            if data.pop("batch_end", False) is True:
                batch_ends.append(data["seq"])
            rows.append(StoredEvent(**data))
        except (json.JSONDecodeError, TypeError, KeyError, ValueError) as e:
            raise StoreError(f"{path}:{number}: not an exported event ({e})") from e
    return rows, head, batch_ends


def import_file(log: EventLog, path: Path) -> int:
    """Import an export file into `log`; refused unless its rows end on its head line."""
    rows, head, batch_ends = read_export(path)
    if rows and head is None:
        raise StoreError(
            f"import refused: {path} has no head line after seq {rows[-1].seq} "
            "(cut short, or exported before heads existed)"
        )
    return log.import_rows(rows, batch_ends, head=head)
