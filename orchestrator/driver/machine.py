"""The run's state machine, declared as data for `transitions.Machine`.

The machine only validates: given the state the log folds to, may this trigger fire (with this gate
result / target)? It never performs side effects; the command handler appends the `StateChanged`
event, and the state is whatever the log says. (transitions does not undo a state change when a
callback raises, which is why nothing here has callbacks.) A rollback or an early stop is not a
state change: the RL stages record them as events and stay where they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transitions import Machine, MachineError

from orchestrator.errors import IllegalTransitionError

STAGES: tuple[str, ...] = (
    "sft_preparation",
    "task_design",
    "verification",
    "data_generation",
    "rlvr_optimization",
    "iterative_training",
    "evaluation",
)
TERMINAL: tuple[str, ...] = ("completed", "failed")
STATES: tuple[str, ...] = ("created", *STAGES, *TERMINAL, "paused")


def _transition_table() -> list[dict[str, Any]]:
    table: list[dict[str, Any]] = [
        {"trigger": "start", "source": "created", "dest": STAGES[0]},
    ]
    # Forward: each stage advances to the next only when its gate passed.
    for source, dest in zip(STAGES, (*STAGES[1:], "completed"), strict=True):
        table.append(
            {"trigger": "advance", "source": source, "dest": dest, "conditions": "gate_passed"}
        )
    live = ["created", *STAGES]
    table.append({"trigger": "pause", "source": live, "dest": "paused"})
    table.append({"trigger": "fail", "source": [*live, "paused"], "dest": "failed"})
    for stage in ["created", *STAGES]:
        table.append(
            {
                "trigger": "resume",
                "source": "paused",
                "dest": stage,
                "conditions": "targets_" + stage,
            }
        )
    return table


TRANSITIONS: list[dict[str, Any]] = _transition_table()
TRIGGERS: tuple[str, ...] = tuple(dict.fromkeys(t["trigger"] for t in TRANSITIONS))


class _Validator:
    """The model object `transitions` drives; its conditions read the trigger's keyword args."""

    def __init__(self) -> None:
        for stage in ["created", *STAGES]:
            setattr(self, "targets_" + stage, lambda target=None, _s=stage, **_: target == _s)

    @staticmethod
    def gate_passed(gate_passed: bool | None = None, **_: Any) -> bool:
        return gate_passed is True


@dataclass(frozen=True)
class Move:
    trigger: str
    source: str
    dest: str


def validate(
    state: str, trigger: str, *, gate_passed: bool | None = None, target: str | None = None
) -> Move:
    """Where `trigger` takes a run in `state`; `IllegalTransitionError` when it may not fire."""
    if state not in STATES:
        raise IllegalTransitionError(f"unknown state {state!r}")
    if trigger not in TRIGGERS:
        raise IllegalTransitionError(f"unknown trigger {trigger!r} (known: {', '.join(TRIGGERS)})")
    model = _Validator()
    machine = Machine(
        model=model,
        states=list(STATES),
        transitions=TRANSITIONS,
        initial=state,
        auto_transitions=False,
        ignore_invalid_triggers=False,
    )
    try:
        moved = model.trigger(trigger, gate_passed=gate_passed, target=target)
    except MachineError as e:
        allowed = sorted(machine.get_triggers(state))
        raise IllegalTransitionError(
            f"cannot {trigger!r} from state {state!r} (allowed here: {', '.join(allowed) or 'none'})"
        ) from e
    if not moved:
        why = (
            "its gate has not passed"
            if trigger == "advance"
            else f"target {target!r} is not allowed"
        )
        raise IllegalTransitionError(f"cannot {trigger!r} from state {state!r}: {why}")
    return Move(trigger, state, model.state)
