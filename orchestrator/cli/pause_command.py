"""`rlvr pause RUN`: ask a run to pause. Its driver, on this host or another (PostgreSQL), pauses
at its next batch; a run no driver holds is paused at once; `rlvr resume RUN` continues it."""

from __future__ import annotations

from typing import Annotated

import typer

from orchestrator.cli.options import RunArgument, StoreOption, open_run, out
from orchestrator.terminal import plain


def who_asks(where: str) -> str:
    """`alice@host (rlvr pause)`: the person a pause names."""
    import getpass
    import socket

    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        user = "unknown user"
    return f"{user}@{socket.gethostname()} ({where})"


def pause(
    run_id: RunArgument,
    reason: Annotated[
        str, typer.Option("--reason", help="Why, recorded with the pause (`rlvr status` shows it).")
    ] = "",
    store: StoreOption = None,
) -> None:
    """Pause a run at its next batch (also when its driver runs on another host); `rlvr resume
    RUN` continues it."""
    from orchestrator.actions import request_pause

    log, found = open_run(store, run_id)
    outcome = request_pause(log, found, reason, by=who_asks("rlvr pause"))
    out.print(plain(outcome.said()), highlight=False)
