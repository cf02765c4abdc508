"""The report of a chaos run, opened in a real headless Chromium (Debian's `chromium` package):
the page loads with no console errors and every plot image is decoded (naturalWidth > 0)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from orchestrator.audit.report import PLOTS, build_report
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


def open_in_chromium(index: Path, profile: Path) -> dict:
    """Load `index` in headless Chromium: console errors, images, title and requested URLs."""
    _require_browser()
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        # Playwright drives the system Chromium: no browser download (`playwright install`) needed.
        # (--headless comes from headless=True, --user-data-dir from the persistent context.)
        browser = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            args=[f for f in FLAGS if f != "--headless"],
            headless=True,
        )
        try:
            page = browser.new_page()
            page.on(
                "console",
                lambda m: errors.append(m.text) if m.type in ("error", "assert") else None,
            )
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(index.as_uri(), wait_until="load")
            images = page.evaluate(
                """() => Array.from(document.images).map(img => ({
                    src: img.getAttribute('src'), complete: img.complete,
                    naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight}))"""
            )
            title = page.title()
        finally:
            browser.close()
    return {"errors": errors, "images": images, "title": title, "requests": requests}


def assert_report_renders(index: Path, profile: Path, run_id: str) -> None:
    seen = open_in_chromium(index, profile)
    assert seen["errors"] == []
    assert [i["src"] for i in seen["images"]] == [f"{name}.png" for name in PLOTS]
    assert all(
        i["complete"] and i["naturalWidth"] > 0 and i["naturalHeight"] > 0 for i in seen["images"]
    )
    assert run_id in seen["title"]
    assert all(url.startswith("file://") for url in seen["requests"]), seen["requests"]


def test_the_chaos_report_loads_in_chromium_with_every_plot_and_no_console_error(
    tmp_path: Path,
) -> None:
    _require_browser()
    log, run_id = chaos_run(tmp_path / "run")
    index = build_report(log.read(run_id), tmp_path / "report")
    assert_report_renders(index, tmp_path / "profile", run_id)
