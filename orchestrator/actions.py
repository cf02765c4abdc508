"""Lifecycle actions the command line and the console share: preview and start a branch, resume a
run, ask a run to pause. Each goes through the lifecycle code `rlvr branch` / `rlvr resume` use
(orchestrator/driver/lifecycle.py) and the rule for writing to a run another process drives
(orchestrator/driver/outside_writes.py).

A driver the console starts runs `rlvr resume RUN` in a process of its own session
(`start_new_session`), its output in the run directory, so it outlives the console.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from orchestrator.config import check_data, override_path
from orchestrator.config_schema import flat_values, value_text
from orchestrator.driver.commands import load_state, transition
from orchestrator.driver.lifecycle import branch, branch_point, config_of, validate_overrides
from orchestrator.driver.outside_writes import append_or_queue
from orchestrator.errors import ConfigError, OrchestratorError
from store.events import PauseRequested, RunPaused
from store.log import EventLog, StoredEvent
from store.projections import RunState
from store.run_ids import run_path
from store.text_files import open_appending

DETACHED_LOG = "detached.log"  # in the run directory: what a driver the console started printed


@dataclass(frozen=True)
class ConfigChange:
    key: str
    before: str
    after: str


@dataclass(frozen=True)
class BranchPreview:
    """What `start_branch` would do: the cut, the overrides as `key=value`, the config keys they
    change, and the errors (by field: `at`, a config key, or `overrides` for the whole set)."""

    run_id: str
    at_seq: int
    overrides: list[str]
    changes: list[ConfigChange] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "at_seq": self.at_seq, "overrides": self.overrides,
            "changes": [vars(c) for c in self.changes], "errors": self.errors,
            "notes": self.notes, "ok": self.ok,
        }  # fmt: skip


def override_items(overrides: Mapping[str, Any]) -> list[str]:
    """`{"grpo.learning_rate": "5e-5"}` as the command line's `key=value` items (a JSON value
    that is not a string is written as TOML reads it back)."""
    items = []
    for key, value in overrides.items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, str):
            text = value
        else:
            text = json.dumps(value)
        items.append(f"{str(key).strip()}={text}")
    return items


def preview_branch(
    log: EventLog, run_id: str, at_seq: int, overrides: Mapping[str, Any]
) -> BranchPreview:
    """Validate a branch of `run_id` at `at_seq` with `overrides` through the config schema, as
    `rlvr branch` does, and list the config keys it changes; nothing is written."""
    items = override_items(overrides)
    notes: list[str] = []
    try:
        at_seq, state = branch_point(log, run_id, at_seq, notes.append)
    except OrchestratorError as e:
        return BranchPreview(run_id, at_seq, items, errors={"at": str(e)})
    errors: dict[str, str] = {}
    for key, item in zip(overrides, items, strict=True):
        try:
            override_path(item)
            validate_overrides(state, [item])
        except ConfigError as e:
            errors[str(key)] = str(e)
    if not errors:
        try:
            validate_overrides(state, items)  # the fields together (a min < max pair)
        except ConfigError as e:
            errors["overrides"] = str(e)
    if errors:
        return BranchPreview(run_id, at_seq, items, errors=errors, notes=notes)
    return BranchPreview(run_id, at_seq, items, _changes(state, items), notes=notes)


def _changes(state: RunState, items: list[str]) -> list[ConfigChange]:
    before = flat_values(config_of(state).model_dump(mode="json"))
    branched = replace(state, config_overrides=(*state.config_overrides, *items))
    after = flat_values(config_of(branched).model_dump(mode="json"))
    return [
        ConfigChange(key, value_text(before.get(key)), value_text(value))
        for key, value in after.items()
        if before.get(key) != value
    ]


class BranchRefused(ConfigError):
    """A branch whose cut or overrides do not validate; `preview.errors` names each field."""

    def __init__(self, preview: BranchPreview) -> None:
        super().__init__("; ".join(preview.errors.values()))
        self.preview = preview


@dataclass(frozen=True)
class Started:
    """A driver started in a process of its own: the run it drives and where its output goes."""

    run_id: str
    pid: int
    output: Path
    at_seq: int | None = None


def start_branch(log: EventLog, run_id: str, at_seq: int, overrides: Mapping[str, Any]) -> Started:
    """`rlvr branch RUN --at SEQ key=value ...` with its driver detached: the branch is written
    here (refused with `ConfigError` naming the field, nothing written), then driven by
    `rlvr resume CHILD` in a process that outlives the caller."""
    preview = preview_branch(log, run_id, at_seq, overrides)
    if not preview.ok:
        raise BranchRefused(preview)
    child, at = branch(log, run_id, preview.at_seq, preview.overrides, say=lambda line: None)
    return replace(_detached(log, child, load_state(log, child)), at_seq=at)


def start_resume(log: EventLog, run_id: str) -> Started:
    """`rlvr resume RUN` in a process that outlives the caller; refused here (nothing started)
    when the run finished or a live driver holds it."""
    from orchestrator.driver.lease import holder_is_dead
    from store.leases import LeaseTable

    state = load_state(log, run_id)
    if state.finished:
        raise OrchestratorError(
            f"run {run_id} is {state.state}; use `rlvr resume {run_id} --from SEQ` or `rlvr branch`"
        )
    holder = LeaseTable(log).live_holder(run_id, holder_is_dead)  # a damaged row: refused
    if holder is not None:
        raise OrchestratorError(f"run {run_id} is being driven by {holder}")
    check_data(config_of(state))  # a task file gone bad: refused here, not in the log file
    return _detached(log, run_id, state)


def _detached(log: EventLog, run_id: str, state: RunState) -> Started:
    run_dir = run_path(Path(config_of(state).log_path), run_id)
    run_dir.mkdir(parents=True, exist_ok=True)
    output = run_dir / DETACHED_LOG
    with open_appending(output) as sink:  # a FIFO there: refused, not waited on
        # The store's URL travels in the environment, not argv (a password stays out of `ps`).
        job = subprocess.Popen(
            # `--asked-at-seq`: a pause recorded after this point (while the child starts) wins.
            [sys.executable, "-m", "orchestrator", "resume", run_id,
             "--asked-at-seq", str(state.last_seq)],
            stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
            start_new_session=True, env={**os.environ, "RLVR_STORE": log.target},
        )  # fmt: skip
    # Reaped when it ends (no zombie in a long-lived console); it does not end with us.
    threading.Thread(target=job.wait, daemon=True, name=f"reap {run_id}").start()
    return Started(run_id, job.pid, output)


@dataclass(frozen=True)
class PauseOutcome:
    run_id: str
    rows: list[StoredEvent] = field(default_factory=list)  # the pause, when written now
    queued_for: str | None = None  # the live driver that pauses at its next batch
    already: str | None = None  # the run was paused already: why

    def said(self) -> str:
        if self.queued_for is not None:
            return (
                f"run {self.run_id} is being driven by {self.queued_for}: it pauses at its next "
                "batch (the request is queued for it)"
            )
        if self.already is not None:
            return (
                f"run {self.run_id} is paused already ({self.already}); the request is recorded: "
                "a resume started before it pauses again at its first batch"
            )
        seq = next((r.seq for r in self.rows if r.type == "RunPaused"), None)
        return (
            f"run {self.run_id} paused (recorded at seq {seq}); "
            f"continue with: rlvr resume {self.run_id}"
        )


def request_pause(log: EventLog, run_id: str, reason: str, by: str) -> PauseOutcome:
    """Ask `run_id` to pause. A live driver is sent a queued `PauseRequested` and pauses after
    the batch that appends it; a run no driver holds is paused now, in one transaction under its
    lease. A finished run: `OrchestratorError`, nothing written."""
    state = load_state(log, run_id)
    if state.finished:
        raise OrchestratorError(f"run {run_id} is {state.state}: there is nothing to pause")
    asked = PauseRequested(by=by, reason=reason)

    def pause_now() -> list[StoredEvent]:
        now = load_state(log, run_id)  # under the lease: the log as it is now
        if now.finished:
            raise OrchestratorError(f"run {run_id} is {now.state}: there is nothing to pause")
        if now.state == "paused":
            # Recorded all the same: a resume started before it (`start_resume`'s child, not yet
            # holding the lease) reads it and pauses again at its first batch.
            return log.append(run_id, [asked], expected_seq=now.last_seq, drain_requests=True)
        why = asked.pause_reason()
        return transition(
            log, run_id, "pause", state=now, reason=why,
            before=[asked, RunPaused(reason=why)], drain_requests=True,
        )  # fmt: skip

    written = append_or_queue(log, run_id, [asked], by="pause", when_free=pause_now)
    if written.queued_for is not None:
        return PauseOutcome(run_id, queued_for=written.queued_for)
    if not any(row.type == "RunPaused" for row in written.rows):
        return PauseOutcome(run_id, rows=written.rows, already=_last_pause(log, run_id))
    return PauseOutcome(run_id, rows=written.rows)


def _last_pause(log: EventLog, run_id: str) -> str:
    from orchestrator.audit.summary import pause_reason

    return pause_reason(log, load_state(log, run_id)) or "no reason recorded"
