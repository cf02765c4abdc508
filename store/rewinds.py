"""The one rule for spans abandoned by a rewind.

`RunRewound(to_seq)` appended at seq S abandons seqs `to_seq + 1 .. S - 1`: they stay in the log
(`events` and `why` show them) but no longer count. The fold applies it by re-folding
(`store.projections.project`); readers that pick rows out of the log use `Rewinds`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from store.log import StoredEvent


@dataclass(frozen=True, slots=True)
class Span:
    first: int
    last: int
    rewind_seq: int  # the RunRewound that abandoned it


class Rewinds:
    """The abandoned spans of one run's log."""

    def __init__(self, rewinds: Iterable[tuple[int, int]]) -> None:
        """`rewinds`: (seq of a RunRewound, its to_seq) pairs."""
        self.spans = [Span(to + 1, seq - 1, seq) for seq, to in sorted(rewinds) if seq - 1 > to]

    @classmethod
    def of(cls, rows: Iterable[StoredEvent | Any]) -> Rewinds:
        """The spans that the `RunRewound` rows among `rows` abandoned (stored rows, or rows whose
        `payload` is already decoded)."""
        return cls((r.seq, _payload(r)["to_seq"]) for r in rows if r.type == "RunRewound")

    def as_tuples(self) -> list[tuple[int, int, int]]:
        return [(s.first, s.last, s.rewind_seq) for s in self.spans]

    def abandoned_by(self, seq: int) -> int | None:
        """The seq of the rewind that abandoned `seq`, or None when it counts."""
        for span in self.spans:
            if span.first <= seq <= span.last:
                return span.rewind_seq
        return None

    def kept(self, rows: Iterable[StoredEvent]) -> list[StoredEvent]:
        """`rows` without the abandoned ones."""
        if not self.spans:
            return list(rows)
        return [r for r in rows if self.abandoned_by(r.seq) is None]


def _payload(row: Any) -> dict[str, Any]:
    return orjson.loads(row.payload) if isinstance(row.payload, str | bytes) else row.payload
