"""`rlvr replay RUN [--config other.toml] [key=value ...]`: counterfactual policy replay.

Folds an existing log event by event and, at every event the runner evaluates policies on
(`policies.engine.TRIGGER_TYPES`), asks `decide_all` what the given settings would decide. Each
logged `PolicyDecided` is paired with the event it was decided on (its first evidence seq). With the
run's own settings the two columns must be identical; with other settings they show where the run
would have gone differently. No training, no writes.

It first lists the GRPO settings the run trained with (the recorded config, with a branch's
overrides): the loss and sampling options that no policy changes. The tunable ones start there and
change only by the `HyperparametersChanged` events the table shows.

Caveat: the log is one trajectory. Once the replayed settings decide something the run did not (or
the reverse), the later events no longer show what those settings would have caused.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from orchestrator.errors import ConfigError, OrchestratorError
from orchestrator.terminal import plain
from policies import reward_health
from policies.config import PolicyConfig
from policies.engine import TRIGGER_TYPES, decide_all
from policies.types import Decision
from store.events import PolicyDecided
from store.log import EventLog, StoredEvent
from store.projections import (
    RunState,
    decoded_payload,
    fold_checked_before,
    fold_in_place,
    project,
)

CAVEAT = (
    "Counterfactual caveat: decisions are evaluated on the recorded trajectory only. After the "
    "first difference the log no longer reflects what these settings would have caused (a "
    "rollback not taken, a learning rate not lowered), so later rows are indicative."
)


@dataclass(frozen=True)
class ReplayRow:
    """One event that a decision was (or would have been) taken on."""

    seq: int
    step: int
    event_type: str
    would: tuple[Decision, ...]
    decided: tuple[Decision, ...]

    @property
    def same(self) -> bool:
        # Decided on the same event, the same way: the evidence past the trigger may differ (the
        # KL policy cites every step of its mean since issue 29; older logs cite fewer).
        return [_decided_on(d) for d in self.would] == [_decided_on(d) for d in self.decided]


def _decided_on(decision: Decision) -> Decision:
    return decision.model_copy(update={"evidence_seqs": decision.evidence_seqs[:1]})


def replay(
    events: Iterable[StoredEvent],
    config: PolicyConfig,
    state_at: Callable[[int], RunState] | None = None,
    seen_metrics: set[str] | None = None,
    checked_to: int = 0,
) -> list[ReplayRow]:
    """Rows, in seq order, for every trigger event where `config` would decide something or the
    log holds a decision. `events` is a whole run's log from seq 1; `state_at(seq)` folds its
    prefix again after a rewind (without it the events are kept in memory for that). The names of
    every metric the log recorded go into `seen_metrics` (what a rule's inputs are checked on).
    `checked_to`: the seq of a usable snapshot, up to which rows were checked by the fold that
    wrote it (`fold_checked_before`)."""
    state = RunState()
    history: list[StoredEvent] = []
    points: dict[int, tuple[str, int]] = {}  # trigger seq -> (type, step)
    would: dict[int, list[Decision]] = {}
    decided: dict[int, list[Decision]] = {}
    for stored in events:
        if state_at is None:
            history.append(stored)
        # The policies read a trigger row's metrics as numbers: one that is not (a row the code
        # never wrote) is refused by its seq in the fold (its hand check of a step's metrics, the
        # event's schema for any other row), never a TypeError deep in a policy.
        if stored.type == "RunRewound":
            # A rewind re-folds the kept prefix; `project` knows how.
            state = project([stored], state, state_at) if state_at else project(history)
        elif stored.seq <= checked_to:
            fold_checked_before(state, stored)
        else:
            # The fold is private to this loop, and the policies keep no reference to a state.
            fold_in_place(state, stored)
        if seen_metrics is not None and stored.type == "MetricsRecorded":
            seen_metrics.update(state.last_metrics)
        if stored.type in TRIGGER_TYPES:
            points[stored.seq] = (stored.type, _step_of(stored, state))
            decisions = decide_all(state, stored, config)
            if decisions:
                would[stored.seq] = decisions
        elif stored.type == "PolicyDecided":
            event = stored.event
            assert isinstance(event, PolicyDecided)
            decision = _recorded_decision(stored.seq, event)
            cited = decision.evidence_seqs[0] if decision.evidence_seqs else None
            key = cited if cited in points else stored.seq
            points.setdefault(key, ("PolicyDecided (no trigger cited)", state.step))
            decided.setdefault(key, []).append(decision)
    return [
        ReplayRow(
            seq,
            points[seq][1],
            points[seq][0],
            tuple(would.get(seq, ())),
            tuple(decided.get(seq, ())),
        )
        for seq in sorted(set(would) | set(decided))
    ]


def _recorded_decision(seq: int, event: PolicyDecided) -> Decision:
    """The decision the log recorded at `seq`; one a later or foreign policy wrote with an action
    this version does not know cannot be set beside today's rules: one error line naming it."""
    try:
        return Decision.from_event(event)
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        raise OrchestratorError(
            f"seq {seq}: PolicyDecided {field} {first.get('input')!r} is not one this version of "
            f"the policies knows ({first['msg']}): the run cannot be replayed against them"
        ) from e


def _step_of(trigger: StoredEvent, state: RunState) -> int:
    """The trigger event's own step. The fold has just read a step's metrics into the window's
    last entry and an eval into `last_eval`; anything else is decoded again (its JSON, no
    pydantic model: this runs on every step of a long run)."""
    window = state.metrics_window
    if window and window[-1].seq == trigger.seq:
        return window[-1].step
    if state.last_eval.get("seq") == trigger.seq:
        return state.last_eval["step"]
    return decoded_payload(trigger).get("step", state.step)


def identical(rows: Iterable[ReplayRow]) -> bool:
    return all(row.same for row in rows)


def policy_config_for(
    recorded: dict[str, Any], path: Path | None, overrides: list[str]
) -> PolicyConfig:
    """The settings to replay with: a TOML file's (with overrides), else the run's recorded config
    (with overrides)."""
    # The whole config schema (every stage's settings) is imported only when something needs
    # resolving: replaying a run under its own recorded settings does without it.
    if path is not None:
        from orchestrator.config import load_config

        return load_config(path, overrides).policies
    data = copy.deepcopy(recorded)
    if overrides:
        from orchestrator.config import apply_overrides, non_finite

        data = apply_overrides(data, overrides)
        # Only an override can bring one in: the recorded config is JSON, which has no inf/nan.
        bad = non_finite(data.get("policies", {}))
        if bad is not None:
            where = ".".join(("policies", *bad[0]))
            raise ConfigError(f"{where}: must be a finite number (got {bad[1]!r})")
    policies = data.get("policies", {})
    try:
        return PolicyConfig.model_validate(policies, strict=True)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in ("policies", *first["loc"]))
        raise ConfigError(f"{where}: {first['msg']} (got {first.get('input')!r})") from e


def grpo_settings(recorded: dict[str, Any], branched: list[str]) -> dict[str, Any]:
    """The run's GRPO settings, flattened (`sampling.temperature`), as recorded and branched."""
    grpo = copy.deepcopy(recorded).get("grpo", {})
    if branched:
        from orchestrator.config import apply_overrides

        grpo = apply_overrides(copy.deepcopy(recorded), branched).get("grpo", {})
    if not isinstance(grpo, dict):  # a recorded `grpo = "x"`, or one a branch override set
        raise ConfigError(
            f"seq 1: the recorded config's grpo section is {type(grpo).__name__} {grpo!r:.40}, "
            "not a table: the run cannot be replayed"
        )
    flat: dict[str, Any] = {}
    for key, value in grpo.items():
        if isinstance(value, dict) and key != "reward_weights":
            flat.update({f"{key}.{k}": v for k, v in value.items()})
        else:
            flat[key] = value
    return flat


def replay_command(
    run_id: str,
    config: Path | None,
    overrides: list[str],
    store: EventLog,
    console: Console | None = None,
) -> list[ReplayRow]:
    """Print, step by step, what the settings would decide beside what the run decided."""
    console = console or Console()
    store.require(run_id)
    # Read up to the last RunBranched only: a read walks every row it spans, and the whole run
    # is read below.
    opening = store.read(
        run_id,
        types=["RunStarted", "RunBranched"],
        to_seq=store.last_of(run_id, ["RunBranched"]) or 1,
    )
    recorded, branched = _recorded_config(opening)
    own = config is None and not overrides
    settings = policy_config_for(recorded, config, [*branched, *overrides])
    seen: set[str] = set()
    rows = replay(
        store.read(run_id),
        settings,
        lambda seq: _state_at(store, run_id, seq),
        seen,
        checked_to=_snapshot_seq(store, run_id),
    )

    in_force = grpo_settings(recorded, branched)
    if in_force:
        console.print(
            "GRPO settings in force: "
            + ", ".join(f"{k}={v!r}" for k, v in sorted(in_force.items())),
            soft_wrap=True, highlight=False, markup=False,
        )  # fmt: skip
    source = "the run's own settings" if own else f"{config or 'the recorded config'}"
    if overrides:
        source += " with " + " ".join(overrides)
    console.print(_table(run_id, source, rows))
    if settings.reward_health.enabled and seen:
        for rule, why in reward_health.inactive_rules(seen).items():
            console.print(f"reward_health rule {rule} inactive on this log: {why}",
                          highlight=False, markup=False)  # fmt: skip
    _print_verdict(rows, console)
    return rows


def _snapshot_seq(store: EventLog, run_id: str) -> int:
    """The seq of the run's newest usable snapshot (0: none): the rows up to it were checked by
    the fold that wrote it, as `status` trusts them (with a key, its MAC is checked here: a
    forged one is refused by its seq, as `status` refuses it)."""
    from store.snapshots import Snapshots

    state = Snapshots(store).newest_usable(run_id)
    return state.last_seq if state is not None else 0


def _state_at(store: EventLog, run_id: str, seq: int) -> RunState:
    # Only a rewind asks for an earlier state: the snapshot cache (its tables, its schema) is
    # imported then, not by every replay.
    from store.snapshots import fold_run

    return fold_run(store, run_id, seq)


def _table(run_id: str, source: str, rows: list[ReplayRow]) -> Table:
    """Each event decided on: what the settings would decide beside what was decided."""
    table = Table(title=plain(f"run {run_id}: policy decisions under {source}"))
    for column in ("seq", "step", "event", "would decide", "decided", ""):
        table.add_column(column)
    for row in rows:
        table.add_row(
            str(row.seq),
            str(row.step),
            plain(row.event_type),
            "\n".join(plain(d.brief()) for d in row.would) or "-",
            "\n".join(plain(d.brief()) for d in row.decided) or "-",
            "same" if row.same else "[bold]differs[/]",
        )
    return table


def _print_verdict(rows: list[ReplayRow], console: Console) -> None:
    """`identical` (every logged decision reproduced) or where the first difference is."""
    n_logged = sum(len(row.decided) for row in rows)
    if identical(rows):
        console.print(
            f"identical: these settings reproduce all {n_logged} logged decisions "
            f"({len(rows)} events decided on)"
        )
        return
    differing = [row for row in rows if not row.same]
    first = differing[0]
    console.print(
        f"different: {len(differing)} of {len(rows)} events decided on differ, the first at "
        f"seq {first.seq} (step {first.step})"
    )
    console.print(CAVEAT)


def _recorded_config(events: Iterable[StoredEvent]) -> tuple[dict[str, Any], list[str]]:
    config: dict[str, Any] = {}
    overrides: list[str] = []
    for stored in events:
        payload = stored.event.model_dump()
        if stored.type == "RunStarted":
            config = payload["config"]
        else:
            overrides.extend(payload["overrides"])
    return config, overrides
