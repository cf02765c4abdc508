"""The report of a chaos run, opened from disk (file://) in a real headless Chromium (Debian's
`chromium` package): the run page draws with no console error and no request off the disk."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from orchestrator.audit.report import build_report
from tests.unit.audit.chaos_log import chaos_run

pytestmark = pytest.mark.slow

CHROMIUM = os.environ.get("RLVR_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]  # fmt: skip


def _require_browser() -> None:
    # On a developer's machine a missing browser skips; in CI it is an install failure.
    problems = []
    if not Path(CHROMIUM).is_file() and shutil.which(CHROMIUM) is None:
        problems.append(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problems.append("the playwright package is missing (pip install -e '.[test]')")
    if problems and os.environ.get("CI"):
        pytest.fail("; ".join(problems))
    if problems:
        pytest.skip("; ".join(problems))


@contextmanager
def browser_page(profile: Path) -> Iterator[tuple[Any, dict[str, list[str]]]]:
    """A Chromium page, with what it logged: console errors and page errors (`errors`) and every
    URL it requested (`requests`)."""
    _require_browser()
    from playwright.sync_api import sync_playwright

    seen: dict[str, list[str]] = {"errors": [], "requests": []}
    with sync_playwright() as p:
        # Playwright drives the system Chromium: no browser download (`playwright install`) needed.
        # (--headless comes from headless=True, --user-data-dir from the persistent context.)
        browser = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            args=[f for f in FLAGS if f != "--headless"],
            headless=True,
            viewport={"width": 1280, "height": 1600},
        )
        try:
            page = browser.new_page()
            page.on(
                "console",
                lambda m: seen["errors"].append(m.text) if m.type in ("error", "assert") else None,
            )
            page.on("pageerror", lambda e: seen["errors"].append(str(e)))
            page.on("requestfailed", lambda r: seen["errors"].append(f"request failed: {r.url}"))
            page.on("request", lambda r: seen["requests"].append(r.url))
            yield page, seen
        finally:
            browser.close()


def wait_until(page: Any, expression: str, timeout_s: float = 10.0) -> None:
    """Until `expression` is truthy in the page. Polled from here with `page.evaluate` (the
    DevTools protocol, which the page's Content-Security-Policy does not govern): Playwright's own
    `wait_for_function` evaluates a string inside the page, which the console's CSP (no
    'unsafe-eval') refuses whenever the condition is not true at once."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout_s} s: {expression}")
        time.sleep(0.02)


def open_run_page(page: Any, url: str) -> None:
    page.goto(url, wait_until="load")
    page.wait_for_selector("#run-page[data-ready='1']", timeout=10_000)


def assert_report_renders(index: Path, profile: Path, run_id: str) -> None:
    with browser_page(profile) as (page, seen):
        open_run_page(page, index.as_uri())
        charts = page.eval_on_selector_all(".chart canvas", "cs => cs.map(c => c.width)")
        stages = page.eval_on_selector_all(".stage", "ss => ss.length")
        title = page.title()
    assert seen["errors"] == []
    assert len(charts) == 7 and all(width > 0 for width in charts)
    assert stages == 7
    assert run_id in title
    assert all(url.startswith("file://") for url in seen["requests"]), seen["requests"]


def test_the_chaos_report_loads_in_chromium_with_every_chart_and_no_console_error(
    tmp_path: Path,
) -> None:
    _require_browser()
    log, run_id = chaos_run(tmp_path / "run")
    index = build_report(log, run_id, tmp_path / "report")
    assert_report_renders(index, tmp_path / "profile", run_id)
