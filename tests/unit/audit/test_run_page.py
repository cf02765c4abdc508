"""The run page's HTML and its vendored assets: the console's page has no inline script at all;
the report's file inlines its scripts under a CSP that lists exactly their hashes, and its data
cannot close the script element that holds it; the vendored uPlot is the one VENDOR.json names."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from importlib import resources

from orchestrator.console.run_page import json_for_script, render_run_html

STATIC = resources.files("orchestrator.console") / "static"


def test_vendored_files_have_the_sha256_vendor_json_records() -> None:
    vendor = json.loads((STATIC / "VENDOR.json").read_text(encoding="utf-8"))
    uplot = vendor["uplot"]
    assert uplot["version"] == "1.6.32" and uplot["licence"] == "MIT"
    assert uplot["source"].startswith("https://registry.npmjs.org/uplot/-/uplot-1.6.32")
    assert set(uplot["files"]) == {
        "vendor/uplot/uPlot.iife.min.js", "vendor/uplot/uPlot.min.css", "vendor/uplot/LICENSE"
    }  # fmt: skip
    for name, digest in uplot["files"].items():
        assert hashlib.sha256((STATIC / name).read_bytes()).hexdigest() == digest, name


def test_the_console_page_links_its_assets_and_has_no_inline_script() -> None:
    page = render_run_html('r"<x>', data=None, inline=False, api_base="/api/runs/r%22%3Cx%3E")
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, re.S)
    assert [attrs for attrs, _ in scripts] == [
        ' src="/static/vendor/uplot/uPlot.iife.min.js"', ' src="/static/run_dom.js"',
        ' src="/static/run_detail.js"', ' src="/static/run.js"',
    ]  # fmt: skip
    assert all(body == "" for _, body in scripts)
    assert 'href="/static/run.css"' in page and 'href="/static/vendor/uplot/uPlot.min.css"' in page
    assert (
        'data-api-base="/api/runs/r%22%3Cx%3E"' in page and 'data-run-id="r&quot;&lt;x&gt;"' in page
    )


def test_the_inline_page_allows_only_its_own_scripts_by_hash() -> None:
    data = {"page": {"note": "</script><script>alert(1)</script>\u2028"}, "steps": {}, "why": {}}
    page = render_run_html("r", data=data, inline=True, api_base="")
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    allowed = re.search(r"script-src ([^;]+)", csp).group(1).split()
    bodies = re.findall(r"<script>(.*?)</script>", page, re.S)
    hashes = [
        "'sha256-" + base64.b64encode(hashlib.sha256(b.encode()).digest()).decode() + "'"
        for b in bodies
    ]
    assert len(bodies) == 4 and allowed == hashes
    assert "default-src 'none'" in csp and "http" not in csp
    held = re.search(r'<script type="application/json" id="run-data">(.*?)</script>', page, re.S)
    assert json.loads(held.group(1)) == data
    assert page.count("<script") == 5 and "alert(1)</script>" not in page
    assert not re.search(r"(src|href)=\"(https?:)?//", page)


def test_json_for_script_escapes_what_could_end_the_element() -> None:
    text = json_for_script({"a": "<!-- </script> & \u2029"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2029" not in text
    assert json.loads(text) == {"a": "<!-- </script> & \u2029"}
