"""`rlvr console`: serve the run console over one store, on 127.0.0.1 unless told otherwise.

The console's libraries (starlette, uvicorn: the `console` extra) are imported here, when the
command runs, never by `rlvr --help`. The URL printed carries the per-launch token: opening it
sets the console's cookie, and the pages hand the token to the action forms.
"""

from __future__ import annotations

import secrets
import socket
from typing import Annotated

import typer

from orchestrator.cli.options import StoreOption, open_store
from orchestrator.errors import UsageError
from orchestrator.terminal import plain

MIN_TOKEN_CHARS = 16


def console(
    store: StoreOption = None,
    port: Annotated[
        int, typer.Option("--port", help="Port to listen on (0: any free port).", min=0, max=65535)
    ] = 8765,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to listen on. Anything but loopback needs --token: every request "
            "must then carry it.",
        ),
    ] = "127.0.0.1",
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            help=f"The console's secret (at least {MIN_TOKEN_CHARS} characters); a new one "
            "each launch when left out.",
        ),
    ] = None,
    read_only: Annotated[
        bool, typer.Option("--read-only", help="Pages only: branch, resume and pause refused.")
    ] = False,
) -> None:
    """A local web app over the store: runs, a run's charts and decisions, its events, compare."""
    from orchestrator.console.security import Binding

    _check_host_and_token(host, token)
    try:
        import uvicorn

        from orchestrator.console.app import create_app, store_label
    except ModuleNotFoundError as e:
        raise UsageError(
            f"rlvr console needs the console extra ({e.name} is missing): "
            "pip install 'rlvr-orchestrator[console]'"
        ) from e
    log = open_store(store)
    sock = _bound_socket(host, port)
    binding = Binding(host, sock.getsockname()[1], token or secrets.token_urlsafe(24))
    app = create_app(log, binding, read_only=read_only)
    # Open live streams never end by themselves: Ctrl-C closes them after a short grace.
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2
    )
    server = uvicorn.Server(config)
    mode = " (read-only)" if read_only else ""
    # Printed whole and flushed at once: a person (or a script) reads the URL off this line.
    print(plain(f"rlvr console{mode} on {store_label(log)}: open {binding.url()}"), flush=True)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        log.close()


def _check_host_and_token(host: str, token: str | None) -> None:
    """Beyond loopback only with a token, and a token long enough to be a secret."""
    from orchestrator.console.security import is_loopback

    if not is_loopback(host) and token is None:
        raise UsageError(
            f"--host {host} serves the console beyond this machine: pass --token SECRET "
            f"(at least {MIN_TOKEN_CHARS} characters) as well"
        )
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise UsageError(f"--token: at least {MIN_TOKEN_CHARS} characters, got {len(token)}")


def _bound_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as e:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {e.strerror}") from e
    sock.listen(128)
    sock.set_inheritable(True)
    return sock
