"""The commands that read a run's log and write nothing to it: status, events, verify, why,
report, replay, sink."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from orchestrator.cli.options import DEFAULT_STORE, StoreOption, err, open_store, out
from orchestrator.errors import OrchestratorError
from orchestrator.terminal import plain, visible

# Each command imports what reads the log (the store and SQLAlchemy, the projections, pydantic
# events) when it runs: `rlvr --help` and `rlvr check` never need them.


def replay(
    run_id: Annotated[str, typer.Argument(help="The run to replay.")],
    config: Annotated[Path | None, typer.Option("--config", help="Other settings (TOML).")] = None,
    overrides: Annotated[list[str] | None, typer.Argument(help="key=value overrides.")] = None,
    store: StoreOption = None,
) -> None:
    """Show what (other) policy settings would decide on an existing log, beside what was decided."""
    from orchestrator.audit.replay import replay_command

    replay_command(run_id, config, overrides or [], open_store(store), out)


def why(
    run_id: Annotated[str, typer.Argument(help="The run to explain.")],
    gate: Annotated[str | None, typer.Option("--gate", help="Explain this gate.")] = None,
    seq: Annotated[int | None, typer.Option("--seq", help="Explain the event at this seq.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    store: StoreOption = None,
) -> None:
    """Explain a gate, a policy decision or a rollback from the log: evidence and what followed."""
    from orchestrator.audit.why import explain, print_explanation

    log = open_store(store)
    log.require(run_id)
    explanation = explain(list(log.read(run_id)), gate=gate, seq=seq)
    if as_json:
        typer.echo(json.dumps(explanation.to_json()))
        return
    print_explanation(explanation, Console(emoji=False))


def report(
    run_id: Annotated[str, typer.Argument(help="The run to report on.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Output directory (default: the run directory's report/)."),
    ] = None,
    store: StoreOption = None,
) -> None:
    """Write an HTML report with plots of a run; it opens in a browser with no server or network."""
    from orchestrator.audit.report import build_report  # matplotlib: only when reporting

    log = open_store(store)
    log.require(run_id)
    events = list(log.read(run_id))
    if out is None:
        log_path = events[0].event.config.get("log_path", "runs")
        out = Path(log_path) / run_id / "report"
    typer.echo(visible(build_report(events, out)))


def status(
    run_id: Annotated[str | None, typer.Argument(help="A run id; all runs when left out.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    store: StoreOption = None,
) -> None:
    """Every run (state, step, last metrics, lease holder / health, parent), or one run in detail."""
    from rich.table import Table

    from orchestrator.audit.status_view import detail_table, health, run_detail
    from orchestrator.audit.summary import print_summary, run_summary
    from orchestrator.driver.commands import load_state

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
            plain(row["run_id"]), plain(row["state"]), str(row["step"]), plain(metrics or "-"),
            plain(row["last_event"]), plain(row["last_event_at"][:19]), plain(row["health"]),
            plain(row["parent"] or "-"),
        )  # fmt: skip
    out.print(table)


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
    from store.exports import export_lines, import_file
    from store.log import EventLog

    if target == "import":
        if argument is None:
            raise OrchestratorError("usage: rlvr events import run.jsonl")
        target_log = EventLog(store or DEFAULT_STORE)
        n = import_file(target_log, Path(argument))
        keyed = "and its keyed head" if target_log.key is not None else "(no chain key: unkeyed)"
        err.print(plain(f"imported {n} events from {argument}; hash chain verified {keyed}"))
        return
    log = open_store(store)
    if target == "export":
        if argument is None:
            raise OrchestratorError("usage: rlvr events export RUN > run.jsonl")
        log.require(argument)
        sys.stdout.writelines(export_lines(log, argument))
        return
    log.require(target)
    for stored in log.read(target, types=type_ or None):
        if as_json:
            sys.stdout.write(json.dumps(stored.to_json(), sort_keys=True) + "\n")
        else:
            out.print(
                f"{stored.seq:>6}  {plain(stored.recorded_at[:19])}  [bold]{plain(stored.type)}[/]"
                f"  {plain(stored.payload[:160])}",
                highlight=False,
                markup=True,
            )


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
    from orchestrator.audit.sinks import backfill
    from orchestrator.driver.commands import load_state

    log = open_store(store)
    state = load_state(log, run_id)
    steps = backfill(log.read(run_id), state.config, run_id, to, directory, project, name)
    err.print(
        plain(f"run {run_id}: {steps} steps written to {to}")
        + (plain(f" in {directory}") if directory else "")
    )


def verify(
    run_id: Annotated[str, typer.Argument(help="The run to check.")], store: StoreOption = None
) -> None:
    """Walk a run's hash chain; name the first bad seq."""
    report = open_store(store).verify(run_id)
    if report.ok:
        out.print(plain(f"run {run_id}: hash chain intact ({report.n_events} events)"))
        return
    err.print(
        plain(f"run {run_id}: hash chain broken at seq {report.first_bad_seq}: {report.reason}")
    )
    raise typer.Exit(code=1)


COMMANDS = (status, events, verify, why, report, replay, sink)
