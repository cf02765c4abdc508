"""`rlvr status [RUN]`: every run of a store in one table, or one run in detail; and `rlvr runs
hide|unhide RUN`, which leaves a run out of (or brings it back into) the lists."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from orchestrator.cli.options import (
    TABLE_WIDTH,
    RunArgument,
    StoreOption,
    err,
    find_run,
    open_store,
    out,
    readable_state,
)
from orchestrator.terminal import plain

if TYPE_CHECKING:
    from store.log import EventLog, RunSummary


def status(
    run_id: Annotated[
        str | None,
        typer.Argument(
            help="A run id, the start of one, or `latest`; every run when left out.", metavar="RUN"
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    show_all: Annotated[
        bool, typer.Option("--all", help="List hidden runs too (`rlvr runs hide`).")
    ] = False,
    store: StoreOption = None,
) -> None:
    """Every run (state, step, health, last metrics, parent), or one run in detail."""
    log = open_store(store)
    if run_id is not None:
        _one_run(log, find_run(log, run_id), as_json)
        return
    rows = _rows(log, show_all)
    if as_json:
        print(json.dumps(rows))
        return
    out.print(_table(rows), width=max(out.width, TABLE_WIDTH))
    for row in rows:
        if row["state"] == "unreadable":
            err.print(f"run {plain(row['run_id'])} cannot be read: {plain(row['error'])}")


def _one_run(log: EventLog, run_id: str, as_json: bool) -> None:
    from orchestrator.audit.status_view import detail_table, run_detail, unless_gone
    from orchestrator.audit.summary import pause_reason, print_summary, run_summary
    from orchestrator.driver.lease import holder_is_dead
    from store import requests
    from store.labels import RunLabels
    from store.leases import LeaseTable

    summary = log.summary(run_id)
    state = readable_state(log, run_id)
    lease = unless_gone(LeaseTable(log).get(run_id), holder_is_dead)
    detail = run_detail(state, summary, lease)
    queue = requests.pending_for(log.engine, run_id, log.key)
    detail["queued_requests"] = queue.queued  # with a key, only rows whose MAC verifies
    detail["refused_requests"] = queue.refused
    detail["hidden"] = run_id in RunLabels(log).hidden()
    summary_dict = run_summary(state, store_url=log.url, pause_reason=pause_reason(log, state))
    if as_json:
        print(json.dumps({**detail, **summary_dict}))
        return
    out.print(detail_table(detail), width=max(out.width, TABLE_WIDTH))
    print_summary(summary_dict, out)


def _rows(log: EventLog, show_all: bool) -> list[dict[str, Any]]:
    from orchestrator.audit.status_view import health, unless_gone
    from orchestrator.driver.commands import BROKEN_RUN_ERRORS, load_state
    from orchestrator.driver.lease import holder_is_dead
    from store.labels import RunLabels
    from store.leases import LeaseTable, LeaseUnreadable
    from store.run_ids import InvalidRunIdError, listed_id_problem

    hidden = RunLabels(log).hidden()
    leases = LeaseTable(log).all()
    summaries = log.runs()
    rows = _deleted_rows(log, {s.run_id for s in summaries})
    for summary in summaries:
        if summary.run_id in hidden and not show_all:
            continue
        if (invalid := listed_id_problem(summary.run_id)) is not None:  # round 23, log 009
            rows.append(_broken_row(summary, InvalidRunIdError(invalid)))
            continue
        try:
            state = load_state(log, summary.run_id)
        except BROKEN_RUN_ERRORS as e:
            rows.append(_broken_row(summary, e))
            continue
        try:
            lease = unless_gone(leases.get(summary.run_id), holder_is_dead)
            lease_health = health(state, lease)
        except LeaseUnreadable as e:  # listed as unreadable, the others all the same
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
                # a finished run has no holder: a lease row never overrides the log's end
                "lease_holder": lease.owner if lease is not None and not state.finished else None,
                "health": lease_health,
                "parent": f"{state.parent[0]}@{state.parent[1]}" if state.parent else None,
                "hidden": summary.run_id in hidden,
            }
        )
    return rows


def _deleted_rows(log: EventLog, listed: set[str]) -> list[dict]:
    """With a chain key: runs whose keyed head is there but whose rows are not (a run deleted
    whole), listed as unreadable instead of left out in silence."""
    if log.key is None:
        return []
    rows = []
    for run_id, seq in log.key.signed_runs().items():
        if run_id in listed:
            continue
        error = (
            f"the keyed head is at seq {seq} but this store has no row of the run (deleted "
            f"whole, or these heads are another store's: {log.key.heads_dir})"
        )
        rows.append({
            "run_id": run_id, "state": "unreadable", "step": None, "last_metrics": {},
            "last_event": None, "last_event_at": None, "lease_holder": None, "health": "broken",
            "parent": None, "error": error, "hidden": False,
        })  # fmt: skip
    return rows


def _broken_row(summary: RunSummary, error: Exception) -> dict:
    """A run whose log does not fold: listed by name, with what is wrong, beside the others."""
    from store.run_ids import listed_text

    return {
        "run_id": listed_text(summary.run_id), "state": "unreadable", "step": None,
        "last_metrics": {}, "last_event": listed_text(summary.last_type),
        "last_event_at": listed_text(summary.last_recorded_at),
        "lease_holder": None, "health": "broken", "parent": None, "error": str(error),
        "hidden": False,
    }  # fmt: skip


_SHORT_METRICS = {"reward_mean": "reward", "kl": "kl", "verify_rate": "verify"}


def _table(rows: list[dict[str, Any]]) -> Any:
    """One line per run in 100 columns: the whole run id, what it is doing, and its health in a
    word (`rlvr status RUN` says the rest)."""
    from rich import box
    from rich.table import Table

    from orchestrator.audit.status_view import short_health

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    table.add_column("run", no_wrap=True)
    table.add_column("state", no_wrap=True)
    table.add_column("step", justify="right")
    table.add_column("health", no_wrap=True)
    table.add_column("last metrics")
    if any(row["parent"] for row in rows):
        table.add_column("branch of")
    for row in rows:
        metrics = " ".join(
            f"{_SHORT_METRICS[k]} {v:.3g}" for k, v in row["last_metrics"].items() if v is not None
        )
        cells = [
            plain(_shown_id(row["run_id"])) + (" (hidden)" if row.get("hidden") else ""),
            plain(row["state"]),
            str(row["step"] if row["step"] is not None else "-"),
            plain(short_health(row["health"])),
            plain(metrics or "-"),
        ]
        if len(table.columns) == 6:
            cells.append(plain(row["parent"] or "-"))
        table.add_row(*cells)
    return table


def _shown_id(run_id: str) -> str:
    """The id as listed: whole, unless no command reads it (written by SQL: 300 characters made
    the state column `unr…`; round 23, log 012), then its first 40 characters."""
    from store.run_ids import listed_id_problem

    if listed_id_problem(run_id) is None or len(run_id) <= 40:
        return run_id
    return run_id[:39] + "…"


runs_app = typer.Typer(
    help="Organise the runs of a store: hide a run from lists, or show it again.",
    no_args_is_help=True,
)


@runs_app.command("hide")
def hide(run_id: RunArgument, store: StoreOption = None) -> None:
    """Leave RUN out of `rlvr status` and `latest`; its log is untouched (`rlvr runs unhide`)."""
    _label(run_id, store, hidden=True)


@runs_app.command("unhide")
def unhide(run_id: RunArgument, store: StoreOption = None) -> None:
    """List RUN again."""
    _label(run_id, store, hidden=False)


def _label(given: str, store: str | None, *, hidden: bool) -> None:
    """A label lives outside the run's hash chain (store/labels.py): it never appends to the run,
    so it is safe while another process drives it."""
    import getpass
    import socket

    from store.labels import RunLabels

    log = open_store(store)
    run_id = find_run(log, given)
    changed = RunLabels(log).set_hidden(
        run_id, hidden, by=f"{getpass.getuser()}@{socket.gethostname()}"
    )
    what = "hidden from lists" if hidden else "listed again"
    already = "" if changed else " (it already was)"
    out.print(plain(f"run {run_id}: {what}{already}"))
