"""A run's stream on a real server sees a step appended by another process within a second, on
SQLite and PostgreSQL; and `rlvr console` as a person types it prints a URL that opens."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.tampering import synthetic_run
from tests.unit.console.serve import serving

ROOT = Path(__file__).resolve().parents[3]
# The writer: another process appending one step a time, printing when each commit returned.
WRITER = """
import sys, time
from store.events import MetricsRecorded
from store.log import EventLog
log = EventLog(sys.argv[1]); run_id = sys.argv[2]
for step in range(100, 103):
    time.sleep(0.5)
    last = log.last_seq(run_id)
    log.append(run_id, [MetricsRecorded(step=step, metrics={"reward_mean": 0.5})], last)
    print(last + 1, time.time(), flush=True)
"""


def _sse_updates(url: str, after: int, want: int, seen: list) -> None:
    with (
        httpx.Client(timeout=15) as client,
        client.stream("GET", url, params={"after_seq": after}) as r,
    ):
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        event = None
        for line in r.iter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "update":
                seen.append((json.loads(line[6:])["last_seq"], time.time()))
                if len(seen) == want:
                    return


def test_a_step_written_by_another_process_reaches_the_stream_within_a_second(store_url, run_id):
    from store.log import EventLog

    log = EventLog(store_url)
    synthetic_run(log, run_id, steps=2)
    start = log.last_seq(run_id)
    with serving(log) as served:
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, store_url, run_id],
            cwd=ROOT, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        seen: list = []
        _sse_updates(f"{served.base}/api/runs/{run_id}/stream", start, 3, seen)
        written = [line.split() for line in writer.communicate(timeout=30)[0].splitlines()]
    log.close()
    assert (
        [seq for seq, _ in seen]
        == [int(seq) for seq, _ in written]
        == [start + 1, start + 2, start + 3]
    )
    latencies = [at - float(t) for (_, at), (_, t) in zip(seen, written, strict=True)]
    assert max(latencies) < 1.0, latencies


def test_the_stream_says_at_once_when_the_page_is_behind(tmp_path, run_id):
    from store.log import EventLog

    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, run_id, steps=2)
    with serving(log) as served:
        seen: list = []
        _sse_updates(f"{served.base}/api/runs/{run_id}/stream", 1, 1, seen)
    assert seen[0][0] == log.last_seq(run_id)


def test_rlvr_console_as_a_person_types_it_prints_a_url_that_opens(tmp_path, run_id):
    from store.log import EventLog

    synthetic_run(EventLog(tmp_path / "events.db"), run_id, steps=2)
    rlvr = Path(sys.executable).with_name("rlvr")
    console = subprocess.Popen(
        [str(rlvr), "console", "--store", str(tmp_path / "events.db"), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ},
    )  # fmt: skip
    try:
        line = console.stdout.readline()
        url = re.search(r"open (http://127\.0\.0\.1:\d+/\?token=[\w-]+)$", line.strip())
        assert url, line
        with httpx.Client(timeout=10, follow_redirects=True) as client:
            page = client.get(url.group(1))
            assert page.status_code == 200 and str(page.url).endswith("/")
            assert "rlvr-console-token" in page.text  # the token's cookie was set
            runs = client.get(str(page.url.join("/api/runs"))).json()["runs"]
        assert [r["run_id"] for r in runs] == [run_id]
    finally:
        console.send_signal(signal.SIGINT)
        assert console.wait(timeout=15) is not None


def test_the_runs_stream_says_when_any_run_moves(tmp_path, run_id):
    import threading

    from store.events import MetricsRecorded
    from store.log import EventLog

    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, run_id, steps=2)
    with serving(log) as served:
        seen: list = []

        def append_soon() -> None:
            time.sleep(1.5)
            log.append(run_id, [MetricsRecorded(step=3, metrics={})], log.last_seq(run_id))

        threading.Thread(target=append_soon, daemon=True).start()
        with (
            httpx.Client(timeout=15) as client,
            client.stream("GET", f"{served.base}/api/runs/stream") as r,
        ):
            for line in r.iter_lines():
                if line.startswith("event: "):
                    seen.append((line[7:], time.time()))
                    break
    assert seen and seen[0][0] == "update"
