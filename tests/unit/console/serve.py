"""The console served for real: uvicorn on 127.0.0.1 (an ephemeral port) in a thread of the test
process, the app built by the same `create_app` that `rlvr console` serves."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx
import uvicorn

from orchestrator.cli.console_command import _bound_socket
from orchestrator.console.app import create_app
from orchestrator.console.security import Binding
from store.log import EventLog


@dataclass
class Served:
    binding: Binding
    base: str  # http://127.0.0.1:PORT

    @property
    def token(self) -> str:
        return self.binding.token

    def client(self, **kwargs) -> httpx.Client:
        return httpx.Client(base_url=self.base, timeout=10, **kwargs)


@contextmanager
def serving(
    log: EventLog, *, read_only: bool = False, host: str = "127.0.0.1", token: str | None = None
) -> Iterator[Served]:
    """Serve the console over `log`. `host` is what the console believes it is bound to (the
    socket is always 127.0.0.1): a test of the rules for another host sends that Host header."""
    sock = _bound_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    binding = Binding(host, port, token or secrets.token_urlsafe(24))
    app = create_app(log, binding, read_only=read_only)
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the console did not start")
        time.sleep(0.02)
    try:
        yield Served(binding, f"http://127.0.0.1:{port}")
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
