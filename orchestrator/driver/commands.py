"""Command handlers: load and fold a run's log, validate with the state machine, append.

A refused command appends nothing. Every append names the `seq` it expects to be last, so two
drivers racing on one run cannot interleave: the loser gets `ConcurrencyError`.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from orchestrator.config import RunConfig, config_hash
from orchestrator.driver.machine import validate
from orchestrator.driver.observers import UNOBSERVED, Observers
from orchestrator.errors import ConfigError, OrchestratorError
from orchestrator.logging import redact
from store.errors import StoreError
from store.events import Event, RunStarted, StateChanged
from store.log import EventLog, StoredEvent
from store.projections import RunState
from store.snapshots import fold_run


def new_run_id(run_name: str) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return f"{run_name}-{stamp}-{secrets.token_hex(2)}"


# What folding a broken run may raise: the store's errors (an unknown schema version, a gap) and
# the shape errors of a malformed payload. Readers of many runs name such a run and carry on.
# RecursionError: a fold that met a row sending it back to itself (a hand-made rewind: round 29)
# names no seq, but is still one broken run, not the end of a supervisor's pass over the store.
BROKEN_RUN_ERRORS = (StoreError, OrchestratorError, KeyError, TypeError, ValueError, RecursionError)


def load_state(log: EventLog, run_id: str) -> RunState:
    """The run's state, folded from its newest usable snapshot."""
    log.require(run_id)
    return fold_run(log, run_id)


def data_digest(config: RunConfig) -> str | None:
    """sha256 of the run's task file (`data.data_path`), None for generated tasks."""
    from store.blobs import sha256_file

    path = config.data.data_path
    if not path:
        return None
    try:
        return sha256_file(Path(path))
    except OSError as e:  # swapped for a FIFO or a folder since check_data read it
        raise ConfigError(f"data.data_path {path}: cannot read: {e.strerror or e}") from e


def start_run(
    log: EventLog,
    config: RunConfig,
    *,
    config_path: str | None = None,
    overrides: Sequence[str] = (),
    run_id: str | None = None,
    observers: Observers = UNOBSERVED,
) -> tuple[str, list[StoredEvent]]:
    """Record the resolved config (secrets redacted) and its hash as the run's first event."""
    observers.refuse(config)  # a sink it cannot feed: refused, not started
    run_id = run_id or new_run_id(config.run_name)
    started = RunStarted(
        config=redact(config.model_dump(mode="json")),
        config_hash=config_hash(config),
        hyperparameters=config.grpo.start_settings().values(),
        config_path=config_path,
        overrides=[str(redact(o)) for o in overrides],
        data_digest=data_digest(config),
    )
    return run_id, log.append(run_id, [started], expected_seq=0)


def transition(
    log: EventLog,
    run_id: str,
    trigger: str,
    *,
    state: RunState | None = None,
    gate_passed: bool | None = None,
    target: str | None = None,
    reason: str = "",
    before: Sequence[Event] = (),
    after: Sequence[Event] = (),
    drain_requests: bool = False,
) -> list[StoredEvent]:
    """Validate `trigger` against the folded state, then append `before + [StateChanged] + after`
    in one transaction. Raises `IllegalTransitionError` (nothing appended) when it may not fire.
    `drain_requests`: the caller holds the run's lease (see `EventLog.append`)."""
    state = state if state is not None else load_state(log, run_id)
    move = validate(state.state, trigger, gate_passed=gate_passed, target=target)
    changed = StateChanged(trigger=move.trigger, source=move.source, dest=move.dest, reason=reason)
    return log.append(
        run_id, [*before, changed, *after], expected_seq=state.last_seq,
        drain_requests=drain_requests,
    )  # fmt: skip
