"""A follower of one run's log that keeps, in memory, where each step's rows are: the seq of every
`MetricsRecorded` (a step's rollouts and verdicts are appended in the batch before it, after the
previous step's metrics), the running step the why-index uses, and the rewinds. It reads only the
rows after its position, so the run page's increments and the step view never scan the log."""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections.abc import Iterable

from store.log import EventLog, StoredEvent
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

    def take(self, rows: Iterable[StoredEvent], through: int) -> None:
        """Take in `rows` (the index's types among seqs after `position` up to `through`)."""
        with self.lock:
            for row in rows:
                if row.seq <= self.position:
                    continue
                if row.type == "MetricsRecorded":
                    step = int(row.fields()["step"])
                    top = max(step, self.running_step[-1]) if self.running_step else step
                    self.metric_seqs.append(row.seq)
                    self.running_step.append(top)
                    self.by_step.setdefault(step, []).append(row.seq)
                elif row.type == "RunRewound":
                    self.rewinds.append((row.seq, int(row.fields()["to_seq"])))
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
    end = log.last_seq(run_id) if through is None else through
    if end < index.position:  # the run was recreated under the same id: start again
        with _GUARD:
            index = _INDEXES[(str(log.url), run_id)] = StepIndex()
    if index.position < end:
        first = index.position + 1
        index.take(log.read(run_id, from_seq=first, to_seq=end, types=INDEX_TYPES), end)
    return index
