"""The commands that read a run's log and write nothing to it: status, events, verify, why,
report, replay, sink."""

from __future__ import annotations

import heapq
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from orchestrator.cli.options import DEFAULT_STORE, StoreOption, err, open_store, out
from orchestrator.errors import OrchestratorError
from orchestrator.terminal import plain, visible

if TYPE_CHECKING:
    from store.log import EventLog, RunSummary
    from store.projections import RunState

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
    from orchestrator.audit.why import WHY_TYPES, explain, print_explanation

    log = open_store(store)
    log.require(run_id)
    explanation = explain(log.read(run_id, types=WHY_TYPES), gate=gate, seq=seq)
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
    from orchestrator.audit.report import REPORT_TYPES, build_report, sample_rows
    from store.blobs import BlobStore

    log = open_store(store)
    state = _readable_state(log, run_id)
    log_root = Path(state.config.get("log_path", "runs"))
    out = out if out is not None else log_root / run_id / "report"
    # Two sorted streams, merged by seq: the types the report draws, and the two sampled steps.
    events = heapq.merge(
        log.read(run_id, types=REPORT_TYPES), sample_rows(log, run_id), key=lambda r: r.seq
    )
    report_path = build_report(events, out, state=state, blobs=BlobStore(log_root / "blobs"))
    typer.echo(visible(report_path))


def status(
    run_id: Annotated[str | None, typer.Argument(help="A run id; all runs when left out.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    store: StoreOption = None,
) -> None:
    """Every run (state, step, last metrics, lease holder / health, parent), or one run in detail."""
    from rich.table import Table

    from orchestrator.audit.status_view import detail_table, health, run_detail
    from orchestrator.audit.summary import print_summary, run_summary
    from orchestrator.driver.commands import BROKEN_RUN_ERRORS, load_state

    log = open_store(store)
    if run_id is not None:
        summary = log.summary(run_id)
        state = _readable_state(log, run_id)
        detail = {**run_detail(state, summary), **run_summary(state, store_url=log.url)}
        if as_json:
            print(json.dumps(detail))
            return
        out.print(detail_table(run_detail(state, summary)))  # the summary has its own "gates"
        print_summary(run_summary(state, store_url=log.url), out)
        return
    rows = []
    for summary in log.runs():
        try:
            state = load_state(log, summary.run_id)
        except BROKEN_RUN_ERRORS as e:
            rows.append(_broken_row(summary, e))
            continue
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
            plain(row["run_id"]), plain(row["state"]),
            str(row["step"] if row["step"] is not None else "-"), plain(metrics or "-"),
            plain(row["last_event"]), plain(row["last_event_at"][:19]), plain(row["health"]),
            plain(row["parent"] or "-"),
        )  # fmt: skip
    out.print(table)
    for row in rows:
        if row["state"] == "unreadable":
            err.print(f"run {plain(row['run_id'])} cannot be read: {plain(row['error'])}")


def _readable_state(log: EventLog, run_id: str) -> RunState:
    """The run's folded state; a run whose log does not fold is named in one clear error."""
    from orchestrator.driver.commands import BROKEN_RUN_ERRORS, load_state
    from store.errors import UnknownRunError
    from store.verification import ChainBroken

    try:
        return load_state(log, run_id)
    except (UnknownRunError, ChainBroken):
        raise  # these name the run already
    except BROKEN_RUN_ERRORS as e:
        raise OrchestratorError(f"run {run_id} cannot be read: {e}") from e


def _broken_row(summary: RunSummary, error: Exception) -> dict:
    """A run whose log does not fold: listed by name, with what is wrong, beside the others."""
    return {
        "run_id": summary.run_id, "state": "unreadable", "step": None, "last_metrics": {},
        "last_event": summary.last_type, "last_event_at": summary.last_recorded_at,
        "lease_holder": None, "health": "broken", "parent": None, "error": str(error),
    }  # fmt: skip


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
            sys.stdout.buffer.write(stored.export_line())
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
    from orchestrator.audit.sinks import METRIC_TYPES, backfill
    from orchestrator.driver.commands import load_state

    log = open_store(store)
    state = load_state(log, run_id)
    # The metric rows and the rewinds that abandon some of them: all a sink writes.
    rows = log.read(run_id, types=[*METRIC_TYPES, "RunRewound"])
    steps = backfill(rows, state.config, run_id, to, directory, project, name)
    err.print(
        plain(f"run {run_id}: {steps} steps written to {to}")
        + (plain(f" in {directory}") if directory else "")
    )


def verify(
    run_id: Annotated[str, typer.Argument(help="The run to check.")], store: StoreOption = None
) -> None:
    """Walk a run's hash chain; name the first bad seq."""
    log = open_store(store)
    report = log.verify(run_id)
    if report.ok:
        parent = log.parent(run_id)
        shared = f"; seqs 1..{parent.seq} shared with run {parent.run_id}" if parent else ""
        out.print(plain(f"run {run_id}: hash chain intact ({report.n_events} events{shared})"))
        return
    err.print(
        plain(f"run {run_id}: hash chain broken at seq {report.first_bad_seq}: {report.reason}")
    )
    raise typer.Exit(code=1)


COMMANDS = (status, events, verify, why, report, replay, sink)
