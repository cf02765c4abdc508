"""A minimal console for the actions' tests: a Starlette app with the two state fields the real
console sets (`action_token`, `read_only`) and the store's services, the action routes mounted,
served by real uvicorn on 127.0.0.1 in a thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import uvicorn
from starlette.applications import Starlette

from orchestrator.console.actions import routes
from store.log import EventLog


@dataclass
class _Services:
    log: EventLog


@contextmanager
def serving(log: EventLog, token: str, *, read_only: bool = False) -> Iterator[str]:
    """The base URL (`http://127.0.0.1:PORT`) of a console over `log` while the block runs."""
    app = Starlette(routes=list(routes))
    app.state.services = _Services(log)
    app.state.action_token = token
    app.state.read_only = read_only
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
