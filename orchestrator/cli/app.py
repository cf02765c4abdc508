"""`rlvr`: the command line. Errors become one clear line and a non-zero exit (`--debug` for the
traceback); nothing is appended to a run's log when a command is refused."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from orchestrator.cli.calibrate_command import auto_overrides, calibrate_command
from orchestrator.cli.check_command import check
from orchestrator.cli.options import DEFAULT_STORE, StoreOption, err, open_store, out
from orchestrator.cli.read_commands import COMMANDS
from orchestrator.errors import ConfigError, OrchestratorError
from orchestrator.terminal import plain
from stages.errors import StageError
from store.errors import StoreError
from store.run_ids import InvalidRunIdError

if TYPE_CHECKING:
    from stages.types import Stage
    from store.log import EventLog

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


def _finish(run_id: str, state, log: EventLog) -> None:
    from orchestrator.audit.summary import print_summary, run_summary

    print_summary(run_summary(state, store_url=log.url), out)
    if state.state == "failed":
        raise typer.Exit(code=1)


@app.command()
def run(
    config: Annotated[Path, typer.Argument(help="TOML run config, e.g. configs/quickstart.toml.")],
    overrides: Annotated[list[str] | None, typer.Argument(help="key=value overrides.")] = None,
    store: StoreOption = None,
) -> None:
    """Start a run from CONFIG and drive it through the seven stages."""
    from orchestrator.config import check_data, load_config, run_store
    from orchestrator.driver import distributed
    from orchestrator.driver.commands import start_run
    from orchestrator.driver.lifecycle import drive
    from store.log import EventLog

    overrides = auto_overrides(config, overrides or [])  # grpo.sampling.batch_size = "auto"
    if distributed.run_launched(config, overrides, store, _stages(), _finish):
        return  # under mlx.launch with several ranks: rank 0 drove, the others followed
    cfg = load_config(config, overrides)
    check_data(cfg)  # a bad task file: an error line, not a run that fails after starting
    stages = _stages()
    log = EventLog(run_store(store, cfg))
    run_id, _ = start_run(log, cfg, config_path=str(config), overrides=overrides)
    err.print(
        f"run [bold]{run_id}[/] started; "
        + plain(f"log in {log.url}, run directory {Path(cfg.log_path) / run_id}")
    )
    _finish(run_id, drive(log, run_id, cfg, stages), log)


@app.command()
def resume(
    run_id: Annotated[str, typer.Argument(help="The run to continue.")],
    from_seq: Annotated[
        int | None,
        typer.Option(
            "--from", help="Rewind in place: continue from this seq (nothing is deleted)."
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
) -> None:
    """Continue a run from its last committed step (refused while another driver owns it)."""
    from orchestrator.driver import distributed
    from orchestrator.driver.lifecycle import resume as resume_run

    if distributed.resume_launched(
        run_id, from_seq, _stages(), lambda: open_store(store), _finish, overrides or []
    ):
        return
    log = open_store(store)
    factory = distributed.driver_for(log, run_id)
    state = resume_run(
        log, run_id, _stages(), from_seq=from_seq, overrides=overrides or [],
        driver_factory=factory, say=_note,
    )  # fmt: skip
    _finish(run_id, state, log)


@app.command()
def branch(
    run_id: Annotated[str, typer.Argument(help="The parent run.")],
    at: Annotated[int, typer.Option("--at", help="Branch after this seq of the parent.")],
    overrides: Annotated[
        list[str] | None, typer.Argument(help="key=value overrides for the branch.")
    ] = None,
    store: StoreOption = None,
) -> None:
    """Start a new run whose history is the parent's up to SEQ, with overrides; the parent is untouched."""
    from orchestrator.driver.lifecycle import branch as branch_run
    from orchestrator.driver.lifecycle import resume as resume_run

    log = open_store(store)
    stages = _stages()
    child, at = branch_run(log, run_id, at, overrides or [], say=_note)
    err.print(f"branched [bold]{child}[/] from {run_id} at seq {at}")
    _finish(child, resume_run(log, child, stages), log)


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
        for action in scan(log, cfg, subprocess_launcher(target, log_dir)):
            out.print(plain(f"{action.run_id}: {action.action} ({action.detail})"))
        return
    supervise_forever(log, target, cfg, log_dir)


app.command("check")(check)
app.command("calibrate")(calibrate_command)
for command in COMMANDS:
    app.command()(command)


def main() -> None:
    from orchestrator import logging as rlvr_logging

    rlvr_logging.configure(level=os.environ.get("RLVR_LOG_LEVEL", "WARNING"))
    try:
        # Without standalone mode click returns an `Exit`'s code instead of exiting with it.
        code = app(standalone_mode=False)
        sys.exit(code if isinstance(code, int) else 0)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except (ConfigError, InvalidRunIdError) as e:  # bad input: nothing was written
        _fail(e, 2)
    except (OrchestratorError, StoreError, StageError) as e:
        _fail(e, 1)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as e:  # click's usage errors and the like
        kinds = {kind.__name__ for kind in type(e).__mro__}
        # By name: typer >= 0.2x raises its vendored copy (`typer._click`), older ones click's.
        if "ClickException" in kinds:
            e.show()
            sys.exit(e.exit_code)
        if "Abort" in kinds:
            sys.exit(1)
        raise


def _fail(error: Exception, code: int) -> None:
    if _debug:
        raise error
    err.print(f"[red]error:[/] {plain(error)}", highlight=False)
    sys.exit(code)
