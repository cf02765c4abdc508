"""`rlvr supervise`: restart runs whose driver died (lease expired), with backoff and a budget.

Everything the supervisor decides is read from, and written to, the log: the restart count and the
time of its last action come from `SupervisorActed` events, so a restarted supervisor continues the
same backoff. Runs may also be started on a cron schedule.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.cron import CronTrigger
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from orchestrator.config import line_of, non_finite, read_toml
from orchestrator.driver.commands import BROKEN_RUN_ERRORS, load_state, transition
from orchestrator.driver.machine import STAGES
from orchestrator.errors import ConfigError
from orchestrator.logging import get_logger
from store.errors import IntegrityError
from store.events import RunFailed, SupervisorActed
from store.leases import LeaseRow, LeaseTable, lease_expiry
from store.log import EventLog, RunSummary
from store.run_ids import check_run_id
from store.text_files import open_appending
from store.verification import recorded_time

log_ = get_logger("rlvr.supervisor")


class ScheduledRun(BaseModel):
    model_config = ConfigDict(extra="forbid")
    config: str = Field(description="TOML run config to start.")
    cron: str = Field(description="Crontab expression (minute hour day month weekday).")
    overrides: list[str] = Field(default_factory=list, description="key=value overrides.")

    @field_validator("cron")
    @classmethod
    def _a_crontab(cls, cron: str) -> str:
        # Checked at load: a bad expression found only when the scheduler starts would leave a
        # supervisor that never runs the job, and say so nowhere.
        try:
            CronTrigger.from_crontab(cron)
        except ValueError as e:
            raise ValueError(
                f"not a crontab expression (minute hour day month weekday): {e}"
            ) from e
        return cron


_DAY_S, _WEEK_S = 86_400.0, 7 * 86_400.0


class SupervisorConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # upper bounds a scheduler and a datetime can hold (1e300 overflowed in APScheduler, round 26)
    interval_s: float = Field(
        15.0, gt=0, le=_DAY_S, description="Seconds between scans for orphaned runs."
    )
    max_restarts: int = Field(5, ge=0, description="Restarts per run before it is failed.")
    backoff_base_s: float = Field(
        5.0, ge=0, le=_DAY_S, description="Wait before restart n is base * 2**(n-1) seconds."
    )
    backoff_max_s: float = Field(
        600.0, ge=0, le=_WEEK_S, description="Upper bound on the wait between restarts."
    )
    grace_s: float = Field(
        30.0,
        ge=0,
        le=_WEEK_S,
        description="A run with no lease row is orphaned only after this long quiet.",
    )
    schedule: list[ScheduledRun] = Field(
        default_factory=list, description="Runs started on a schedule."
    )

    @model_validator(mode="after")
    def _backoff_in_order(self) -> SupervisorConfig:
        if self.backoff_base_s > self.backoff_max_s:
            raise ValueError(
                f"backoff_base_s ({self.backoff_base_s}) is above backoff_max_s ({self.backoff_max_s})"
            )
        return self


def load_supervisor_config(path: Path | None) -> SupervisorConfig:
    if path is None:
        return SupervisorConfig()
    if not path.is_file():
        raise ConfigError(f"{path}: no such supervisor config")
    text, data = read_toml(path)
    # Strict like a run config: "15" is not 15, inf is not a number of seconds.
    bad = non_finite(data)
    if bad is not None:
        loc, value = bad
        line = line_of(text, loc)
        at = f"{path}:{line}" if line else str(path)
        raise ConfigError(f"{at}: {'.'.join(loc)}: must be a finite number (got {value!r})")
    try:
        return SupervisorConfig.model_validate(data, strict=True)
    except ValidationError as e:
        first = e.errors()[0]
        loc = tuple(str(p) for p in first["loc"])
        line = line_of(text, loc) if loc else None
        at = f"{path}:{line}" if line else str(path)
        where = f"{'.'.join(loc)}: " if loc else ""
        raise ConfigError(f"{at}: {where}{first['msg']} (got {first.get('input')!r})") from e


@dataclass(frozen=True)
class Action:
    run_id: str
    action: str  # restart | give_up | wait | broken
    detail: str


def _parse(moment: object, run_id: str, what: str) -> datetime:
    """A time the code wrote (ISO, with its UTC offset); one a hand edit left (`garbage`, a time
    with no offset) names the row, not Python's "Invalid isoformat string" or "can't subtract
    offset-naive and offset-aware datetimes" (red team round 29, log 017)."""
    if not recorded_time(moment):
        raise IntegrityError(
            f"run {run_id}: {what}: {moment!r:.40} is not a time the code writes (an ISO time "
            "with its UTC offset; the store was edited)"
        )
    return datetime.fromisoformat(moment)  # type: ignore[arg-type]


def settled_state(log: EventLog, run_id: str) -> str | None:
    """The state a run's latest `StateChanged` moved it to, read without folding the run, when
    no later rewind could have undone it; None when only a fold can tell."""
    types = ["StateChanged", "RunRewound"]
    last = None  # read from the latest such row: only the rows after it are walked
    for row in log.read(run_id, from_seq=log.last_of(run_id, types) or 1, types=types):
        last = row
    if last is None:
        return "created"
    if last.type != "StateChanged":
        return None
    return last.fields()["dest"]


def scan(log: EventLog, config: SupervisorConfig, launch: Callable[[str], None]) -> list[Action]:
    """One pass: find orphaned live runs, restart them (or give up), each step an event. Finished
    and paused runs are skipped without folding them; a broken run is reported and skipped."""
    now = datetime.now(UTC)
    leases = LeaseTable(log).all()
    actions = []
    for summary in log.runs():
        try:
            check_run_id(summary.run_id)  # read from the store: it names a log file and folders
            action = _scan_run(log, config, launch, summary, leases.get(summary.run_id), now)
        except BROKEN_RUN_ERRORS as e:
            action = Action(summary.run_id, "broken", f"cannot read the run: {e}")
            log_.error("broken run skipped", run_id=summary.run_id, reason=str(e))
        if action is not None:
            actions.append(action)
    return actions


def _scan_run(
    log: EventLog,
    config: SupervisorConfig,
    launch: Callable[[str], None],
    summary: RunSummary,
    lease: LeaseRow | None,
    now: datetime,
) -> Action | None:
    live = ("created", *STAGES)
    if settled_state(log, summary.run_id) not in (*live, None):
        return None  # finished, failed, or paused on purpose (a person or a policy decides)
    if lease is not None and lease_expiry(lease) > now:  # a damaged row: the run is "broken"
        return None
    last_at = _parse(summary.last_recorded_at, summary.run_id, f"seq {summary.last_seq}'s time")
    if lease is None and (now - last_at).total_seconds() < config.grace_s:
        return None
    state = load_state(log, summary.run_id)
    if state.state not in live:
        return None
    attempt = state.supervisor_restarts + 1
    reason = None
    if attempt > config.max_restarts:
        reason = f"supervisor gave up after {config.max_restarts} restarts"
    elif attempt > 2:
        reason = _crash_loop(log, summary.run_id, state.last_seq)
    if reason is not None:
        stored = log.append(
            summary.run_id,
            [SupervisorActed(action="give_up", attempt=attempt, backoff_s=0, reason=reason)],
            state.last_seq,
        )
        transition(log, summary.run_id, "fail", reason=reason, before=[RunFailed(reason=reason)])
        log_.error("gave up on run", run_id=summary.run_id, reason=reason, seq=stored[0].seq)
        return Action(summary.run_id, "give_up", reason)
    backoff = min(config.backoff_base_s * 2 ** (attempt - 1), config.backoff_max_s)
    if state.last_supervisor_action_at is not None:
        acted = _parse(state.last_supervisor_action_at, summary.run_id, "its last restart's time")
        waited = (now - acted).total_seconds()
        if waited < backoff:
            return Action(summary.run_id, "wait", f"{backoff - waited:.0f}s of backoff left")
    reason = "lease expired" if lease is not None else "no live driver"
    log.append(
        summary.run_id,
        [SupervisorActed(action="restart", attempt=attempt, backoff_s=backoff, reason=reason)],
        state.last_seq,
    )
    launch(summary.run_id)
    log_.warning("restarted run", run_id=summary.run_id, attempt=attempt, reason=reason)
    return Action(summary.run_id, "restart", f"attempt {attempt}: {reason}")


# What a restarted driver appends before it does any work: a run whose log grew by these only
# since a restart crashed again at the point it crashed before.
RESTART_ROWS = frozenset(
    {"SupervisorActed", "LeaseAcquired", "StateChanged", "RunResumed", "StageStarted",
     "IsolationWaived", "CheckpointFellBack"}
)  # fmt: skip
# At most this many rows follow two restarts that made no progress (the rows above, twice over);
# a longer tail is progress, found without reading it.
_RESTART_TAIL = 64


def _crash_loop(log: EventLog, run_id: str, last_seq: int) -> str | None:
    """Why restarting again is pointless, if the last two restarts each crashed at the point the
    run had reached before them (no row of progress since the first of the two); else None."""
    restarts = [
        row.seq
        # Only restarts within the tail can make a loop: the rows before it are not read.
        for row in log.read(
            run_id, from_seq=max(1, last_seq - _RESTART_TAIL), types=["SupervisorActed"]
        )
        if row.event.action == "restart"
    ]
    if len(restarts) < 2 or last_seq - restarts[-2] > _RESTART_TAIL:
        return None
    tail = log.read(run_id, from_seq=restarts[-2] + 1)
    if any(row.type not in RESTART_ROWS for row in tail):
        return None
    point = restarts[-2] - 1
    return (
        f"supervisor gave up: the run crashed twice at the same point (after seq {point}; "
        f"restarted at seq {restarts[-2]} and {restarts[-1]}, no progress either time): "
        "a third restart would crash there too; the drivers' output is in the supervisor's log "
        "folder"
    )


def subprocess_launcher(store_url: str, log_dir: Path) -> Callable[[str], None]:
    """Start `rlvr resume RUN` detached, so it outlives a `--once` supervisor."""

    def launch(run_id: str) -> None:
        log_dir.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        # The child owns it; a FIFO put there is refused, not an open that waits for a reader.
        output = open_appending(log_dir / f"{check_run_id(run_id)}.resume-{stamp}.log")
        subprocess.Popen(
            [sys.executable, "-m", "orchestrator", "resume", run_id, "--store", store_url],
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )

    return launch


def start_scheduled(store_url: str, job: ScheduledRun, log_dir: Path) -> None:
    log_dir.mkdir(parents=True, exist_ok=True)
    output = open_appending(log_dir / "scheduled-runs.log")  # the child owns it
    subprocess.Popen(
        [
            sys.executable,
            "-m",
            "orchestrator",
            "run",
            job.config,
            *job.overrides,
            "--store",
            store_url,
        ],
        stdout=output,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    log_.info("scheduled run started", config=job.config)


def supervise_forever(
    log: EventLog, store_url: str, config: SupervisorConfig, log_dir: Path
) -> None:
    scheduler = BlockingScheduler()
    launch = subprocess_launcher(store_url, log_dir)
    scheduler.add_job(
        scan, "interval", seconds=config.interval_s, args=[log, config, launch], id="scan",
        max_instances=1, coalesce=True, next_run_time=datetime.now(UTC),
    )  # fmt: skip
    for index, job in enumerate(config.schedule):
        scheduler.add_job(
            start_scheduled, CronTrigger.from_crontab(job.cron), args=[store_url, job, log_dir],
            id=f"schedule-{index}",
        )  # fmt: skip
    scheduler.start()
