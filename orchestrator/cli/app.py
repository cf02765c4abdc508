"""`rlvr`: the command line. Errors become one clear line and a non-zero exit (`--debug` for the
traceback); nothing is appended to a run's log when a command is refused."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from orchestrator import logging as rlvr_logging
from orchestrator.audit.replay import replay_command
from orchestrator.audit.report import report_command
from orchestrator.audit.sinks import backfill
from orchestrator.audit.status_view import detail_table, health, run_detail
from orchestrator.audit.summary import print_summary, run_summary
from orchestrator.audit.why import why_command
from orchestrator.cli.calibrate_command import auto_overrides, calibrate_command
from orchestrator.cli.check_command import check
from orchestrator.config import load_config, run_store
from orchestrator.driver import distributed
from orchestrator.driver.commands import load_state, start_run
from orchestrator.driver.lifecycle import branch as branch_run
from orchestrator.driver.lifecycle import drive
from orchestrator.driver.lifecycle import resume as resume_run
from orchestrator.driver.machine import STAGES
from orchestrator.driver.registry import product_stages
from orchestrator.driver.supervisor import (
    load_supervisor_config,
    scan,
    subprocess_launcher,
    supervise_forever,
)
from orchestrator.errors import ConfigError, OrchestratorError
from stages.types import Stage, StageError
from store.errors import StoreError
from store.log import EventLog, StoredEvent

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Event-sourced orchestrator for RLVR fine-tuning runs.",
    pretty_exceptions_enable=False,
)
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)  # an error is one line, however narrow the terminal
_debug = False

StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store", envvar="RLVR_STORE", help="Event store: SQLite path or postgresql:// URL."
    ),
]
DEFAULT_STORE = "runs/events.db"


def open_store(store: str | None) -> EventLog:
    """The store a read command looks at; a missing SQLite file is an error, not a new store."""
    target = store or DEFAULT_STORE
    if "://" not in target and not Path(target).is_file():
        raise OrchestratorError(f"no event store at {target} (pass --store or set RLVR_STORE)")
    return EventLog(target)


@app.callback()
def _main(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
) -> None:
    global _debug
    _debug = debug


def _stages() -> dict[str, Stage]:
    stages = product_stages()
    missing = [s for s in STAGES if s not in stages]
    if missing:
        raise OrchestratorError(
            f"this build has no implementation for stage(s): {', '.join(missing)}"
        )
    return stages


def _finish(run_id: str, state, log: EventLog) -> None:
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
    overrides = auto_overrides(config, overrides or [])  # grpo.sampling.batch_size = "auto"
    if distributed.run_launched(config, overrides, store, _stages(), _finish):
        return  # under mlx.launch with several ranks: rank 0 drove, the others followed
    cfg = load_config(config, overrides)
    stages = _stages()
    log = EventLog(run_store(store, cfg))
    run_id, _ = start_run(log, cfg, config_path=str(config), overrides=overrides)
    err.print(
        f"run [bold]{run_id}[/] started; log in {log.url}, run directory {Path(cfg.log_path) / run_id}"
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
    store: StoreOption = None,
) -> None:
    """Continue a run from its last committed step (refused while another driver owns it)."""
    if distributed.resume_launched(run_id, from_seq, _stages(), lambda: open_store(store), _finish):
        return
    log = open_store(store)
    factory = distributed.driver_for(log, run_id)
    _finish(
        run_id, resume_run(log, run_id, _stages(), from_seq=from_seq, driver_factory=factory), log
    )


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
    log = open_store(store)
    stages = _stages()
    child = branch_run(log, run_id, at, overrides or [])
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
    cfg = load_supervisor_config(config)
    log = open_store(store)
    target = store or DEFAULT_STORE
    log_dir = Path(target).parent / "supervisor" if "://" not in target else Path("supervisor-logs")
    if once:
        for action in scan(log, cfg, subprocess_launcher(target, log_dir)):
            out.print(f"{action.run_id}: {action.action} ({action.detail})")
        return
    supervise_forever(log, target, cfg, log_dir)


@app.command()
def replay(
    run_id: Annotated[str, typer.Argument(help="The run to replay.")],
    config: Annotated[Path | None, typer.Option("--config", help="Other settings (TOML).")] = None,
    overrides: Annotated[list[str] | None, typer.Argument(help="key=value overrides.")] = None,
    store: StoreOption = None,
) -> None:
    """Show what (other) policy settings would decide on an existing log, beside what was decided."""
    replay_command(run_id, config, overrides or [], open_store(store), out)


app.command("check")(check)
app.command("calibrate")(calibrate_command)
app.command("why")(why_command)
app.command("report")(report_command)


@app.command()
def status(
    run_id: Annotated[str | None, typer.Argument(help="A run id; all runs when left out.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    store: StoreOption = None,
) -> None:
    """Every run (state, step, last metrics, lease holder / health, parent), or one run in detail."""
    log = open_store(store)
    if run_id is not None:
        log.require(run_id)
        summary = next(s for s in log.runs() if s.run_id == run_id)
        state = load_state(log, run_id)
        detail = {**run_detail(state, summary), **run_summary(state, store_url=log.url)}
        if as_json:
            print(json.dumps(detail))
            return
        out.print(detail_table(run_detail(state, summary)))  # the summary has its own "gates"
        print_summary(run_summary(state, store_url=log.url), out)
        return
    rows = []
    for summary in log.runs():
        state = load_state(log, summary.run_id)
        rows.append(
            {
                "run_id": summary.run_id,
                "state": state.state,
                "step": state.step,
                "last_metrics": {
                    k: state.last_metrics.get(k)
                    for k in ("reward_mean", "kl", "verify_rate")
                    if k in state.last_metrics
                },
                "last_event": summary.last_type,
                "last_event_at": summary.last_recorded_at,
                "lease_holder": state.lease_owner,
                "health": health(state),
                "parent": f"{state.parent[0]}@{state.parent[1]}" if state.parent else None,
            }
        )
    if as_json:
        print(json.dumps(rows))
        return
    table = Table("run", "state", "step", "last metrics", "last event", "at", "health", "parent")
    for row in rows:
        metrics = " ".join(f"{k}={v:.3g}" for k, v in row["last_metrics"].items() if v is not None)
        table.add_row(
            row["run_id"], row["state"], str(row["step"]), metrics or "-", row["last_event"],
            row["last_event_at"][:19], row["health"], row["parent"] or "-",
        )  # fmt: skip
    out.print(table)


@app.command()
def events(
    target: Annotated[str, typer.Argument(help="RUN, or `export RUN`, or `import FILE.jsonl`.")],
    argument: Annotated[
        str | None, typer.Argument(help="The run (export) or file (import).")
    ] = None,
    type_: Annotated[
        list[str] | None, typer.Option("--type", help="Only events of this type.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
    store: StoreOption = None,
) -> None:
    """List a run's events; `events export RUN > f.jsonl`; `events import f.jsonl`."""
    if target == "import":
        if argument is None:
            raise OrchestratorError("usage: rlvr events import run.jsonl")
        rows = _read_export(Path(argument))
        n = EventLog(store or DEFAULT_STORE).import_rows(rows)
        err.print(f"imported {n} events from {argument}; hash chain verified")
        return
    log = open_store(store)
    if target == "export":
        if argument is None:
            raise OrchestratorError("usage: rlvr events export RUN > run.jsonl")
        log.require(argument)
        for stored in log.read(argument):
            sys.stdout.write(json.dumps(stored.to_json(), sort_keys=True) + "\n")
        return
    log.require(target)
    for stored in log.read(target, types=type_ or None):
        if as_json:
            sys.stdout.write(json.dumps(stored.to_json(), sort_keys=True) + "\n")
        else:
            out.print(
                f"{stored.seq:>6}  {stored.recorded_at[:19]}  [bold]{stored.type}[/]  {stored.payload[:160]}",
                highlight=False,
                markup=True,
            )


def _read_export(path: Path) -> list[StoredEvent]:
    if not path.is_file():
        raise OrchestratorError(f"{path}: no such file")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            data["payload"] = json.dumps(data["payload"])
            rows.append(StoredEvent(**data))
        except (json.JSONDecodeError, TypeError, KeyError) as e:
            raise OrchestratorError(f"{path}:{number}: not an exported event ({e})") from e
    return rows


@app.command()
def sink(
    run_id: Annotated[str, typer.Argument(help="The run whose metrics to write.")],
    to: Annotated[str, typer.Option("--to", help="tensorboard or wandb.")],
    directory: Annotated[
        Path | None,
        typer.Argument(help="TensorBoard log dir; for W&B its local files (default: run dir)."),
    ] = None,
    project: Annotated[
        str | None, typer.Option("--project", help="W&B project (default: the run's).")
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="W&B display name (default: the run's).")
    ] = None,
    store: StoreOption = None,
) -> None:
    """Write a recorded run's metrics to TensorBoard event files or a W&B run (the history the run
    kept: spans abandoned by a rewind left out)."""
    log = open_store(store)
    state = load_state(log, run_id)
    steps = backfill(log.read(run_id), state.config, run_id, to, directory, project, name)
    err.print(
        f"run {run_id}: {steps} steps written to {to}" + (f" in {directory}" if directory else "")
    )


@app.command()
def verify(
    run_id: Annotated[str, typer.Argument(help="The run to check.")], store: StoreOption = None
) -> None:
    """Walk a run's hash chain; name the first bad seq."""
    report = open_store(store).verify(run_id)
    if report.ok:
        out.print(f"run {run_id}: hash chain intact ({report.n_events} events)")
        return
    err.print(f"run {run_id}: hash chain broken at seq {report.first_bad_seq}: {report.reason}")
    raise typer.Exit(code=1)


def main() -> None:
    rlvr_logging.configure(level=os.environ.get("RLVR_LOG_LEVEL", "WARNING"))
    try:
        # Without standalone mode click returns an `Exit`'s code instead of exiting with it.
        code = app(standalone_mode=False)
        sys.exit(code if isinstance(code, int) else 0)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except ConfigError as e:
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
    err.print(f"[red]error:[/] {error}", highlight=False)
    sys.exit(code)
