"""The console's Starlette app over one store: pages, JSON routes, server-sent events, static
assets (package data, no CDN), behind `security.ConsoleGuard`.

`create_app` takes its parts as arguments (the store, where it is bound, the token, read-only);
`rlvr console` (orchestrator/cli/console_command.py) builds it and serves it with uvicorn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from orchestrator.console import api, pages
from orchestrator.console.security import Binding, ConsoleGuard
from orchestrator.errors import OrchestratorError
from orchestrator.logging import get_logger
from store.errors import StoreError, UnknownRunError
from store.log import EventLog
from store.rows import PAYLOAD_ERRORS
from store.verification import ChainBroken

STATIC = Path(__file__).parent / "static"


logger = get_logger("rlvr.console")


def create_app(log: EventLog, binding: Binding, *, read_only: bool = False) -> Starlette:
    actions = _action_routes()
    routes: list[BaseRoute] = [
        Route("/", pages.runs_page),
        Route("/runs/{run_id}/events", pages.events_page),
        Route("/compare", pages.compare_page),
        *api.routes,
        *_run_page_routes(),
        *actions,
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(ConsoleGuard, binding=binding)],
        exception_handlers={
            404: _not_found,
            StoreError: _refused,
            OrchestratorError: _refused,
            **dict.fromkeys(PAYLOAD_ERRORS, _unreadable),
        },
    )
    app.state.services = api.Services(log)
    app.state.binding = binding
    app.state.action_token = binding.token
    app.state.read_only = read_only
    app.state.actions = bool(actions) and not read_only  # the pages offer branch forms
    app.state.store_label = store_label(log)
    return app


def store_label(log: EventLog) -> str:
    """The store as shown in the header: a PostgreSQL URL without its password."""
    url = str(log.url)
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://{rest.rsplit('@', 1)[1]}"
    return url


async def _not_found(request: Request, exc: Any) -> Response:
    if request.url.path.startswith("/api/"):
        return api.error(404, f"no such route: {request.url.path}")
    return Response("not found", status_code=404, media_type="text/plain")


async def _unreadable(request: Request, exc: Exception) -> Response:
    """A value a page reads outside the fold that does not have its type (a chain-consistent row
    the code never wrote, read by the step or compare view): a refusal naming the error, as for
    the fold's own refusals, with the traceback in the console's log, not the page's."""
    logger.warning("console could not read a run's data", path=request.url.path, exc_info=exc)
    return await _refused(
        request,
        StoreError(f"the log holds a value this page cannot read: {type(exc).__name__}: {exc}"),
    )


async def _refused(request: Request, exc: Exception) -> Response:
    """A run the store refuses to hand out (a row that does not fit its type, a tampered chain)
    or a command the orchestrator refuses: the message, as JSON under /api/ (the page shows it),
    not a 500 and a traceback."""
    status = 404 if isinstance(exc, UnknownRunError) else 409
    if isinstance(exc, ChainBroken):  # every route, the runs list and compare refuse it now
        request.app.state.services.chains.record(exc)
    if request.url.path.startswith("/api/"):
        return api.error(status, str(exc))
    return Response(f"error: {exc}", status_code=status, media_type="text/plain")


def _run_page_routes() -> list[BaseRoute]:
    """The run page and its data (orchestrator/console/run_page.py, run_data.py)."""
    from orchestrator.console import run_routes

    return run_routes.routes


def _action_routes() -> list[BaseRoute]:
    """Branch, resume, pause (orchestrator/console/actions.py), refused under --read-only."""
    try:
        from orchestrator.console import actions
    except ImportError:  # built without the actions module: the console only reads
        return []
    return list(actions.routes)
