"""The run page in Chromium, opened from disk as `rlvr report` writes it and served by `rlvr
console` (its real app on 127.0.0.1, data fetched from its API): the gates it shows are
`rlvr status --json`'s; clicking a decision marker draws the window the rule read against its
threshold, clicking the rollback marker shows the evidence and what followed that `rlvr why
--json` gives; clicking a step on a chart lists its rollouts with the rewards the log holds; and a
run whose text is hostile runs no script. Served, a step appended to the log reaches the open page
without a reload."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from orchestrator.audit.report import build_report
from orchestrator.console.run_data import step_data
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.slow.test_report_browser import browser_page, open_run_page, wait_until
from tests.unit.audit.chaos_log import chaos_run
from tests.unit.audit.hostile_log import HOSTILE, hostile_run

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=["report", "console"])
def chaos_report(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, str]]:
    """The chaos run's page: (its URL, the run id, the store's path)."""
    root = tmp_path_factory.mktemp("chaos")
    log, run_id = chaos_run(root / "run")
    store = log.url.removeprefix("sqlite:///")
    if request.param == "report":
        yield build_report(log, run_id, root / "report").as_uri(), run_id, store
        return
    pytest.importorskip("starlette")
    from tests.unit.console.serve import serving

    with serving(log) as served:
        yield f"{served.base}/runs/{run_id}", run_id, store


def _click_step(page, chart: str, step: int) -> None:
    """Click the chart `chart` where its x axis is at `step`."""
    x = page.evaluate(
        """([id, step]) => { const c = window.rlvrRunCharts.find(c => c.spec.id === id);
        return c.u.valToPos(step, 'x'); }""",
        [chart, step],
    )
    box = page.locator(f"#chart-{chart} .u-over").bounding_box()
    page.mouse.move(box["x"] + x, box["y"] + box["height"] / 2)
    page.mouse.click(box["x"] + x, box["y"] + box["height"] / 2)


def test_the_gates_on_the_page_are_rlvr_status_gates(
    chaos_report, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index, run_id, store = chaos_report
    status = json.loads(rlvr(capsys, "status", run_id, "--json", "--store", store).out)
    with browser_page(tmp_path / "profile") as (page, seen):
        open_run_page(page, index)
        shown = page.eval_on_selector_all(
            ".gate",
            """bs => bs.map(b => ({name: b.dataset.gate, seq: +b.dataset.seq,
                value: JSON.parse(b.dataset.value), threshold: JSON.parse(b.dataset.threshold),
                passed: b.dataset.passed === 'true'}))""",
        )
    expected = [{k: g[k] for k in ("name", "seq", "value", "threshold", "passed")}
                for g in status["gates"]]  # fmt: skip
    assert sorted(shown, key=lambda g: g["seq"]) == sorted(expected, key=lambda g: g["seq"])
    assert seen["errors"] == []


def test_clicking_markers_shows_the_window_threshold_and_evidence_why_gives(
    chaos_report, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index, run_id, store = chaos_report
    with browser_page(tmp_path / "profile") as (page, seen):
        open_run_page(page, index)
        # The KL policy's decision at step 4, clicked on the KL chart: its window and threshold.
        page.locator("#chart-kl .marker.decision[data-step='4']").click()
        window = page.locator("#detail .window")
        window.wait_for()
        decision_seq = int(page.get_attribute("#detail", "data-why-seq"))
        drawn = {
            k: json.loads(window.get_attribute(f"data-{k}"))
            for k in ("steps", "values", "threshold")
        }
        assert window.locator("canvas").count() == 1
        # The KL rollback's marker (step 39): the window of steps over the limit it read. The
        # panel covers the chart's right half: closed first, as a person would.
        page.locator("#detail .close").click()
        page.locator("#chart-kl .marker.rollback[data-step='39']").click()
        kl_window = page.locator("#detail .window")
        kl_window.wait_for()
        kl_rollback_seq = int(page.get_attribute("#detail", "data-why-seq"))
        drawn_kl_rollback = {
            k: json.loads(kl_window.get_attribute(f"data-{k}"))
            for k in ("steps", "values", "threshold")
        }
        assert kl_window.locator("canvas").count() == 1
        # The capability rollback's marker: its evidence (an eval against the baseline).
        page.locator("#detail .close").click()
        page.locator("#chart-kl .marker.rollback[data-step='20']").click()
        wait_until(page, f"document.querySelector('#detail').dataset.whySeq != '{kl_rollback_seq}'")
        page.locator("#detail .why-item").wait_for()
        rollback_seq = int(page.get_attribute("#detail", "data-why-seq"))
        item = page.locator("#detail .why-item").first
        evidence = [
            int(s)
            for s in item.locator(".evidence li").evaluate_all("ls => ls.map(l => l.dataset.seq)")
        ]
        then = [
            int(s)
            for s in item.locator(".then li").evaluate_all("ls => ls.map(l => l.dataset.seq)")
        ]
        threshold = json.loads(item.get_attribute("data-threshold"))
        retention = item.locator(".window.retention")
        retention.locator("canvas").wait_for()
        drawn_retention = {
            k: json.loads(retention.get_attribute(f"data-{k}"))
            for k in ("benchmarks", "values", "threshold")
        }
        text = page.inner_text("#detail")
    assert seen["errors"] == []
    [kl] = json.loads(
        rlvr(capsys, "why", run_id, "--seq", str(decision_seq), "--json", "--store", store).out
    )["items"]
    assert drawn == {
        "steps": kl["window"]["steps"],
        "values": kl["window"]["values"],
        "threshold": kl["threshold"],
    }
    assert drawn == {"steps": [4], "values": [0.16], "threshold": 0.1}
    [kl_rollback] = json.loads(
        rlvr(capsys, "why", run_id, "--seq", str(kl_rollback_seq), "--json", "--store", store).out
    )["items"]
    assert kl_rollback["name"] == "kl:rollback"
    assert drawn_kl_rollback == {
        "steps": kl_rollback["window"]["steps"],
        "values": kl_rollback["window"]["values"],
        "threshold": kl_rollback["threshold"],
    }
    assert drawn_kl_rollback == {
        "steps": [37, 38, 39],
        "values": [0.15, 0.17, 0.19],
        "threshold": 0.1,
    }
    [rb] = json.loads(
        rlvr(capsys, "why", run_id, "--seq", str(rollback_seq), "--json", "--store", store).out
    )["items"]
    assert evidence == [e["seq"] for e in rb["evidence"]] and then == [e["seq"] for e in rb["then"]]
    assert threshold == rb["threshold"] == 0.95
    # the rule read the eval against the baseline: each benchmark's ratio drawn against 0.95
    [eval_row] = [e for e in rb["evidence"] if e["type"] == "EvalRecorded"]
    ratios = [b["value"] / b["baseline"] for b in eval_row["data"]["benchmarks"]]
    assert drawn_retention == {
        "benchmarks": ["arith", "reverse"],
        "values": ratios,
        "threshold": 0.95,
    }
    assert "rolled back from step 20 to step 10" in text


def test_clicking_a_step_lists_its_rollouts_with_the_logged_rewards(
    chaos_report, tmp_path: Path
) -> None:
    index, run_id, store = chaos_report
    from store.log import EventLog

    logged = step_data(EventLog(store), run_id, 20)
    with browser_page(tmp_path / "profile") as (page, seen):
        open_run_page(page, index)
        _click_step(page, "reward", 20)
        page.locator("#detail[data-step='20'] .rollout").first.wait_for()
        rewards = page.eval_on_selector_all(
            "#detail .rollout", "rs => rs.map(r => JSON.parse(r.dataset.reward))"
        )
        failed = page.eval_on_selector_all(
            "#detail .rollout.fail pre", "ps => ps.map(p => p.textContent)"
        )
        page.select_option("#f-verdict", "fail")
        only_failed = page.eval_on_selector_all("#detail .rollout", "rs => rs.length")
        page.select_option("#f-verdict", "all")
        page.fill("#f-reward", "1")
        rewarded = page.eval_on_selector_all("#detail .rollout", "rs => rs.length")
        page.fill("#f-reward", "")
        page.fill("#f-search", "20 + 1")
        searched = page.eval_on_selector_all(
            "#detail .group .prompt", "ps => ps.map(p => p.textContent)"
        )
    assert seen["errors"] == []
    expected = [r["reward"] for a in logged["attempts"] for g in a["groups"] for r in g["rollouts"]]
    assert rewards == expected == [1.0, 1.0, 1.0, 0.0]
    assert failed == ["23"] and only_failed == 1 and rewarded == 3 and searched == ["20 + 1 ="]


def test_a_drag_on_one_chart_zooms_every_chart_and_a_double_click_zooms_out(
    chaos_report, tmp_path: Path
) -> None:
    index, _run_id, _store = chaos_report
    scales = "() => window.rlvrRunCharts.map(c => [c.u.scales.x.min, c.u.scales.x.max])"
    with browser_page(tmp_path / "profile") as (page, seen):
        open_run_page(page, index)
        before = page.evaluate(scales)
        box = page.locator("#chart-reward .u-over").bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + 40)  # one cursor, every chart
        cursors = page.evaluate("() => window.rlvrRunCharts.map(c => c.u.cursor.idx)")
        left, right = box["x"] + box["width"] * 0.25, box["x"] + box["width"] * 0.5
        page.mouse.move(left, box["y"] + 40)
        page.mouse.down()
        page.mouse.move(right, box["y"] + 40, steps=5)
        page.mouse.up()
        zoomed = page.evaluate(scales)
        page.mouse.dblclick(left, box["y"] + 40)
        back = page.evaluate(scales)
    assert seen["errors"] == []
    assert len(set(cursors)) == 1 and cursors[0] is not None
    assert len({tuple(s) for s in zoomed}) == 1 and zoomed[0] != before[0]
    assert before[0][0] < zoomed[0][0] < zoomed[0][1] < before[0][1]
    assert back == before


@contextmanager
def page_of(kind: str, log: EventLog, run_id: str, out: Path, **report: Any) -> Iterator[str]:
    """The URL of `run_id`'s page: its report written under `out`, or the console serving `log`."""
    if kind == "report":
        yield build_report(log, run_id, out, **report).as_uri()
        return
    pytest.importorskip("starlette")
    from tests.unit.console.serve import serving

    with serving(log) as served:
        yield f"{served.base}/runs/{run_id}"


@pytest.mark.parametrize("kind", ["report", "console"])
def test_a_hostile_run_runs_no_script(kind: str, tmp_path: Path) -> None:
    log, run_id, blobs = hostile_run(tmp_path / "run")
    with (
        page_of(kind, log, run_id, tmp_path / "report", blobs=blobs) as url,
        browser_page(tmp_path / "profile") as (page, seen),
    ):
        open_run_page(page, url)
        page.fill("#step-input", "1")
        page.click("#step-go")
        page.locator("#detail .rollout").first.wait_for()
        shown = page.inner_text("#detail")
        pwned = page.evaluate("() => window.__pwned === undefined ? null : window.__pwned")
        injected = page.evaluate(
            "() => document.querySelectorAll('#detail script, #detail img, #detail a[href^=\"javascript\"], #detail [onerror]').length"
        )
        prompts = page.eval_on_selector_all("#detail .prompt", "ps => ps.map(p => p.textContent)")
    assert pwned is None and injected == 0
    assert seen["errors"] == []
    assert prompts[0] == HOSTILE[0] and prompts[1] == HOSTILE[2]
    # ANSI and bidi controls are shown as code points, never passed to the page as text
    assert "\x1b" not in shown and "\u202e" not in shown and "\u27e8U+001B\u27e9[31m" in shown
    assert "\u27e8U+202E\u27e9evil" in shown


WRITER = """
import sys, time
from store.events import MetricsRecorded
from store.log import EventLog
log, run_id = EventLog(sys.argv[1]), sys.argv[2]
log.append(run_id, [MetricsRecorded(step=2, metrics={"reward_mean": 0.75, "kl": 0.02})],
           log.last_seq(run_id))
print(time.time())  # the append has committed: the wall clock the page's clock is compared with
"""

# Records, in the browser's wall clock, the first frame whose chart holds step 2: the page's update
# is drawn by then (merge, render and redraw run in one task before the frame).
WATCH_STEP_2 = """() => {
  const look = () => {
    if (window.rlvrRunCharts[0].u.data[0].includes(2)) { window.__step2At = Date.now(); return; }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}"""


def live_log(backend: str, tmp_path: Path) -> tuple[EventLog, str]:
    """The hostile run in SQLite, or copied (chain and all) under a fresh id into PostgreSQL."""
    import os
    import uuid

    from store.log import StoredEvent, chain_hash

    log, run_id, _blobs = hostile_run(tmp_path / "run")
    if backend == "sqlite":
        return log, run_id
    url = os.environ.get("RLVR_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("RLVR_TEST_POSTGRES_URL is not set")
    target, prev, rows = f"live-{uuid.uuid4().hex[:10]}", "0" * 64, []
    for row in log.read(run_id):
        digest = chain_hash(prev, target, row.seq, row.type, row.schema_version, row.recorded_at,
                            row.payload)  # fmt: skip
        rows.append(StoredEvent(target, row.seq, row.type, row.schema_version, row.recorded_at,
                                prev, digest, row.payload))  # fmt: skip
        prev = digest
    pg = EventLog(url)
    pg.import_rows(rows, batch_ends=log.batch_ends(run_id))
    return pg, target


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_step_another_process_appends_is_drawn_within_a_second(
    backend: str, tmp_path: Path
) -> None:
    import subprocess
    import sys

    log, run_id = live_log(backend, tmp_path)
    steps = "() => window.rlvrRunCharts[0].u.data[0]"
    with (
        page_of("console", log, run_id, tmp_path) as url,
        browser_page(tmp_path / "profile") as (page, seen),
    ):
        open_run_page(page, url)
        before = page.evaluate(steps)
        page.wait_for_timeout(300)  # the page's stream is open
        page.evaluate(WATCH_STEP_2)
        writer = subprocess.run([sys.executable, "-c", WRITER, str(log.url), run_id],
                                capture_output=True, text=True, check=True, timeout=60)  # fmt: skip
        committed_ms = float(writer.stdout.strip()) * 1000
        wait_until(page, "window.__step2At !== undefined")
        drawn_ms = page.evaluate("() => window.__step2At")
        rewards = page.evaluate("() => window.rlvrRunCharts[0].u.data[1]")
    assert seen["errors"] == []
    assert before == [1] and rewards == [0.5, 0.75]
    # from the writer's commit to the drawn frame, both in the machine's wall clock
    assert 0 <= drawn_ms - committed_ms < 1000, drawn_ms - committed_ms


def test_points_of_an_abandoned_span_are_drawn_grey_beside_the_live_ones(tmp_path: Path) -> None:
    from store.events import MetricsRecorded, RunRewound, RunStarted

    log = EventLog(tmp_path / "e.db")
    seqs = [
        s.seq
        for s in log.append(
            "rewound", [RunStarted(config={}, config_hash="h", hyperparameters={})], 0
        )
    ]

    def step(n: int, reward: float) -> None:
        seqs.append(
            log.append(
                "rewound", [MetricsRecorded(step=n, metrics={"reward_mean": reward})], seqs[-1]
            )[-1].seq
        )

    for n in (1, 2, 3):
        step(n, n / 10)
    kept = seqs[2]  # step 2's row: `resume --from` it abandons step 3
    seqs.append(log.append("rewound", [RunRewound(to_seq=kept)], seqs[-1])[-1].seq)
    step(3, 0.9)
    with (
        page_of("report", log, "rewound", tmp_path / "report") as url,
        browser_page(tmp_path / "profile") as (page, seen),
    ):
        open_run_page(page, url)
        data = page.evaluate("() => window.rlvrRunCharts[0].u.data")
        rewind = page.eval_on_selector_all(
            ".marker-item.rewind", "ms => ms.map(m => +m.dataset.seq)"
        )
    assert seen["errors"] == []
    assert data[0] == [1, 2, 3] and data[1] == [0.1, 0.2, 0.9] and data[2] == [None, None, 0.3]
    assert rewind == [seqs[4]]
