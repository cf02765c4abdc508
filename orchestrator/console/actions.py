"""The console's actions: branch a run at an event (a form that shows the config diff before it
starts), resume a paused run, pause a live one. Each calls the lifecycle actions the command line
uses (orchestrator/actions.py); a driver started here runs in a process of its own that outlives
the console.

Every POST is refused (403, a JSON error) under `--read-only` (`app.state.read_only`) or without
the per-launch token (`app.state.action_token`) in the `X-Console-Token` header, compared in
constant time: a cookie alone never acts. The form page gets the token from its URL's fragment
(`#token=...`, never sent to a server) or, when the request carries the console's token cookie,
from a data attribute this page writes; its script is a static file (CSP `script-src 'self'`).
"""

from __future__ import annotations

import hmac
import html
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from orchestrator import actions
from orchestrator.console.api import MAX_SEQ
from orchestrator.driver.commands import BROKEN_RUN_ERRORS
from orchestrator.errors import ConfigError, LeaseHeldError, OrchestratorError, UsageError
from store.errors import StoreError, UnknownRunError
from store.log import EventLog
from store.retry import StoreUnavailable
from store.run_ids import InvalidRunIdError

STATIC = Path(__file__).parent / "static"
TOKEN_HEADER = "x-console-token"
TOKEN_COOKIE = "rlvr_console"  # the console's HttpOnly cookie (security.py), read, never trusted
MAX_BODY = 64 * 1024


def _error(status: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def _token_ok(given: str | None, expected: Any) -> bool:
    if not given or not isinstance(expected, str) or not expected:
        return False
    return hmac.compare_digest(given.encode(), expected.encode())


def _log(request: Request) -> EventLog:
    return request.app.state.services.log


Handler = Callable[[EventLog, dict[str, Any]], Any]


def _action(handle: Handler) -> Callable[[Request], Awaitable[Response]]:
    """A POST route: guarded (read-only, token), its JSON body parsed, `handle` run in a worker
    thread (it reads and writes the store), its errors turned into one JSON error each."""

    async def endpoint(request: Request) -> Response:
        state = request.app.state
        if getattr(state, "read_only", True):
            return _error(403, "this console is read-only (started with --read-only)")
        if not _token_ok(request.headers.get(TOKEN_HEADER), getattr(state, "action_token", None)):
            return _error(403, "actions need the console's token in the X-Console-Token header")
        raw = await request.body()
        if len(raw) > MAX_BODY:
            return _error(413, f"request body over {MAX_BODY} bytes")
        try:
            body = json.loads(raw or b"{}")
        except (ValueError, UnicodeDecodeError) as e:
            return _error(400, f"the request body is not JSON: {e}")
        except RecursionError:  # the decoder recurses per level of nesting
            return _error(400, "the request body is nested too deeply")
        if not isinstance(body, dict):
            return _error(400, "the request body must be a JSON object")
        try:
            result = await run_in_threadpool(handle, _log(request), body)
        except actions.BranchRefused as e:
            return _error(400, str(e), fields=e.preview.errors, preview=e.preview.to_json())
        except (ConfigError, UsageError, InvalidRunIdError) as e:
            return _error(400, str(e))
        except UnknownRunError as e:
            return _error(404, str(e))
        except (LeaseHeldError, OrchestratorError) as e:
            return _error(409, str(e))
        except StoreUnavailable as e:  # retried until the retries ran out: try again later
            return _error(503, str(e))
        except StoreError as e:  # a damaged row, a tampered log, a lease row no driver wrote
            return _error(409, str(e))
        except BROKEN_RUN_ERRORS as e:  # what the fold could not read either
            return _error(409, f"run {body.get('run_id')} cannot be read: {e}")
        return JSONResponse(result)

    return endpoint


def _run_id(body: dict[str, Any]) -> str:
    run_id = body.get("run_id")
    if not isinstance(run_id, str) or not run_id:
        raise UsageError("run_id: a run id is required")
    return run_id


def _seq(body: dict[str, Any]) -> int:
    at = body.get("at_seq")
    if isinstance(at, str) and at.strip().isascii() and at.strip().isdigit():  # not "²"
        at = int(at)
    if not isinstance(at, int) or isinstance(at, bool) or not 0 < at <= MAX_SEQ:
        raise actions.BranchRefused(
            actions.BranchPreview(str(body.get("run_id")), 0, [], errors={"at": "at: a seq"})
        )
    return at


def _overrides(body: dict[str, Any]) -> dict[str, Any]:
    overrides = body.get("overrides") or {}
    if not isinstance(overrides, dict):
        raise UsageError("overrides: an object of config key -> value")
    return overrides


def _preview(log: EventLog, body: dict[str, Any]) -> dict[str, Any]:
    return actions.preview_branch(log, _run_id(body), _seq(body), _overrides(body)).to_json()


def _branch(log: EventLog, body: dict[str, Any]) -> dict[str, Any]:
    started = actions.start_branch(log, _run_id(body), _seq(body), _overrides(body))
    return {"run_id": started.run_id, "at_seq": started.at_seq, "pid": started.pid}


def _resume(log: EventLog, body: dict[str, Any]) -> dict[str, Any]:
    started = actions.start_resume(log, _resolved(log, _run_id(body)))
    return {"run_id": started.run_id, "pid": started.pid}


def _pause(log: EventLog, body: dict[str, Any]) -> dict[str, Any]:
    from orchestrator.cli.pause_command import who_asks

    reason = body.get("reason") or ""
    if not isinstance(reason, str):
        raise UsageError("reason: a string")
    outcome = actions.request_pause(log, _resolved(log, _run_id(body)), reason, who_asks("console"))
    return {"run_id": outcome.run_id, "queued_for": outcome.queued_for, "said": outcome.said()}


def _resolved(log: EventLog, run_id: str) -> str:
    log.require(run_id)  # UnknownRunError (404) naming the store's latest runs
    return run_id


async def run_state(request: Request) -> Response:
    """A run's state, step and pause reason: what the form follows after it starts a branch."""
    run_id = request.path_params["run_id"]

    def read() -> dict[str, Any]:
        from orchestrator.audit.summary import pause_reason
        from orchestrator.driver.commands import load_state

        log = _log(request)
        state = load_state(log, run_id)
        return {"run_id": run_id, "state": state.state, "step": state.step,
                "paused_reason": pause_reason(log, state)}  # fmt: skip

    try:
        return JSONResponse(await run_in_threadpool(read))
    except (UnknownRunError, InvalidRunIdError) as e:
        return _error(404, str(e))


async def branch_page(request: Request) -> Response:
    """The branch form for run `run_id` at `?at=SEQ`; all data goes in as escaped attributes and
    is shown by actions.js with `textContent`."""
    run_id = request.path_params["run_id"]
    at = request.query_params.get("at", "")
    state = request.app.state
    token = getattr(state, "action_token", "")
    carried = _token_ok(request.cookies.get(TOKEN_COOKIE), token)
    attrs = {
        "data-run": run_id,
        "data-at": at if at.isdigit() else "",
        "data-read-only": "true" if getattr(state, "read_only", True) else "false",
        "data-token": token if carried else "",
    }
    body = " ".join(f'{k}="{html.escape(v, quote=True)}"' for k, v in attrs.items())
    page = (STATIC / "actions.html").read_text(encoding="utf-8")
    return HTMLResponse(page.replace("<body>", f'<body id="branch-form" {body}>', 1))


def _static(name: str, media_type: str) -> Callable[[Request], Awaitable[Response]]:
    async def serve(request: Request) -> Response:
        return FileResponse(STATIC / name, media_type=media_type)

    return serve


routes: list[Route] = [
    Route("/api/actions/branch/preview", _action(_preview), methods=["POST"]),
    Route("/api/actions/branch", _action(_branch), methods=["POST"]),
    Route("/api/actions/resume", _action(_resume), methods=["POST"]),
    Route("/api/actions/pause", _action(_pause), methods=["POST"]),
    Route("/api/actions/runs/{run_id}", run_state, methods=["GET"]),
    Route("/runs/{run_id}/branch", branch_page, methods=["GET"]),
    Route("/actions/actions.js", _static("actions.js", "text/javascript"), methods=["GET"]),
    Route("/actions/actions.css", _static("actions.css", "text/css"), methods=["GET"]),
]
