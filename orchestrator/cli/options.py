"""What every command shares: the `--store` option and the rule for opening a store to read, how a
run is named on the command line (`latest`, an id, or the start of one), and the consoles
(results on stdout, errors and progress on stderr)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from orchestrator.errors import OrchestratorError, UsageError

if TYPE_CHECKING:
    from store.log import EventLog
    from store.projections import RunState


class _Output(Console):
    """Results on stdout. `rlvr status | head`: the reader going away is not an error (rich's
    own handling exits 1): stdout goes to /dev/null and the command ends with 0."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(0)


# Narrower than this, a COLUMNS from the environment is not a terminal's width: rich wrote nothing
# at all at COLUMNS=0 (a refusal exited 1 with no line: red team round 28, log 003) and one
# character a line at 1. Such a value is dropped before any console reads it (rich then asks
# the terminal, or uses 80), for the drivers this process starts too.
MIN_COLUMNS = 20
for _name in ("COLUMNS", "LINES"):
    if os.environ.get(_name, "").strip().isdigit() and int(os.environ[_name]) < MIN_COLUMNS:
        del os.environ[_name]

# emoji=False: a `:name:` in text from the log stays as written.
out = _Output(soft_wrap=True, emoji=False)
err = Console(stderr=True, soft_wrap=True, emoji=False)  # an error is one line, however narrow

StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store", envvar="RLVR_STORE", help="Event store: SQLite path or postgresql:// URL."
    ),
]
DEFAULT_STORE = "runs/events.db"
RunArgument = Annotated[
    str, typer.Argument(help="A run id, the start of one, or `latest`.", metavar="RUN")
]
# Tables are laid out for this many columns at least (a pipe or a narrow terminal included).
TABLE_WIDTH = 100


def open_store(store: str | None) -> EventLog:
    """The store a read command looks at; a missing SQLite file is an error, not a new store."""
    from store.backends import backend_for  # SQLAlchemy: only for commands that open a store
    from store.log import EventLog

    target = store or DEFAULT_STORE
    path = backend_for(target).local_file()
    try:
        found = path is None or path.is_file()
    except OSError as e:  # a folder on the way this user may not enter: not "cannot write"
        raise UsageError(f"cannot read the event store {target}: {e.strerror or e}") from e
    if not found:
        raise UsageError(f"no event store at {target} (pass --store or set RLVR_STORE)")
    return EventLog(target)


def find_run(log: EventLog, given: str) -> str:
    """The run `given` names: `latest` (the most recently started run that is not hidden), a run
    id, or the start of exactly one run id. `UnknownRunError` (bad input) otherwise."""
    from store.errors import UnknownRunError
    from store.run_ids import check_run_id
    from store.text_files import is_utf8

    # The label table and the lookups are imported only for a name that is not a whole run id:
    # a table model is a good part of a short command's import time.
    if not is_utf8(given):  # bytes a shell passed through: no query can hold it
        raise UnknownRunError(f"no run {given!r:.80} in {log.url}: a run id is UTF-8 text")
    if given == "latest":
        from store.labels import RunLabels
        from store.run_lookup import latest

        found = latest(log, RunLabels(log).hidden())
        if found is None:
            raise UnknownRunError(f"`latest`: no runs in {log.url}")
        return check_run_id(found)  # read from the store: it names directories from here on
    if log.last_seq(given):
        return check_run_id(given)
    from store.run_lookup import starting_with

    matches = starting_with(log, given)
    if len(matches) == 1:
        return check_run_id(matches[0])
    if matches:
        shown = ", ".join(matches[:5]) + (", ..." if len(matches) > 5 else "")
        raise UnknownRunError(f"{given!r} is the start of several runs ({shown}): type more of it")
    log.require(given)  # the error names the latest runs
    return given


def open_run(store: str | None, given: str) -> tuple[EventLog, str]:
    """The store a read command looks at, and the run `given` names there."""
    log = open_store(store)
    return log, find_run(log, given)


def readable_state(log: EventLog, run_id: str) -> RunState:
    """The run's folded state; a run whose log does not fold is named in one clear error."""
    from orchestrator.driver.commands import BROKEN_RUN_ERRORS, load_state
    from store.errors import UnknownRunError
    from store.verification import ChainBroken

    try:
        return load_state(log, run_id)
    except (UnknownRunError, ChainBroken):
        raise  # these name the run already
    except BROKEN_RUN_ERRORS as e:
        if str(e).startswith(f"run {run_id}: "):  # named already: one line as every reader's
            raise
        raise OrchestratorError(f"run {run_id} cannot be read: {e}") from e
