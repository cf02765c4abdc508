"""`rlvr`: the command line. Errors become one clear line and a non-zero exit (`--debug` for the
traceback); nothing is appended to a run's log when a command is refused.

Exit codes (EXIT_CODES; the README's table is held equal to it by a test): 0 the command did what
it was asked (a run completed); 3 a run paused (a policy, a budget, SIGTERM): `rlvr resume` continues
it; 130 a run paused by Ctrl-C; 1 a run failed, or the command could not do its work; 2 bad input
(a config error, an unknown run id, an unknown event type), nothing written.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from orchestrator.cli.calibrate_command import auto_overrides, calibrate_command
from orchestrator.cli.check_command import check
from orchestrator.cli.config_command import config_app
from orchestrator.cli.console_command import console
from orchestrator.cli.export_command import export_model
from orchestrator.cli.options import (
    DEFAULT_STORE,
    RunArgument,
    StoreOption,
    err,
    find_run,
    open_store,
    out,
)
from orchestrator.cli.pause_command import pause
from orchestrator.cli.read_commands import COMMANDS
from orchestrator.cli.rescore_command import rescore
from orchestrator.cli.status_command import runs_app, status
from orchestrator.errors import ConfigError, OrchestratorError, UsageError
from orchestrator.terminal import plain
from stages.errors import StageError
from store.errors import BadExportError, StoreError, UnknownRunError
from store.run_ids import InvalidRunIdError

if TYPE_CHECKING:
    from orchestrator.driver.signals import StopRequest
    from stages.types import Stage
    from store.log import EventLog
    from store.projections import RunState

EXIT_PAUSED = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for Ctrl-C
EXIT_CODES = {
    0: "completed (or the command did what it was asked)",
    3: "paused by a policy, a budget or SIGTERM: `rlvr resume RUN` continues it",
    130: "paused by Ctrl-C: `rlvr resume RUN` continues it",
    1: "failed (a gate, a policy budget, a stage error), or the command could not do its work",
    2: "bad input: a config error, an unknown run id or event type; nothing was written",
}

# Start-up stays light (`rlvr --help` and `rlvr check` under a second): what a command needs
# beyond typer (the stages and mlx, the store and SQLAlchemy, pydantic configs, apscheduler) is
# imported inside that command; structlog is configured in `main` for every command.


app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Event-sourced orchestrator for RLVR fine-tuning runs.",
    pretty_exceptions_enable=False,
)
_debug = False


@app.callback()
def _main(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
) -> None:
    global _debug
    _debug = debug


def _stages() -> dict[str, Stage]:
    from orchestrator.driver.machine import STAGES
    from orchestrator.driver.registry import product_stages

    stages = product_stages()
    missing = [s for s in STAGES if s not in stages]
    if missing:
        raise OrchestratorError(
            f"this build has no implementation for stage(s): {', '.join(missing)}"
        )
    return stages


def _note(message: str) -> None:
    err.print(f"note: {message}", markup=False, highlight=False)


def _stage_line(line: str) -> None:
    """`stage 3/7: verification (1:42 elapsed)`, through the console the progress bars use."""
    from stages.progress import shared_console

    shared_console().print(line, markup=False, highlight=False)


def _finish(
    run_id: str,
    state: RunState,
    log: EventLog,
    stop: StopRequest | None = None,
    *,
    launched: bool = False,
) -> None:
    """Print the run's summary and exit with its code (module docstring). `launched`: rank 0
    under `mlx.launch`, which reads any non-zero exit as a crash and tears the job down: a pause
    exits 0 there (the summary says it paused and how to continue)."""
    from orchestrator.audit.summary import pause_reason, print_summary, run_summary

    summary = run_summary(state, store_url=log.url, pause_reason=pause_reason(log, state))
    print_summary(summary, out)
    if state.state == "failed":
        raise typer.Exit(code=1)
    if state.state == "paused" and not launched:
        interrupted = stop is not None and stop.signal == "SIGINT"
        raise typer.Exit(code=EXIT_INTERRUPTED if interrupted else EXIT_PAUSED)


@app.command()
def run(
    config: Annotated[Path, typer.Argument(help="TOML run config, e.g. configs/quickstart.toml.")],
    overrides: Annotated[list[str] | None, typer.Argument(help="key=value overrides.")] = None,
    store: StoreOption = None,
) -> None:
    """Start a run from CONFIG and drive it through the seven stages."""
    from orchestrator.config import check_data, check_log_path, load_config, run_store
    from orchestrator.driver import distributed
    from orchestrator.driver.commands import start_run
    from orchestrator.driver.lifecycle import drive
    from orchestrator.driver.signals import StopRequest
    from orchestrator.sinks.live import METRIC_SINKS
    from store.log import EventLog

    overrides = auto_overrides(config, overrides or [])  # grpo.sampling.batch_size = "auto"
    if distributed.run_launched(
        config, overrides, store, _stages(), _launched_finish, METRIC_SINKS
    ):
        return  # under mlx.launch with several ranks: rank 0 drove, the others followed
    cfg = load_config(config, overrides)
    check_data(cfg)  # a bad task file: an error line, not a run that fails after starting
    check_log_path(cfg)
    stages = _stages()
    log = EventLog(run_store(store, cfg))
    run_id, _ = start_run(
        log, cfg, config_path=str(config), overrides=overrides, observers=METRIC_SINKS
    )
    err.print(
        f"run [bold]{run_id}[/] started; "
        + plain(f"log in {log.url}, run directory {Path(cfg.log_path) / run_id}")
    )
    stop = StopRequest()
    state = drive(log, run_id, cfg, stages, stop=stop, on_stage=_stage_line, observers=METRIC_SINKS)
    _finish(run_id, state, log, stop)


def _launched_finish(run_id: str, state: RunState, log: EventLog) -> None:
    _finish(run_id, state, log, launched=True)


AtStep = Annotated[
    int | None,
    typer.Option("--at-step", help="The same, after this training step (instead of a SEQ)."),
]


@app.command()
def resume(
    run_id: RunArgument,
    from_seq: Annotated[
        int | None,
        typer.Option(
            "--from", help="Rewind in place: continue from this seq (nothing is deleted)."
        ),
    ] = None,
    from_step: Annotated[
        int | None,
        typer.Option(
            "--at-step", help="Rewind in place to the end of this training step (not a SEQ)."
        ),
    ] = None,
    overrides: Annotated[
        list[str] | None,
        typer.Argument(
            help="key=value changes of operational settings (checkpoints.max_bytes, "
            "checkpoints.keep_last, lease_ttl_s, ...), recorded in the log."
        ),
    ] = None,
    store: StoreOption = None,
    asked_at_seq: Annotated[
        int | None, typer.Option("--asked-at-seq", hidden=True)
    ] = None,  # `rlvr console`'s detached resume: the log's end when it was asked for
) -> None:
    """Continue a run from its last committed step (refused while another driver owns it)."""
    from orchestrator.driver import distributed
    from orchestrator.driver.lifecycle import resume as resume_run
    from orchestrator.driver.signals import StopRequest
    from orchestrator.sinks.live import METRIC_SINKS

    notes: list[str] = []  # said once the resume's checks pass (round 23, log 035)

    def target() -> tuple[EventLog, str, int | None]:
        log = open_store(store)
        found = find_run(log, run_id)
        seq, notes[:] = _seq_of(log, found, from_seq, from_step, "--from", "--at-step")
        return log, found, seq

    if distributed.resume_launched(
        target, _stages(), _launched_finish, overrides or [], METRIC_SINKS
    ):
        return
    log, run_id, from_seq = target()
    factory = distributed.driver_for(log, run_id)
    stop = StopRequest()
    state = resume_run(
        log, run_id, _stages(), from_seq=from_seq, overrides=overrides or [],
        driver_factory=factory, say=_note, stop=stop, on_stage=_stage_line,
        observers=METRIC_SINKS, asked_at_seq=asked_at_seq, notes=notes,
    )  # fmt: skip
    _finish(run_id, state, log, stop)


def _seq_of(
    log: EventLog, run_id: str, seq: int | None, step: int | None, seq_flag: str, step_flag: str
) -> tuple[int | None, list[str]]:
    """The cut a person asked for, by seq or by step (never both), and what to say about it
    once the command's checks pass (a note before a refusal made two lines of one)."""
    if seq is not None and step is not None:
        raise UsageError(f"pass {seq_flag} SEQ or {step_flag} N, not both")
    if step is None:
        return seq, []
    from orchestrator.driver.cuts import seq_after_step

    seq = seq_after_step(log, run_id, step)
    return seq, [f"{step_flag} {step}: cutting run {run_id} at seq {seq}, the end of step {step}"]


@app.command()
def branch(
    run_id: RunArgument,
    overrides: Annotated[
        list[str] | None, typer.Argument(help="key=value overrides for the branch.")
    ] = None,
    at: Annotated[
        int | None, typer.Option("--at", help="Branch after this seq of the parent.")
    ] = None,
    at_step: AtStep = None,
    store: StoreOption = None,
) -> None:
    """Start a new run whose history is the parent's up to SEQ or step N, with overrides; the
    parent is untouched."""
    from orchestrator.driver.lifecycle import branch as branch_run
    from orchestrator.driver.lifecycle import resume as resume_run
    from orchestrator.driver.signals import StopRequest
    from orchestrator.sinks.live import METRIC_SINKS

    log = open_store(store)
    run_id = find_run(log, run_id)
    if at is None and at_step is None:
        raise UsageError("say where to branch: --at SEQ or --at-step N")
    at, notes = _seq_of(log, run_id, at, at_step, "--at", "--at-step")
    assert at is not None
    stages = _stages()
    child, at = branch_run(log, run_id, at, overrides or [], say=_note, notes=notes)
    err.print(f"branched [bold]{child}[/] from {run_id} at seq {at}")
    stop = StopRequest()
    state = resume_run(log, child, stages, stop=stop, on_stage=_stage_line, observers=METRIC_SINKS)
    _finish(child, state, log, stop)


@app.command()
def supervise(
    once: Annotated[
        bool, typer.Option("--once", help="Scan once, restart what needs it, and exit.")
    ] = False,
    config: Annotated[
        Path | None,
        typer.Option("--config", help="Supervisor TOML (interval, budget, backoff, schedule)."),
    ] = None,
    store: StoreOption = None,
) -> None:
    """Restart runs whose driver died (lease expired), with backoff and a restart budget."""
    from orchestrator.driver.supervisor import (
        load_supervisor_config,
        scan,
        subprocess_launcher,
        supervise_forever,
    )

    cfg = load_supervisor_config(config)
    log = open_store(store)
    target = store or DEFAULT_STORE
    local = log.backend.local_file()
    log_dir = local.parent / "supervisor" if local is not None else Path("supervisor-logs")
    if once:
        actions = scan(log, cfg, subprocess_launcher(target, log_dir))
        for action in actions:
            out.print(plain(f"{action.run_id}: {action.action} ({action.detail})"))
        counts = {kind: sum(a.action == kind for a in actions) for kind in
                  ("restart", "wait", "give_up", "broken")}  # fmt: skip
        done = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in counts.items() if n)
        out.print(
            plain(f"supervisor: checked {len(log.runs())} runs in {log.url}: ")
            + (done or "nothing to restart")
        )
        return
    supervise_forever(log, target, cfg, log_dir)


app.command("check")(check)
app.command("calibrate")(calibrate_command)
app.command("status")(status)
app.command("export-model")(export_model)
app.command("rescore")(rescore)
app.command("pause")(pause)
app.command("console")(console)
app.add_typer(runs_app, name="runs")
app.add_typer(config_app, name="config")
for command in COMMANDS:
    app.command()(command)


def main() -> None:
    from orchestrator import logging as rlvr_logging
    from orchestrator.cli.std_streams import (
        closed_streams_stand_in,
        escaped_when_unencodable,
        whole_writes,
    )

    closed_streams_stand_in()
    whole_writes()  # before logging binds a stream
    escaped_when_unencodable()
    try:
        level = rlvr_logging.level_named(os.environ.get("RLVR_LOG_LEVEL", "WARNING"))
    except ValueError as e:
        _fail(UsageError(f"RLVR_LOG_LEVEL: {e}"), 2)
    rlvr_logging.configure(level=level)
    try:
        try:
            # Without standalone mode click returns an `Exit`'s code instead of exiting with it.
            code = app(standalone_mode=False)
        except typer.Exit as e:
            code = e.exit_code
        # Here, not in the interpreter's last flush: stdout on a full disk (`> /dev/full`) is an
        # error line and exit 1, not "Exception ignored" and exit 120.
        sys.stdout.flush()
        sys.exit(code if isinstance(code, int) else 0)
    except (ConfigError, UsageError, InvalidRunIdError, UnknownRunError, BadExportError) as e:
        _fail(e, 2)  # bad input: nothing was written
    except (OrchestratorError, StoreError, StageError) as e:
        _fail(e, 1)
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
    except UnicodeEncodeError as e:  # an argument that is no text (bytes a shell passed through)
        _fail(UsageError(f"{e.object!r:.80} is not UTF-8 text"), 2)
    except BrokenPipeError:
        _quiet_on_closed_pipe()
    except OSError as e:  # what a command left uncaught: the output it could not write, mostly
        _stdout_to_devnull()  # what stdout still buffers cannot be written either
        where = e.filename or "standard output"
        _fail(OrchestratorError(f"cannot write {where}: {e.strerror or e}"), 1)
    except Exception as e:  # click's usage errors and the like
        kinds = {kind.__name__ for kind in type(e).__mro__}
        # By name: typer >= 0.2x raises its vendored copy (`typer._click`), older ones click's.
        if "ClickException" in kinds:
            e.show()
            sys.exit(e.exit_code)
        if "Abort" in kinds:
            sys.exit(1)
        _unexpected(e)


def _unexpected(error: Exception) -> None:
    """The last resort: what no command expected is still one `error:` line and exit 1, not a
    traceback; RLVR_DEBUG=1 (or --debug) shows the traceback."""
    if _debug or os.environ.get("RLVR_DEBUG", "") not in ("", "0"):
        raise error
    err.print(
        f"[red]error:[/] {plain(f'{type(error).__name__}: {error}')} "
        "(set RLVR_DEBUG=1 for the traceback)",
        highlight=False,
    )
    sys.exit(1)


def _fail(error: Exception, code: int) -> None:
    if _debug:
        raise error
    err.print(f"[red]error:[/] {plain(error)}", highlight=False)
    sys.exit(code)


def _quiet_on_closed_pipe() -> None:
    """`rlvr status | head`: the reader went away; that is not an error. Point stdout at
    /dev/null so the interpreter's last flush cannot complain either."""
    _stdout_to_devnull()
    sys.exit(0)


def _stdout_to_devnull() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
