"""The contract between the policies and the runner that acts on them.

A policy returns `Decision`s; the runner appends each as a `PolicyDecided` event before acting on
it, so the log says what was decided, on which evidence, before anything happened. The first of
`evidence_seqs` is always the `seq` of the event the decision was taken on: `rlvr replay` pairs
logged decisions with recomputed ones through it.

Actions and their parameters (what the runner must do):

- `rollback`: restore model weights and optimizer state from `parameters["checkpoint"]` (saved at
  `to_step`), then append `RolledBack(from_step, to_step, checkpoint)`. Hyper-parameters stay as
  the log says now (`RunState.hyperparameters`), not as they were at the checkpoint. The step
  counter stays monotonic: training continues at `from_step + 1`.
- `adjust_hyperparameters`: `parameters` is the change set (absolute new values of settings
  named in store/settings.py); append `HyperparametersChanged(changes=parameters)`: from the next
  step on they are in force (the log's fold).
- `skip_update`: discard the update of `parameters["step"]` (no checkpoint from it).
- `retry_step`: run `parameters["step"]` again as attempt `parameters["attempt"]` after waiting
  `parameters["backoff_s"]` seconds.
- `retry_smaller_microbatch`: run `parameters["step"]` again as attempt `parameters["attempt"]`,
  splitting the same effective batch into `parameters["micro_batches"]` micro-batches (append
  `HyperparametersChanged` of `micro_batches`: in force for the retry and the steps after it).
- `pause`: stop at this safe point and move the run to `paused` with `reason`.
- `fail`: move the run to `failed` with `reason` (a budget ran out, or nothing is left to try).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from store.events import PolicyDecided

Action = Literal[
    "rollback",
    "adjust_hyperparameters",
    "skip_update",
    "retry_step",
    "retry_smaller_microbatch",
    "pause",
    "fail",
]

# After one of these, no later policy looks at the same event: the step is void or the run stops.
EXCLUSIVE_ACTIONS = frozenset(
    {"skip_update", "retry_step", "retry_smaller_microbatch", "pause", "fail"}
)


class Decision(BaseModel):
    """What one policy decided on one event, with the number and threshold that made it."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    policy: str = Field(description="Which policy decided: rollback, kl, entropy or faults.")
    action: Action = Field(description="What the runner must do; see the module docstring.")
    trigger_metric: str = Field(description="The metric that triggered the decision.")
    value: float | None = Field(description="The metric's value (None when it was non-finite).")
    threshold: float | None = Field(description="The threshold it crossed, when there is one.")
    evidence_seqs: list[int] = Field(
        default_factory=list,
        description="Seqs of the events decided on; the first is the event that triggered it.",
    )
    parameters: dict[str, Any] = Field(
        default_factory=dict, description="The action's arguments (JSON-native values only)."
    )
    reason: str = Field("", description="One sentence a person reads in `rlvr why` and the log.")

    def to_event(self) -> PolicyDecided:
        return PolicyDecided(**self.model_dump())

    @classmethod
    def from_event(cls, event: PolicyDecided) -> Decision:
        return cls.model_validate(event.model_dump())

    def brief(self) -> str:
        """One line for tables: `kl: adjust_hyperparameters [kl 0.15 vs 0.1] (learning_rate=5e-05)`."""
        params = ", ".join(f"{k}={_short(v)}" for k, v in sorted(self.parameters.items()))
        trigger = f" [{self.trigger_metric} {_short(self.value)} vs {_short(self.threshold)}]"
        return f"{self.policy}: {self.action}{trigger}" + (f" ({params})" if params else "")


def _short(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, str) and len(value) > 12:
        return value[:12]
    return str(value)
