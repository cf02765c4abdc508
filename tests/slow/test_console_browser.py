"""The console in a real headless Chromium (Debian's, driven by Playwright, as the report test):
the Runs page puts a branch under its parent with its cut, the Events page pages, filters and
links each seq, Compare marks the branch point, and a run whose text is hostile (script tags,
event-handler attributes, `javascript:` URLs, ANSI and bidi controls) runs no script. Every page
is loaded with the browser console hooked: any script error, CSP refusal or dialog fails."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from orchestrator.driver.lifecycle import branch
from store.events import RunPaused, StateChanged
from tests.slow.test_report_browser import CHROMIUM, FLAGS, _require_browser, wait_until
from tests.tampering import synthetic_run
from tests.unit.audit.chaos_log import chaos_run
from tests.unit.console.serve import serving

pytestmark = pytest.mark.slow

HOSTILE = (
    '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
    '<a href="javascript:window.__pwned=3">click</a>\x1b[31mred\x1b[0m \u202eevil\u202c'
)


@contextmanager
def browser(tmp_path) -> Iterator[tuple]:
    _require_browser()
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM,
            args=[f for f in FLAGS if f != "--headless"], headless=True,
        )  # fmt: skip
        try:
            page = context.new_page()
            page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "assert") else None)  # fmt: skip
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
            page.on("requestfailed", lambda r: None if _left_open(r) else problems.append(f"request failed: {r.url} {r.failure}"))  # fmt: skip
            yield page, problems
        finally:
            context.close()


def _left_open(request) -> bool:
    """A live stream the browser cancels when it leaves the page is not a failure."""
    return request.url.split("?")[0].endswith("/stream") and request.failure == "net::ERR_ABORTED"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("console-browser")
    log, parent = chaos_run(root)
    child, cut = branch(log, parent, 60, [])
    hostile = "hostile-run"
    synthetic_run(log, hostile, steps=3)
    last = log.last_seq(hostile)
    log.append(
        hostile,
        [
            StateChanged(trigger="pause", source="sft_preparation", dest="paused"),
            RunPaused(reason=HOSTILE),
        ],
        last,
    )
    yield log, parent, child, cut, hostile
    log.close()


def _loaded(page) -> None:
    page.wait_for_selector("body[data-loaded]", timeout=15000)


def test_the_runs_page_lists_a_branch_under_its_parent_with_its_cut(store, tmp_path):
    log, parent, child, cut, _ = store
    with serving(log) as served, browser(tmp_path) as (page, problems):
        page.goto(f"{served.base}/?token={served.token}")
        _loaded(page)
        order = page.eval_on_selector_all("#runs tbody tr", "rows => rows.map(r => r.dataset.run)")
        assert order.index(child) == order.index(parent) + 1
        row = page.locator(f'tr[data-run="{child}"]')
        assert row.locator("td.run").get_attribute("data-depth") == "1"
        assert f"branch of {parent} at seq {cut}" in row.inner_text()
        assert "completed" in page.locator(f'tr[data-run="{parent}"]').inner_text()
        assert (
            page.locator('meta[name="rlvr-console-token"]').get_attribute("content") == served.token
        )
    assert problems == []


def test_the_events_page_links_pages_and_filters_the_raw_log(store, tmp_path):
    log, parent, *_ = store
    last = log.last_seq(parent)
    with serving(log) as served, browser(tmp_path) as (page, problems):
        page.goto(f"{served.base}/runs/{parent}/events#seq-30")
        _loaded(page)
        assert page.locator("tr.target").get_attribute("id") == "seq-30"
        assert page.locator("#chain").inner_text() == f"chain verified up to seq {last} of {last}"
        page.goto(f"{served.base}/runs/{parent}/events")
        _loaded(page)
        assert page.locator("#events tbody tr").count() == 100
        page.click("#more")
        wait_until(page, f"document.querySelectorAll('#events tbody tr').length === {last}")
        page.select_option("#type", "GateEvaluated")
        page.click("#filter button")
        page.wait_for_url("**/events?type=GateEvaluated")
        _loaded(page)
        types = page.eval_on_selector_all(
            "#events tbody tr td:nth-child(2) span", "s => s.map(x => x.textContent)"
        )
        assert types and set(types) == {"GateEvaluated"}
        assert len(types) == len(list(log.read(parent, types=["GateEvaluated"])))
    assert problems == []


def test_compare_overlays_a_branch_and_its_parent_and_marks_the_branch_point(store, tmp_path):
    log, parent, child, cut, _ = store
    with serving(log) as served, browser(tmp_path) as (page, problems):
        page.goto(f"{served.base}/compare?b={child}")
        _loaded(page)
        assert page.input_value("#a") == parent and page.input_value("#b") == child
        assert f"branch point: seq {cut}" in page.locator("#status").inner_text()
        assert page.locator("#compare tr.branch-point").count() == 1
        # reward, verify rate and KL drawn by the vendored uPlot, both runs on one step axis
        assert page.locator("#charts .uplot").count() == 3
        assert page.locator("#charts .uplot .u-legend").first.inner_text().count("chaos") >= 2
    assert problems == []


def test_a_hostile_run_is_shown_as_text_and_runs_no_script(store, tmp_path):
    log, _, _, _, hostile = store
    with serving(log) as served, browser(tmp_path) as (page, problems):
        for path in ("/", f"/runs/{hostile}/events"):
            page.goto(served.base + path)
            _loaded(page)
            assert page.evaluate("window.__pwned") is None
            assert page.locator("main script, main img, main a[href^='javascript']").count() == 0
            assert "<script>window.__pwned=1</script>" in page.locator("main").inner_text()
    assert problems == []
