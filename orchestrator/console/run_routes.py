"""The run page's routes: its HTML (`run_page.render_run_html`) and the JSON it fetches
(`run_data`: the page's data, incremental after a seq; one step's rollouts; one decision's why).
The page learns that its run moved from `/api/runs/{id}/stream` (orchestrator/console/api.py)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from orchestrator.console.api import JSON, MAX_SEQ, _run_id, error, run_and_after, services
from orchestrator.errors import OrchestratorError, UsageError


def api_base(run_id: str) -> str:
    return f"/api/runs/{run_id}"


async def run_page(request: Request) -> Response:
    from orchestrator.console.run_page import render_run_html

    run_id, refused = await _run_id(request)
    if refused is not None:
        return Response(refused.body, refused.status_code, media_type="text/plain")
    html = render_run_html(run_id, data=None, inline=False, api_base=api_base(run_id))
    return HTMLResponse(html, headers={"cache-control": "no-store"})


async def run_data(request: Request) -> Response:
    from orchestrator.console.run_data import run_page_data

    run_id, after, refused = await run_and_after(request)
    if refused is not None:
        return refused
    log = services(request).log
    return JSON(await run_in_threadpool(run_page_data, log, run_id, after))


async def step(request: Request) -> Response:
    from orchestrator.console.run_data import step_data

    run_id, refused = await _run_id(request)
    if refused is not None:
        return refused
    number = request.path_params["step"]
    if number > MAX_SEQ:  # a step no run reaches, and past what the JSON encoder writes
        return error(404, f"run {run_id} has no step {str(number)[:40]}")
    log = services(request).log
    try:
        return JSON(await run_in_threadpool(step_data, log, run_id, number))
    except UsageError as e:  # a step the run never logged
        return error(404, str(e))


async def why(request: Request) -> Response:
    from orchestrator.console.run_data import why_data

    run_id, refused = await _run_id(request)
    if refused is not None:
        return refused
    seq = request.path_params["seq"]
    if seq > MAX_SEQ:
        return error(404, f"run {run_id} has no seq {str(seq)[:40]}")
    log = services(request).log
    try:
        return JSON(await run_in_threadpool(why_data, log, run_id, seq))
    except OrchestratorError as e:  # a seq `why` does not explain
        return error(404, str(e))


routes: list[BaseRoute] = [
    Route("/runs/{run_id}", run_page),
    Route("/api/runs/{run_id}/data", run_data),
    Route("/api/runs/{run_id}/step/{step:int}", step),
    Route("/api/runs/{run_id}/why/{seq:int}", why),
]
