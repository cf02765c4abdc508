"""The HTML of the Runs, Events and Compare pages: a shell with no data and no inline script.
`static/console.js` fetches the page's JSON and builds the DOM with `textContent`, so no string
from a model or a data file is ever parsed as HTML. The one value written into the shell (a run
id, from the URL) is escaped."""

from __future__ import annotations

from html import escape

from starlette.requests import Request
from starlette.responses import HTMLResponse

NAV = (("Runs", "/"), ("Compare", "/compare"))


UPLOT_JS = "vendor/uplot/uPlot.iife.min.js"
UPLOT_CSS = "vendor/uplot/uPlot.min.css"


def shell(
    request: Request, page: str, title: str, body: str, *, charts: bool = False, **data: str
) -> HTMLResponse:
    """A page: its `data-*` attributes say what console.js builds; the per-launch token is in a
    meta tag only for a request that carried it (its cookie or header), for the action forms."""
    attrs = " ".join(f'data-{escape(k)}="{escape(v)}"' for k, v in data.items())
    token = ""
    if getattr(request.state, "token_ok", False):
        token = (
            f'<meta name="rlvr-console-token" content="{escape(request.app.state.action_token)}">'
        )
    read_only = "true" if request.app.state.read_only else "false"
    nav = " ".join(f'<a href="{href}">{name}</a>' for name, href in NAV)
    # uPlot (vendored, orchestrator/console/static/VENDOR.json) before console.js: both deferred,
    # they run in order.
    chart_assets = (
        f'<link rel="stylesheet" href="/static/{UPLOT_CSS}"><script src="/static/{UPLOT_JS}" defer>'
        "</script>"
        if charts
        else ""
    )
    html = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="rlvr-read-only" content="{read_only}">{token}
<title>{escape(title)} · rlvr console</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/static/console.css">{chart_assets}
<script src="/static/console.js" defer></script>
</head><body data-page="{escape(page)}" {attrs}>
<header><strong>rlvr console</strong> <nav>{nav}</nav>
<span id="store" class="muted">{escape(request.app.state.store_label)}</span></header>
<main>{body}</main></body></html>"""
    return HTMLResponse(html, headers={"cache-control": "no-store"})


async def runs_page(request: Request) -> HTMLResponse:
    body = """<h1>Runs</h1>
<p id="status" class="muted">loading…</p>
<table id="runs"><thead><tr><th>run</th><th>state</th><th>stage</th><th>step</th><th>health</th>
<th>reward</th><th>verify rate</th><th>KL</th><th>last event</th><th></th></tr></thead>
<tbody></tbody></table>"""
    return shell(request, "runs", "Runs", body)


async def events_page(request: Request) -> HTMLResponse:
    run_id = request.path_params["run_id"]
    body = f"""<h1>Events of <a id="run-link" href="/runs/{escape(run_id)}">{escape(run_id)}</a></h1>
<p id="chain" class="chain">chain: checking…</p>
<form id="filter"><label>type <select id="type" name="type"><option value="">all types</option>
</select></label> <button type="submit">filter</button></form>
<p id="status" class="muted">loading…</p>
<table id="events"><thead><tr><th>seq</th><th>type</th><th>recorded</th><th>payload</th></tr>
</thead><tbody></tbody></table>
<p><button id="more" type="button" hidden>next page</button></p>"""
    return shell(request, "events", f"Events of {run_id}", body, run=run_id)


async def compare_page(request: Request) -> HTMLResponse:
    a = request.query_params.get("a", "")
    b = request.query_params.get("b", "")
    body = """<h1>Compare</h1>
<form id="pick"><label>run A <input id="a" name="a"></label>
<label>run B <input id="b" name="b"></label> <button type="submit">compare</button></form>
<p id="status" class="muted">loading…</p><div id="charts"></div>
<table id="compare"><thead></thead><tbody></tbody></table>"""
    return shell(request, "compare", "Compare", body, charts=True, a=a, b=b)
