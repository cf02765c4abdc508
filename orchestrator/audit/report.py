"""`rlvr report RUN [--out DIR]`: the console's run page as one self-contained HTML file.

`index.html` holds the page's script, styles, uPlot and the run's data inlined, under a
Content-Security-Policy that allows only those scripts: it opens from disk with no server and no
network. It shows the stage strip with every gate, the charts with their markers, the explanation
of every gate and every explained marker (what `rlvr why RUN --seq N --json` gives), and the
rollouts of the steps that matter (`steps_that_matter`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.audit.why import WHY_TYPES, explain_each
from orchestrator.console.run_data import logged_steps, run_page_data, step_data
from orchestrator.console.run_page import render_run_html
from store.blobs import BlobStore
from store.log import EventLog
from store.text_files import write_replacing

# A report carries the rollouts of at most this many steps (the first and last always).
MAX_STEPS = 60


def steps_that_matter(
    page: dict[str, Any], whys: dict[int, dict[str, Any]], logged: list[int]
) -> list[int]:
    """The steps whose rollouts the report carries, at most MAX_STEPS of the logged steps, in this
    order until the cap: the first and last, each rollback's from and to step, each policy
    decision's, failure's and injected fault's step, and the steps of the window each explained
    gate or decision read."""
    if not logged:
        return []
    rollbacks, decisions, windows = [], [], []
    for marker in page["markers"]:
        if marker["kind"] == "rollback":
            why = whys.get(marker["seq"], {"items": []})
            rollbacks += [marker["step"]] + [
                e["data"]["to_step"] for i in why["items"] for e in i["then"]
                if e["type"] == "RolledBack"
            ]  # fmt: skip
        elif marker["kind"] in ("decision", "fault", "failure"):
            decisions.append(marker["step"])
    for why in whys.values():
        for item in why["items"]:
            windows += item["window"]["steps"] if item.get("window") else []
    wanted = [logged[0], logged[-1], *rollbacks, *decisions, *windows]
    have = set(logged)
    return list(dict.fromkeys(s for s in wanted if s in have))[:MAX_STEPS]


def report_data(log: EventLog, run_id: str, blobs: BlobStore | None = None) -> dict[str, Any]:
    """What the report inlines: the run page's data, the explanation of each gate and explained
    marker, and the rollouts of the steps that matter."""
    page = run_page_data(log, run_id)
    seqs = [g["seq"] for stage in page["stages"] for g in stage["gates"]]
    seqs += [m["seq"] for m in page["markers"] if m["explained"]]
    explained = explain_each(log.read(run_id, types=WHY_TYPES), dict.fromkeys(seqs),
                             last_seq=page["last_seq"])  # fmt: skip
    whys = {seq: {**e.to_json(), "seq": seq} for seq, e in explained.items()}
    logged = logged_steps(log, run_id)
    steps = {
        s: step_data(log, run_id, s, blobs=blobs) for s in steps_that_matter(page, whys, logged)
    }
    return {"page": page, "why": whys, "steps": steps}


def build_report(
    log: EventLog, run_id: str, out_dir: Path, *, blobs: BlobStore | None = None
) -> Path:
    """Write `out_dir/index.html`, the run page with its data inlined; return its path."""
    data = report_data(log, run_id, blobs)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "index.html"
    # Renamed into place: a link at index.html is replaced, never written through.
    write_replacing(path, render_run_html(run_id, data=data, inline=True, api_base=""))
    return path
