"""The commands that read a run's log and write nothing to it: events, verify, why, report,
replay, sink (status: status_command.py)."""

from __future__ import annotations

import copy
import json
import shutil
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from orchestrator.cli.options import (
    DEFAULT_STORE,
    RunArgument,
    StoreOption,
    err,
    open_run,
    out,
    readable_state,
)
from orchestrator.errors import OrchestratorError, UsageError
from orchestrator.terminal import plain, visible
from store.run_ids import run_path

if TYPE_CHECKING:
    from collections.abc import Sequence

    from store.rows import StoredEvent

# Each command imports what reads the log (the store and SQLAlchemy, the projections, pydantic
# events) when it runs: `rlvr --help` and `rlvr check` never need them.


def replay(
    run_id: RunArgument,
    config: Annotated[Path | None, typer.Option("--config", help="Other settings (TOML).")] = None,
    overrides: Annotated[list[str] | None, typer.Argument(help="key=value overrides.")] = None,
    store: StoreOption = None,
) -> None:
    """Show what (other) policy settings would decide on an existing log, beside what was decided."""
    from orchestrator.audit.replay import replay_command

    log, run_id = open_run(store, run_id)
    replay_command(run_id, config, overrides or [], log, out)


def why(
    run_id: RunArgument,
    gate: Annotated[str | None, typer.Option("--gate", help="Explain this gate.")] = None,
    seq: Annotated[int | None, typer.Option("--seq", help="Explain the event at this seq.")] = None,
    full: Annotated[
        bool,
        typer.Option(
            "--full", help="Every metric of every evidence step, not only the window the rule read."
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    store: StoreOption = None,
) -> None:
    """Explain a gate, a policy decision or a rollback: evidence, setting, causes, consequences."""
    from orchestrator.audit.verifier_changes import verifier_lines
    from orchestrator.audit.why import WHY_TYPES, explain, print_explanation
    from orchestrator.rescore.words import summary_lines

    log, run_id = open_run(store, run_id)
    explanation = explain(
        log.read(run_id, types=WHY_TYPES), gate=gate, seq=seq, last_seq=log.last_seq(run_id)
    )
    # Run-wide facts beside the items: where the verifier changed (the fold's) and the rescores
    # of the run's rollouts (audit records: rows of their own type).
    whole = gate is None and seq is None
    changes = verifier_lines(readable_state(log, run_id)) if whole else []
    rescores = (
        [r.event.model_dump() for r in log.read(run_id, types=["RunRescored"])] if whole else []
    )
    if as_json:
        typer.echo(
            json.dumps({**explanation.to_json(), "verifier_changes": changes, "rescores": rescores})
        )
        return
    console = Console(emoji=False)
    print_explanation(explanation, console, full=full)
    for line in changes:
        console.print(plain(line), soft_wrap=True)
    for record in rescores:
        for line in summary_lines(record, run_id):
            console.print(plain(line), soft_wrap=True)


def report(
    run_id: RunArgument,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Output directory (default: the run directory's report/)."),
    ] = None,
    store: StoreOption = None,
) -> None:
    """Write the run page (charts, why, rollouts) as one HTML file that opens with no server or network."""
    from orchestrator.audit.report import build_report
    from store.blobs import BlobStore

    log, run_id = open_run(store, run_id)
    with log.walking_once():  # several reads of one run: its rows are walked by the first
        state = readable_state(log, run_id)
        log_root = _recorded_log_root(run_id, state.config)
        out = out if out is not None else run_path(log_root, run_id) / "report"
        # Read only: a blob store that is not there is not created (the rollout text goes blank).
        blobs = BlobStore(log_root / "blobs") if (log_root / "blobs").is_dir() else None
        try:
            report_path = build_report(log, run_id, out, blobs=blobs)
        except OSError as e:
            raise OrchestratorError(
                f"cannot write the report to {out}: {e.strerror or e}"
                + (f" ({e.filename})" if e.filename and str(e.filename) != str(out) else "")
            ) from e
    typer.echo(visible(report_path))


def _recorded_log_root(run_id: str, config: dict) -> Path:
    """The recorded `log_path` (where the run's blobs are), or `runs`: one that is not text (`5`,
    `null`, a forged RunStarted) is refused naming seq 1, as the console's page refuses it."""
    value = config.get("log_path", "runs")
    if not isinstance(value, str) or not value or "\0" in value:
        raise OrchestratorError(
            f"run {run_id}: seq 1: the recorded config's log_path {value!r:.60} is not a path"
        )
    return Path(value)


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
    from store.exports import checked_rows, export_lines, import_file, read_export
    from store.import_check import checked_import
    from store.keyed import ChainKey
    from store.log import EventLog

    if target == "import":
        if argument is None:
            raise OrchestratorError("usage: rlvr events import run.jsonl")
        # a bad or empty file creates no store, nor does a broken chain
        export = read_export(Path(argument), _recorded_config)
        checked_import(export[0], export[1], ChainKey.from_env(), export[2])
        target_log = EventLog(store or DEFAULT_STORE)
        n = import_file(target_log, Path(argument), export)
        keyed = "and its keyed head" if target_log.key is not None else "(no chain key: unkeyed)"
        err.print(plain(f"imported {n} events from {argument}; hash chain verified {keyed}"))
        return
    if target == "export":
        if argument is None:
            raise OrchestratorError("usage: rlvr events export RUN > run.jsonl")
        log, run_id = open_run(store, argument)
        _all_or_nothing(line.encode() for line in export_lines(log, run_id))
        return
    types = _known_types(type_ or [])
    log, run_id = open_run(store, target)
    # Every row handed out is checked against its event's schema first, as an export's are.
    rows = checked_rows(log.read(run_id, types=types or None))
    if as_json:
        _all_or_nothing(stored.export_line() for stored in rows)
        return
    for stored in rows:
        out.print(
            f"{stored.seq:>6}  {plain(stored.recorded_at[:19])}  [bold]{plain(stored.type)}[/]"
            f"  {plain(stored.payload[:160])}",
            highlight=False,
            markup=True,
        )


def _all_or_nothing(lines: Iterable[bytes]) -> None:
    """Machine-readable rows reach stdout only once every row has been read and checked: a read
    refused at row N (a tampered row) leaves `> run.jsonl` empty, not N-1 rows an import would
    half-trust. Spooled to a temporary file past 64 MB, so a long run's log is never all in memory."""
    with tempfile.SpooledTemporaryFile(max_size=64 * 2**20) as spool:
        for line in lines:
            spool.write(line)
        spool.seek(0)
        sys.stdout.flush()
        shutil.copyfileobj(spool, sys.stdout.buffer, 2**20)


def _known_types(given: Sequence[str]) -> list[str]:
    """`--type` values checked against the event types this version knows: a typo is an error
    with the closest names, not an empty listing."""
    import difflib

    from store.events import EVENT_TYPES

    for name in given:
        if name not in EVENT_TYPES:
            close = difflib.get_close_matches(name, list(EVENT_TYPES), n=3, cutoff=0.5)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise UsageError(
                f"--type {name!r}: no such event type{hint}; known types: "
                + ", ".join(sorted(EVENT_TYPES))
            )
    return list(given)


def sink(
    run_id: RunArgument,
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
    """Write a recorded run's metrics to TensorBoard (one folder per run) or a W&B run.

    \f
    The history the run kept: spans abandoned by a rewind are left out."""
    from orchestrator.config import apply_overrides
    from orchestrator.driver.commands import load_state
    from orchestrator.sinks.metrics import METRIC_TYPES, backfill

    log, run_id = open_run(store, run_id)
    state = load_state(log, run_id)
    # The settings it trained with: the recorded config with a branch's overrides.
    config = apply_overrides(copy.deepcopy(state.config), list(state.config_overrides))
    parent = f"{state.parent[0]}@{state.parent[1]}" if state.parent else None
    # The metric rows and the rewinds that abandon some of them: all a sink writes.
    rows = log.read(run_id, types=[*METRIC_TYPES, "RunRewound"])
    steps = backfill(rows, config, run_id, to, directory, project, name, parent)
    where = directory / run_id if to == "tensorboard" and directory else directory
    err.print(
        plain(f"run {run_id}: {steps} steps written to {to}")
        + (plain(f" in {where}") if where else "")
    )


def verify(run_id: RunArgument, store: StoreOption = None) -> None:
    """Walk a run's hash chain; name the first bad seq."""
    from store.snapshots import Snapshots

    log, run_id = open_run(store, run_id)
    report = log.verify(run_id)
    if report.ok:
        parent = log.parent(run_id)
        shared = f"; seqs 1..{parent.seq} shared with run {parent.run_id}" if parent else ""
        # With a key, the snapshots a fold could start from are signed too (else none is checked).
        snapshots = ""
        if log.key is not None:
            snapshots = f"; {Snapshots(log).check_signed(run_id)} signed snapshots"
        out.print(
            plain(f"run {run_id}: hash chain intact ({report.n_events} events{shared}{snapshots})")
        )
        return
    # One `error:` line, as every other reader refuses a broken run.
    why = f"run {run_id}: hash chain broken at seq {report.first_bad_seq}: {report.reason}"
    err.print(plain(f"error: {why}"))
    raise typer.Exit(code=1)


COMMANDS = (events, verify, why, report, replay, sink)


def _recorded_config(stored: StoredEvent) -> None:
    """An imported `RunStarted`'s config as the readers take it (`lifecycle.config_of`): a config
    no reader can use (`"grpo": [1]`, which `sink` met as a bare TypeError) is refused by the
    import, naming its file and line (red team round 26, log 015)."""
    from orchestrator.config import validate_config
    from orchestrator.errors import ConfigError

    if stored.type != "RunStarted":
        return
    try:
        validate_config(stored.fields()["config"], source="its recorded config")
    except ConfigError as e:
        raise ValueError(str(e)) from e
