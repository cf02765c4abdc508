"""The state machine table: what each trigger may do from each state."""

from __future__ import annotations

import pytest

from orchestrator.driver.machine import STAGES, validate
from orchestrator.errors import IllegalTransitionError


def test_each_stage_advances_to_the_next_only_with_a_passed_gate() -> None:
    chain = [*STAGES, "completed"]
    for source, dest in zip(chain, chain[1:], strict=False):
        assert validate(source, "advance", gate_passed=True).dest == dest
        with pytest.raises(IllegalTransitionError, match="gate has not passed"):
            validate(source, "advance", gate_passed=False)


def test_a_rollback_is_not_a_state_change() -> None:
    # Policies roll back inside the RL stages (RolledBack events); the machine has no such trigger.
    with pytest.raises(IllegalTransitionError, match="unknown trigger 'rollback'"):
        validate("rlvr_optimization", "rollback", target="rlvr_optimization")


def test_terminal_states_accept_nothing() -> None:
    for state in ("completed", "failed"):
        for trigger in ("start", "advance", "pause", "fail", "resume"):
            with pytest.raises(IllegalTransitionError):
                validate(state, trigger, gate_passed=True, target="evaluation")


def test_unknown_triggers_are_named() -> None:
    with pytest.raises(IllegalTransitionError, match="unknown trigger 'jump'"):
        validate("created", "jump")
