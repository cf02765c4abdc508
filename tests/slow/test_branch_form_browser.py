"""The console's branch form in a real headless Chromium (Debian's `chromium`, driven by
Playwright), served by the real console app over a real small finished run: a bad override is
named beside its field, the config diff shows before anything starts, and the branch started from
the form completes under its parent. No console error, no script from the data."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from store.log import EventLog
from tests.slow.runs import QUICKSTART, SHORT, only_run, rlvr
from tests.slow.test_report_browser import CHROMIUM, FLAGS, _require_browser

pytestmark = pytest.mark.slow

TINY = [*SHORT, "sft.steps=200", "pipeline.rl_steps=4", "pipeline.round_steps=2", "save_every=2",
        "eval_every=2"]  # fmt: skip
TOKEN = "a-token-for-this-launch"


@contextmanager
def console(log: EventLog) -> Iterator[str]:
    """`rlvr console`'s app (orchestrator/console/app.py) on 127.0.0.1, with its token."""
    import uvicorn

    from orchestrator.console.app import create_app
    from orchestrator.console.security import Binding

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    binding = Binding("127.0.0.1", sock.getsockname()[1], TOKEN)
    server = uvicorn.Server(uvicorn.Config(create_app(log, binding), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the console did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{binding.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_the_branch_form_shows_errors_and_the_diff_then_its_branch_completes_under_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _require_browser()
    from playwright.sync_api import expect, sync_playwright

    done = rlvr("run", str(QUICKSTART), *TINY, cwd=tmp_path, timeout=1500)
    assert done.returncode == 0, done.stderr[-3000:]
    store = tmp_path / "runs" / "events.db"
    log, parent = EventLog(store), only_run(store)
    at = next(r.seq for r in log.read(parent, types=["MetricsRecorded"]) if r.event.step == 2)
    monkeypatch.chdir(tmp_path)  # where a person runs `rlvr console`
    errors: list[str] = []
    with console(log) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=[f for f in FLAGS if f != "--headless"])  # fmt: skip
        try:
            page = browser.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400
                    else None)  # fmt: skip
            # The printed URL's token becomes the console's cookie; the form page carries it.
            page.goto(f"{base}/runs/{parent}/branch?at={at}&token={TOKEN}")
            expect(page.locator("#run")).to_have_text(parent)
            page.locator("input.key").fill("grpo.learning_rate")
            page.locator("input.value").fill("-1")
            page.click("#preview")
            expect(page.locator("td.field-error")).to_contain_text("grpo.learning_rate")
            expect(page.locator("#start")).to_be_disabled()
            page.locator("input.value").fill("5e-5")
            page.click("#preview")
            expect(page.locator("#diff tbody tr")).to_have_count(1)
            expect(page.locator("#diff td.key")).to_have_text("grpo.learning_rate")
            expect(page.locator("#diff td.after")).to_have_text("5e-05")
            assert len(log.runs()) == 1  # nothing started by a preview
            page.click("#start")
            expect(page.locator("#child-link")).to_contain_text(
                "quickstart-branch-", timeout=120_000
            )
            expect(page.locator("#started")).to_have_attribute("data-state", "completed",
                                                               timeout=900_000)  # fmt: skip
            child = page.locator("#child-link").inner_text()
        finally:
            browser.close()
    assert errors == []
    lineage = log.parent(child)
    assert lineage is not None and (lineage.run_id, lineage.seq) == (parent, at)
    assert [r.event.overrides for r in log.read(child, types=["RunBranched"])] == [
        ["grpo.learning_rate=5e-5"]
    ]
