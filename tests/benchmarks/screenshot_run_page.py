"""The README's screenshots of the run page (`rlvr report` of the synthetic chaos log,
tests/unit/audit/chaos_log.py), its why panel and its step view, taken in Debian's Chromium.

Run: python tests/benchmarks/screenshot_run_page.py [--out tests/benchmarks/results/run_page]"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from orchestrator.audit.report import build_report  # noqa: E402
from tests.slow.test_report_browser import browser_page, open_run_page  # noqa: E402
from tests.unit.audit.chaos_log import chaos_run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path("tests/benchmarks/results/run_page"))
    out = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        log, run_id = chaos_run(Path(tmp) / "run")
        index = build_report(log, run_id, Path(tmp) / "report")
        with browser_page(Path(tmp) / "profile") as (page, seen):
            open_run_page(page, index.as_uri())
            page.screenshot(path=str(out / "run_page.png"), clip=_clip(page, 1200, 1450))
            page.locator("#chart-kl .marker.decision[data-step='4']").click()
            page.locator("#detail .window canvas").wait_for()
            page.screenshot(path=str(out / "why_panel.png"), clip=_clip(page, 620, 900, "#detail"))
            page.fill("#step-input", "20")
            page.click("#step-go")
            page.locator("#detail .rollout").first.wait_for()
            page.screenshot(path=str(out / "step_view.png"), clip=_clip(page, 620, 700, "#detail"))
        if seen["errors"]:
            raise SystemExit(f"the page logged errors: {seen['errors']}")
    print(f"wrote {out}/run_page.png, why_panel.png, step_view.png")


def _clip(page, width: int, height: int, selector: str | None = None) -> dict:
    """The top `width` x `height` of the page, or of the element `selector` (the drawer)."""
    left = page.locator(selector).bounding_box()["x"] if selector else 0
    return {"x": left, "y": 0, "width": width, "height": height}


if __name__ == "__main__":
    main()
