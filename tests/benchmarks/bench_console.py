"""What the run console costs on bench_long_run's 10,000-step log (issue 32), SQLite and PostgreSQL.

The log is built once with bench_long_run's builder (`build`: the real driver, a 32 x 8 batch of
~1,000-token responses a step). Each measurement runs in a child process that serves the console
for real (uvicorn on 127.0.0.1, the app `rlvr console` serves) and asks it over HTTP, so its time
is the server's answer as a browser would wait for it and its RSS is the console's:
- `runs_page_s`: the Runs page's data (`/api/runs`) of a store holding that one run, cold (the
  console's first request: every run folded from its snapshot); `runs_page_400_s`: the same with
  399 branches of it added (a lineage tree of 400 runs), cold; the `_warm` figures are a second
  request (only what moved is read);
- `run_page_s`, `step_page_s`: the run page's data (`/api/runs/RUN/data`) and one step's rollouts
  (`/api/runs/RUN/step/N`), when the run page is in the build;
- `live_latency_s`: from a writer process's commit to the run's stream announcing it (worst of 5);
- `rss_mb`: the console process's peak RSS after all of that; `assets_kb`: the pages' HTML, JS and
  CSS (vendored chart library included) without data.
Targets: <= 0.3, <= 1.0, <= 1.0, <= 0.2, <= 1.0 s, <= 300 MB, <= 1,500 kB.

Run: python tests/benchmarks/bench_console.py [--steps 10000] [--keep DIR]
     (PostgreSQL too when RLVR_TEST_POSTGRES_URL is set: a database of its own, dropped after.)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks.bench_long_run import _drop_database, _new_database, _peak_rss_mb, build

BRANCHES = 399
LIVE_STEPS = 5
WRITER = """
import sys, time
from store.events import MetricsRecorded
from store.log import EventLog
log = EventLog(sys.argv[1]); run_id = sys.argv[2]
for i in range(int(sys.argv[3])):
    time.sleep(0.4)
    last = log.last_seq(run_id)
    log.append(run_id, [MetricsRecorded(step=90000 + i, metrics={"reward_mean": 0.5})], last)
    print(last + 1, time.time(), flush=True)
"""


# --- the measured console (a child process) -----------------------------------------------


def _measure(url: str, run_id: str, phase: str) -> dict:
    import httpx

    from store.log import EventLog
    from tests.unit.console.serve import serving

    log = EventLog(url)
    figures: dict = {}
    with serving(log) as served, httpx.Client(base_url=served.base, timeout=120) as client:

        def timed(path: str, **params) -> tuple[float, httpx.Response]:
            start = time.perf_counter()
            response = client.get(path, params=params)
            wall = time.perf_counter() - start
            if response.status_code != 200:
                raise SystemExit(f"{path}: {response.status_code} {response.text[:300]}")
            return wall, response

        key = "runs_page_400" if phase == "many" else "runs_page"
        figures[f"{key}_s"], listed = timed("/api/runs")
        figures[f"{key}_warm_s"], _ = timed("/api/runs")
        figures[f"{key}_runs"] = len(listed.json()["runs"])
        if phase == "one":
            figures.update(_run_pages(timed, run_id))
            figures["events_page_s"], _ = timed(f"/api/runs/{run_id}/events", after_seq=20000)
            figures["events_filtered_s"], _ = timed(
                f"/api/runs/{run_id}/events", type="GateEvaluated"
            )
            figures["assets_kb"] = _assets_kb(client, run_id)
        else:
            figures["live_latency_s"] = _live_latency(url, served.base, run_id)
    figures["rss_mb"] = _peak_rss_mb()
    return figures


def _run_pages(timed, run_id: str) -> dict:
    """The run page's data and one step's, where the build has the run page (run_data.py)."""
    try:
        import orchestrator.console.run_data  # noqa: F401
    except ImportError:
        return {"run_page_s": None, "step_page_s": None}
    run_page_s, data = timed(f"/api/runs/{run_id}/data")
    step = 5000
    step_page_s, _ = timed(f"/api/runs/{run_id}/step/{step}")
    return {
        "run_page_s": run_page_s,
        "step_page_s": step_page_s,
        "run_page_kb": len(data.content) / 1e3,
    }


def _assets_kb(client, run_id: str) -> float:
    """HTML of each page (no data: the pages fetch it) plus every JS and CSS file served."""
    from orchestrator.console.app import STATIC

    pages = ["/", f"/runs/{run_id}/events", "/compare", f"/runs/{run_id}"]
    size = sum(len(client.get(p).content) for p in pages if client.get(p).status_code == 200)
    size += sum(p.stat().st_size for p in STATIC.rglob("*") if p.suffix in (".js", ".css"))
    return size / 1e3


def _live_latency(url: str, base: str, run_id: str) -> float:
    import httpx

    from store.log import EventLog

    after = EventLog(url).last_seq(run_id)
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, url, run_id, str(LIVE_STEPS)],
        cwd=Path(__file__).resolve().parents[2], stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    seen: dict[int, float] = {}
    stream = f"{base}/api/runs/{run_id}/stream"
    with (
        httpx.Client(timeout=60) as client,
        client.stream("GET", stream, params={"after_seq": after}) as r,
    ):
        event = None
        for line in r.iter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "update":
                seen[json.loads(line[6:])["last_seq"]] = time.time()
                if len(seen) == LIVE_STEPS:
                    break
    written = [line.split() for line in writer.communicate(timeout=60)[0].splitlines()]
    return max(seen[int(seq)] - float(at) for seq, at in written)


# --- building and driving -------------------------------------------------------------------


def _child(url: str, run_id: str, phase: str) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--measure", phase, "--url", url, "--run", run_id],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{phase} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _branches(url: str, run_id: str) -> list[str]:
    """399 branches spread over the run (some of branches): a lineage tree of 400 runs."""
    from orchestrator.driver.lifecycle import branch
    from store.log import EventLog

    log = EventLog(url)
    last = log.last_seq(run_id)
    made: list[str] = []
    for i in range(BRANCHES):
        parent = made[i - 1] if i % 10 == 9 else run_id  # every tenth branches the one before
        at = max(2, (i * last) // BRANCHES) if parent == run_id else log.last_seq(parent)
        child, _ = branch(log, parent, at, [], say=lambda _m: None)
        made.append(child)
    log.close()
    return made


def bench(url: str, root: Path, steps: int, label: str) -> dict:
    made = root / f"{label}-console.json"
    if made.is_file():
        facts = json.loads(made.read_text())
    else:
        start = time.perf_counter()
        facts = {"run": build(url, root, steps), "built_s": time.perf_counter() - start}
        made.write_text(json.dumps(facts))
    run = facts["run"]
    print(f"[{label}] {steps} steps, run {run}, built in {facts['built_s']:.0f} s", flush=True)
    one = _child(url, run, "one")
    if one["runs_page_runs"] != 1:
        # a kept build that already holds the branches: the 1-run figure cannot be measured on it
        print(
            f"[{label}] runs_page_s not measured: the kept store holds the branches (build afresh)"
        )
        one["runs_page_s"] = one["runs_page_warm_s"] = None
    if "branches" not in facts:
        start = time.perf_counter()
        facts["branches"] = _branches(url, run)
        facts["branched_s"] = time.perf_counter() - start
        made.write_text(json.dumps(facts))
    many = _child(url, facts["branches"][-1], "many")
    for name, value in {**one, **many}.items():
        print(f"[{label}] {name:22s} {value}", flush=True)
    rss = max(one.pop("rss_mb"), many.pop("rss_mb"))
    return {**one, **many, "rss_mb": rss}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="Build here and leave it (reused next time).")
    parser.add_argument(
        "--only", choices=("sqlite", "postgresql"), help="One backend (two can build in parallel)."
    )
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    args = parser.parse_args()
    from orchestrator.logging import configure

    configure(level="WARNING")
    if args.measure:
        print(json.dumps(_measure(args.url, args.run, args.measure)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        figures = {}
        if args.only != "postgresql":
            figures = bench(f"sqlite:///{root / 'store.db'}", root, args.steps, "sqlite")
        postgres = os.environ.get("RLVR_TEST_POSTGRES_URL")
        if postgres and args.only != "sqlite":
            pg_root = root / "pg"
            pg_root.mkdir(exist_ok=True)
            marker = pg_root / "database.txt"
            if not marker.is_file():
                marker.write_text(_new_database(postgres, f"rlvr_console_{uuid.uuid4().hex[:8]}"))
            try:
                pg = bench(marker.read_text(), pg_root, args.steps, "postgresql")
            finally:
                if args.keep is None:
                    _drop_database(marker.read_text())
            figures.update({f"pg_{k}": v for k, v in pg.items()})
    print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in figures.items()}))


if __name__ == "__main__":
    main()
