"""The console's JSON and server-sent-event routes over one store: runs, a run's raw events (keyset
pages), two runs' curves for Compare, and the streams that tell a page its run moved.

Every route is a reader of the log: nothing here appends to a run. The streams poll the run's last
seq (one indexed query) every `POLL_S`: each poll opens its own transaction, so a write committed
by another process (SQLite or PostgreSQL) is seen on the next poll.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

import orjson
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from orchestrator.console.runs_list import RunsList
from store.cursor import ChainState, LogCursor, page
from store.errors import StoreError, UnknownRunError
from store.events import EVENT_TYPES
from store.exports import checked_rows
from store.log import EventLog
from store.verification import ChainBroken

POLL_S = 0.2  # the run page's stream: a new step shows within a second
RUNS_POLL_S = 1.0  # the runs list's stream (one grouped query over every run)
PAGE_LIMIT = 100
MAX_PAGE_LIMIT = 500
PAYLOAD_CHARS = 4000  # a row's payload as shown on the events page; the rest is one click away
COMPARE_METRICS = ("reward_mean", "verify_rate", "kl")


class JSON(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)

    def __init__(self, content: Any, status_code: int = 200) -> None:
        super().__init__(content, status_code, headers={"cache-control": "no-store"})


class Services:
    """What the routes read through, built once per app (one store, caches shared by threads)."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        self.chains = ChainState(log)
        self.runs = RunsList(log, self.chains)
        self._series: dict[str, tuple[LogCursor, dict[str, list]]] = {}
        self._series_lock = threading.Lock()

    def series(self, run_id: str) -> dict[str, list]:
        """A run's step curves (as logged, a branch's shared prefix included), read only past the
        last read."""
        with self._series_lock:
            cursor, series = self._series.setdefault(
                run_id,
                (LogCursor(self.log, run_id), {"step": [], "seq": [], **_empty()}),
            )
            for row in cursor.read_new(types=["MetricsRecorded"]):
                fields = row.fields()
                metrics = fields.get("metrics", {})
                series["step"].append(fields.get("step"))
                series["seq"].append(row.seq)
                for name in COMPARE_METRICS:
                    series[name].append(metrics.get(name))
            return {k: list(v) for k, v in series.items()}

    def drop_series(self, run_id: str) -> None:
        with self._series_lock:
            self._series.pop(run_id, None)


def _empty() -> dict[str, list]:
    return {name: [] for name in COMPARE_METRICS}


def services(request: Request) -> Services:
    return request.app.state.services


# The largest seq or step a request may name: past 64 bits the JSON encoder cannot write it.
MAX_SEQ = 2**62


def error(status: int, message: str) -> JSON:
    return JSON({"error": message}, status)


async def _run_id(request: Request) -> tuple[str | None, JSON | None]:
    run_id = request.path_params["run_id"]
    try:
        await run_in_threadpool(services(request).log.require, run_id)
    except UnknownRunError as e:
        return None, error(404, str(e))
    except StoreError as e:
        return None, error(500, str(e))
    return run_id, None


def _int(request: Request, name: str, default: int, low: int, high: int) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if low <= value <= high else None


async def runs(request: Request) -> JSON:
    show_hidden = request.query_params.get("hidden") == "1"
    rows = await run_in_threadpool(services(request).runs.rows, show_hidden=show_hidden)
    state = request.app.state
    return JSON({"runs": rows, "read_only": state.read_only, "actions": state.actions})


async def events(request: Request) -> JSON:
    run_id, refused = await _run_id(request)
    if refused is not None:
        return refused
    after = _int(request, "after_seq", 0, 0, MAX_SEQ)
    limit = _int(request, "limit", PAGE_LIMIT, 1, MAX_PAGE_LIMIT)
    if after is None or limit is None:
        return error(400, f"after_seq must be a seq >= 0, limit 1..{MAX_PAGE_LIMIT}")
    types = request.query_params.getlist("type")
    unknown = [t for t in types if t not in EVENT_TYPES]
    if unknown:
        return error(400, f"unknown event type {unknown[0]!r}")
    return JSON(
        await run_in_threadpool(_events_page, services(request), run_id, after, types, limit)
    )


def _events_page(
    svc: Services, run_id: str, after: int, types: list[str], limit: int
) -> dict[str, Any]:
    chain = svc.chains.status(run_id)
    try:
        rows = page(svc.log, run_id, after, types or None, limit + 1)
        for row in rows[:limit]:  # each row shown checked against its schema, as `rlvr events`
            _ = row.event
        # ...and as it checks the rest: canonical text, a time the code writes (round 30)
        rows = [*checked_rows(rows[:limit]), *rows[limit:]]
        problem = None
    except ChainBroken as e:  # the badge says what the page met (never ok beside it)
        rows, problem = [], str(e)
        svc.chains.record(e)
        chain = svc.chains.known(run_id) or chain
    except StoreError as e:  # a payload not of its schema names its seq too
        rows, problem = [], str(e)
    shown = rows[:limit]
    return {
        "run_id": run_id,
        "events": [_event_json(r) for r in shown],
        "next_after_seq": shown[-1].seq if len(rows) > limit else None,
        "last_seq": svc.log.last_seq(run_id),
        "chain": {
            "verified_to": chain.verified_to,
            "broken_at": chain.broken_at,
            "reason": chain.reason,
        },
        "page_error": problem,
        "types": sorted(EVENT_TYPES),
    }


def _event_json(row: Any) -> dict[str, Any]:
    text = orjson.dumps(row.fields(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
    return {
        "seq": row.seq,
        "type": row.type,
        "schema_version": row.schema_version,
        "recorded_at": row.recorded_at,
        "run_id": row.run_id,  # a branch's shared prefix: the ancestor that stores the row
        "hash": row.hash,
        "payload": text[:PAYLOAD_CHARS],
        "truncated": len(text) > PAYLOAD_CHARS,
    }


async def compare(request: Request) -> JSON:
    a, b = request.query_params.get("a"), request.query_params.get("b")
    return JSON(*await run_in_threadpool(_compare, services(request), a, b))


def _compare(svc: Services, a: str | None, b: str | None) -> tuple[dict[str, Any], int]:
    """Two runs' curves; without `a`, `b`'s parent; without either, the newest branch and its
    parent."""
    log = svc.log
    try:
        if b is None and a is None:
            branches = [r for r in svc.runs.rows() if r["parent"]]
            if not branches:
                return {"error": "no branch in this store to compare with its parent"}, 404
            b = branches[-1]["run_id"]
        if b is None:
            a, b = None, a
        log.require(b)
        parent = log.parent(b)
        if a is None:
            if parent is None:
                return {"error": f"run {b} is not a branch: name the other run (?a=RUN)"}, 400
            a = parent.run_id
        log.require(a)
    except UnknownRunError as e:
        return {"error": str(e)}, 404
    for run_id in dict.fromkeys((a, b)):  # cached curves are served only from a sound chain
        chain = svc.chains.status(run_id)
        if chain.broken_at is not None:
            svc.drop_series(run_id)
            return {"error": f"run {run_id}: hash chain broken at seq {chain.broken_at}: "
                    f"{chain.reason}"}, 409  # fmt: skip
    cut = parent.seq if parent is not None and parent.run_id == a else None
    series_b = svc.series(b)
    cut_step = None
    if cut is not None:
        steps = [s for s, q in zip(series_b["step"], series_b["seq"], strict=True) if q <= cut]
        cut_step = steps[-1] if steps else 0
    return {
        "a": {"run_id": a, **svc.series(a)},
        "b": {"run_id": b, **series_b},
        "branch_point": {"seq": cut, "step": cut_step} if cut is not None else None,
        "metrics": list(COMPARE_METRICS),
    }, 200


async def run_and_after(request: Request) -> tuple[str, int, JSON | None]:
    """The path's run (a 404 when the store has none) and `after_seq` (a 400 unless a seq >= 0):
    what every increment of a run (its page data, its stream) reads first."""
    run_id, refused = await _run_id(request)
    if refused is not None or run_id is None:
        return "", 0, refused
    after = _int(request, "after_seq", 0, 0, MAX_SEQ)
    if after is None:
        return run_id, 0, error(400, "after_seq must be a seq >= 0")
    return run_id, after, None


async def run_stream(request: Request) -> Response:
    run_id, after, refused = await run_and_after(request)
    if refused is not None:
        return refused
    log = services(request).log

    async def updates() -> AsyncIterator[bytes]:
        seen = after
        yield b"retry: 1000\n\n"
        while not await request.is_disconnected():
            last = await run_in_threadpool(log.last_seq, run_id)
            if last != seen:
                seen = last
                yield b"event: update\ndata: " + orjson.dumps({"last_seq": last}) + b"\n\n"
            await asyncio.sleep(POLL_S)

    return _sse(updates())


async def runs_stream(request: Request) -> Response:
    index = services(request).runs

    async def updates() -> AsyncIterator[bytes]:
        seen = None
        yield b"retry: 2000\n\n"
        while not await request.is_disconnected():
            heads = await run_in_threadpool(index.heads)
            if heads != seen:
                if seen is not None:
                    yield b"event: update\ndata: " + orjson.dumps({"runs": len(heads)}) + b"\n\n"
                seen = heads
            await asyncio.sleep(RUNS_POLL_S)

    return _sse(updates())


def _sse(body: AsyncIterator[bytes]) -> StreamingResponse:
    return StreamingResponse(
        body,
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )


routes = [
    Route("/api/runs", runs),
    Route("/api/runs/stream", runs_stream),
    Route("/api/runs/{run_id}/events", events),
    Route("/api/runs/{run_id}/stream", run_stream),
    Route("/api/compare", compare),
]
