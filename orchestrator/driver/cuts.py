"""Cut points named by training step: `rlvr branch RUN --at-step N`, `rlvr resume RUN --at-step N`.

People think in steps; the log cuts at batch ends. The end of step N is the end of the last batch
that holds a row of step N (its rollouts and metrics, then its scheduled checkpoint and eval) in
the history the run kept (spans a rewind abandoned are skipped). Step 0 is the end of the last
batch before the first training step.
"""

from __future__ import annotations

from orchestrator.errors import UsageError
from store.log import EventLog
from store.rewinds import Rewinds

_STEP_ROWS = ["MetricsRecorded", "CheckpointSaved", "EvalRecorded"]


def seq_after_step(log: EventLog, run_id: str, step: int) -> int:
    """The seq that ends step `step` of the run; `UsageError` when the run never reached it.
    Reads the step rows up to the first one past `step`, not the whole log."""
    if step < 0:
        raise UsageError(f"--at-step {step}: steps count from 0")
    rewinds = Rewinds.of(log.read(run_id, types=["RunRewound"]))
    last_of_step, first_after, reached = None, None, 0
    for row in log.read(run_id, types=_STEP_ROWS):
        if rewinds.abandoned_by(row.seq) is not None:
            continue
        # checked as its event's schema says (a `step` of `[7]` is refused naming its seq, red
        # team round 16), not coerced with int()
        at = row.checked_fields()["step"]
        if at > step:
            first_after = row.seq
            break
        reached = max(reached, at)
        if at == step:
            last_of_step = row.seq
    if step == 0 and first_after is not None:
        cut = log.cut_at(run_id, first_after - 1)  # the end of the batch before step 1's
        return cut.seq
    if last_of_step is None:
        raise UsageError(
            f"--at-step {step}: run {run_id} has no step {step} "
            + (f"(its last step is {reached})" if reached else "(it has not trained yet)")
        )
    end = next((end for end in log.batch_ends(run_id) if end >= last_of_step), None)
    # No boundary recorded past it (an old log): the cut rule says what it can do there.
    return end if end is not None else log.cut_at(run_id, last_of_step).seq
