"""A follower of one run's log that keeps, in memory, where each step's rows are: the seq of every
`MetricsRecorded` (a step's rollouts and verdicts are appended in the batch before it, after the
previous step's metrics), the running step the why-index uses, and the rewinds. It reads only the
rows after its position, so the run page's increments and the step view never scan the log."""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections.abc import Iterable
from typing import Any

from store.log import EventLog
from store.rewinds import Rewinds

INDEX_TYPES = ("MetricsRecorded", "RunRewound")


class StepIndex:
    def __init__(self) -> None:
        self.position = 0  # the last seq this index has taken in
        self.metric_seqs: list[int] = []  # every MetricsRecorded, in seq order
        self.running_step: list[int] = []  # the highest step seen up to each of them
        self.by_step: dict[int, list[int]] = {}  # step -> the seqs of its MetricsRecorded
        self.rewinds: list[tuple[int, int]] = []  # (RunRewound seq, its to_seq)
        self.lock = threading.Lock()

    def take(self, rows: Iterable[tuple[int, str, dict[str, Any]]], through: int) -> None:
        """Take in `rows`, (seq, type, decoded payload) of the rows after `position` up to
        `through` (other types are passed over)."""
        with self.lock:
            for seq, kind, payload in rows:
                if seq <= self.position:
                    continue
                if kind == "MetricsRecorded":
                    step = int(payload["step"])
                    top = max(step, self.running_step[-1]) if self.running_step else step
                    self.metric_seqs.append(seq)
                    self.running_step.append(top)
                    self.by_step.setdefault(step, []).append(seq)
                elif kind == "RunRewound":
                    self.rewinds.append((seq, int(payload["to_seq"])))
            self.position = max(self.position, through)

    def step_at(self, seq: int) -> int:
        """The highest step the run had logged by `seq` (0 before training)."""
        at = bisect_right(self.metric_seqs, seq) - 1
        return self.running_step[at] if at >= 0 else 0

    def previous_metrics(self, seq: int) -> int:
        """The seq of the MetricsRecorded before `seq` (0: none)."""
        at = bisect_right(self.metric_seqs, seq - 1) - 1
        return self.metric_seqs[at] if at >= 0 else 0

    def spans(self) -> Rewinds:
        return Rewinds(self.rewinds)


_INDEXES: dict[tuple[str, str], StepIndex] = {}
_GUARD = threading.Lock()


def step_index(log: EventLog, run_id: str, through: int | None = None) -> StepIndex:
    """The run's index, caught up to `through` (None: the log's end) with one read of the rows
    after its position."""
    with _GUARD:
        index = _INDEXES.setdefault((str(log.url), run_id), StepIndex())
    last = log.last_seq(run_id)
    if last < index.position:  # the run was deleted and made again under its id: start again
        with _GUARD:
            index = _INDEXES[(str(log.url), run_id)] = StepIndex()
    end = last if through is None else min(through, last)
    if index.position < end:
        first = index.position + 1
        rows = log.read(run_id, from_seq=first, to_seq=end, types=INDEX_TYPES)
        index.take(((r.seq, r.type, r.fields()) for r in rows), end)
    return index
