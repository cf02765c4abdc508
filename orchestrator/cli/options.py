"""What every command shares: the `--store` option and the rule for opening a store to read,
and the consoles (results on stdout, errors and progress on stderr)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from orchestrator.errors import OrchestratorError

if TYPE_CHECKING:
    from store.log import EventLog

# emoji=False: a `:name:` in text from the log stays as written.
out = Console(soft_wrap=True, emoji=False)
err = Console(stderr=True, soft_wrap=True, emoji=False)  # an error is one line, however narrow

StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store", envvar="RLVR_STORE", help="Event store: SQLite path or postgresql:// URL."
    ),
]
DEFAULT_STORE = "runs/events.db"


def open_store(store: str | None) -> EventLog:
    """The store a read command looks at; a missing SQLite file is an error, not a new store."""
    from store.backends import backend_for  # SQLAlchemy: only for commands that open a store
    from store.log import EventLog

    target = store or DEFAULT_STORE
    path = backend_for(target).local_file()
    if path is not None and not path.is_file():
        raise OrchestratorError(f"no event store at {target} (pass --store or set RLVR_STORE)")
    return EventLog(target)
