"""The run page's HTML. In the console (`inline=False`) it is a shell: run.js, run.css and uPlot come
from /static/, the data from `{api_base}/data`, `/step/N`, `/why/SEQ` and live updates from
`{api_base}/stream`; there is no inline script (the console's CSP is `script-src 'self'`), the run
id and API base travel in data- attributes. For `rlvr report` (`inline=True`) it is one file with
the scripts, styles, uPlot and the data inlined, and a CSP whose script-src lists only the hashes
of its scripts: it opens from disk with no server or network."""

from __future__ import annotations

import base64
import hashlib
import html
from functools import cache
from importlib import resources
from typing import Any

import orjson

VENDOR_JS = "vendor/uplot/uPlot.iife.min.js"
VENDOR_CSS = "vendor/uplot/uPlot.min.css"
# In the order they run: uPlot, the DOM helpers, the why panel and step view, the page.
SCRIPTS = (VENDOR_JS, "run_dom.js", "run_detail.js", "run.js")


@cache
def asset(name: str) -> str:
    """A file of orchestrator/console/static, as the installed package holds it."""
    return (resources.files("orchestrator.console") / "static" / name).read_text(encoding="utf-8")


def _hash(script: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"


def json_for_script(data: Any) -> str:
    """JSON that cannot close its <script> element or open a comment there: `<`, `>` and `&` are
    written as \\u escapes (still the same JSON), as are U+2028/2029."""
    text = orjson.dumps(data, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS).decode()
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):  # fmt: skip
        text = text.replace(raw, escaped)
    return text


_BODY = """<main id="run-page" data-mode="{mode}" data-run-id="{run_id}" data-api-base="{api_base}">
<h1>Run <span id="run-id">{run_id}</span></h1><p id="run-state">loading…</p>
<h2>Stages</h2><div id="stages"></div>
<h2>Metrics</h2>
<p class="note">Drag across a chart to zoom, double-click to zoom out; click a step for its rollouts, a marker or a gate for why.</p>
<form id="step-form"><label>step <input id="step-input" type="number" min="0"></label> <button id="step-go" type="submit">show rollouts</button></form>
<div id="marker-list"></div>
<div id="detail" hidden></div>
<div id="charts"></div>
</main>"""


def render_run_html(run_id: str, *, data: dict | None, inline: bool, api_base: str) -> str:
    """The run page. `data` (inline only): {"page": run_page_data, "steps": {step: step_data},
    "why": {seq: why_data}}."""
    title = f"rlvr run {html.escape(run_id)}"
    body = _BODY.format(
        mode="inline" if inline else "live",
        run_id=html.escape(run_id, quote=True),
        api_base=html.escape(api_base, quote=True),
    )
    head = (
        '<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">'
    )
    if not inline:
        links = "".join(
            f'<link rel="stylesheet" href="/static/{name}">' for name in (VENDOR_CSS, "run.css")
        )
        scripts = "".join(f'<script src="/static/{name}"></script>' for name in SCRIPTS)
        return (f'<!DOCTYPE html>\n<html lang="en"><head>{head}<link rel="icon" href="data:,">'
                f"<title>{title}</title>{links}</head>"
                f"<body>{body}{scripts}</body></html>\n")  # fmt: skip
    if data is None:
        raise ValueError("an inline run page needs its data")
    scripts = [asset(name) for name in SCRIPTS]
    csp = (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; "
        "form-action 'none'; script-src " + " ".join(_hash(s) for s in scripts)
    )
    style = asset(VENDOR_CSS) + "\n" + asset("run.css")
    payload = json_for_script(data)
    inlined = "".join(f"<script>{s}</script>" for s in scripts)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head>{head}'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        f'<link rel="icon" href="data:,"><title>{title}</title><style>{style}</style></head>'
        f'<body>{body}<script type="application/json" id="run-data">{payload}</script>'
        f"{inlined}</body></html>\n"
    )
