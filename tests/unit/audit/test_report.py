"""`rlvr report`: a self-contained page with every plot, the gates, the decisions and samples."""

from __future__ import annotations

import re
from pathlib import Path

from PIL import Image
from typer.testing import CliRunner

from orchestrator.audit.report import PLOTS, build_report
from orchestrator.cli.app import app
from store.log import EventLog, StoredEvent


def _images(page: str) -> list[str]:
    return re.findall(r'<img src="([^"]+)"', page)


def test_the_report_of_a_chaos_run_has_every_plot_and_every_decision(
    chaos_events: list[StoredEvent], tmp_path: Path
) -> None:
    index = build_report(chaos_events, tmp_path / "report")
    page = index.read_text(encoding="utf-8")
    assert _images(page) == [f"{name}.png" for name in PLOTS]
    for name in PLOTS:
        with Image.open(tmp_path / "report" / f"{name}.png") as image:
            assert image.format == "PNG" and image.width >= 600 and image.height >= 200
    for gate in ("false_positive_rate", "kl", "capability_retention"):
        assert f"<td>{gate}</td>" in page
    assert "rolled back from step 20 to step 10" in page
    assert "policy kl_control decided halve_lr" in page
    assert "hyper-parameters changed: temperature 1.0 -&gt; 1.2" in page
    assert "<pre>1 + 2 =</pre>" in page and "<pre>40 + 2 =</pre>" in page  # first and last step
    # Each completion is shown beside its own verdict: the wrong one of the "+ 2" group fails.
    rows = re.findall(r"<tr>(.*?)</tr>", page.split("Sample rollouts")[1])
    cells = [re.findall(r"<td>(.*?)</td>", row) for row in rows[1:]]
    shown = {(c[1], c[2]): "fail" in c[4] for c in cells}
    assert shown[("<pre>40 + 2 =</pre>", "<pre>43</pre>")] is True
    assert shown[("<pre>40 + 2 =</pre>", "<pre>42</pre>")] is False
    assert shown[("<pre>1 + 1 =</pre>", "<pre>2</pre>")] is False


def test_the_report_needs_no_server_and_no_network(
    chaos_events: list[StoredEvent], tmp_path: Path
) -> None:
    page = build_report(chaos_events, tmp_path).read_text(encoding="utf-8")
    assert "<script" not in page
    assert not re.search(r"(src|href)=\"(https?:)?//", page)
    assert 'rel="stylesheet"' not in page and "@import" not in page
    assert all(not Path(src).is_absolute() for src in _images(page))


def test_a_run_that_failed_before_training_still_gets_every_plot(
    loose_verifier_run: tuple[EventLog, str], tmp_path: Path
) -> None:
    log, run_id = loose_verifier_run
    page = build_report(log.read(run_id), tmp_path).read_text(encoding="utf-8")
    assert all((tmp_path / f"{name}.png").stat().st_size > 1000 for name in PLOTS)
    assert '<span class="fail">FAIL</span>' in page
    assert "no rollouts were recorded" in page
    assert "gate false_positive_rate failed" in page


def test_report_command_writes_the_page_where_asked(
    loose_verifier_run: tuple[EventLog, str], tmp_path: Path
) -> None:
    log, run_id = loose_verifier_run
    store = log.url.removeprefix("sqlite:///")
    result = CliRunner().invoke(
        app, ["report", run_id, "--out", str(tmp_path / "r"), "--store", store]
    )
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(tmp_path / "r" / "index.html")
    assert (tmp_path / "r" / "kl.png").is_file()


def test_a_long_series_is_thinned_to_a_plot_s_width_and_keeps_its_spikes() -> None:
    from orchestrator.audit.report import MAX_POINTS, _thinned

    points = [(step, 0.01) for step in range(10_000)]
    points[7_777] = (7_777, 5.0)
    thinned = _thinned(points)
    assert len(thinned) <= MAX_POINTS and (7_777, 5.0) in thinned
    assert thinned == sorted(thinned) and thinned[0] == (0, 0.01)


def test_rollout_text_kept_in_a_blob_is_shown_and_a_missing_blob_is_named(tmp_path: Path) -> None:
    from stages.rl.logged_step import rollout_events
    from store.blobs import BlobStore
    from store.events import RunStarted

    blobs = BlobStore(tmp_path / "blobs")
    samples = [{"task_id": "t0", "prompt": "7 + 5 =", "completions": ["12", "13"],
                "rewards": [1.0, 0.0]}]  # fmt: skip
    verdicts = [{"task_id": "t0", "passed": True, "status": "ok", "reason": ""},
                {"task_id": "t0", "passed": False, "status": "failed", "reason": "13 != 12"}]  # fmt: skip
    rollouts, judged = rollout_events(
        blobs, step=1, attempt=0, group_size=2, verifier={"kind": "math"}, rewards_GN=[[1.0, 0.0]],
        samples=samples, verdicts=verdicts, n_passed=1, n_errors=0,
    )  # fmt: skip
    assert rollouts.samples == [] and judged.verdicts == [] and rollouts.blob == judged.blob
    assert rollouts.rewards == [[1.0, 0.0]] and judged.n_total == 2  # what catch-up and gates read
    log = EventLog(tmp_path / "e.db")
    started = RunStarted(config={}, config_hash="h", hyperparameters={})
    log.append("r", [started, rollouts, judged], 0)
    page = build_report(log.read("r"), tmp_path / "a", blobs=blobs).read_text(encoding="utf-8")
    rows = re.findall(r"<tr>(.*?)</tr>", page.split("Sample rollouts")[1])
    shown = {tuple(re.findall(r"<td>(.*?)</td>", row))[2]: row for row in rows[1:]}
    assert "fail" in shown["<pre>13</pre>"] and "pass" in shown["<pre>12</pre>"]
    elsewhere = build_report(log.read("r"), tmp_path / "b", blobs=BlobStore(tmp_path / "none"))
    assert f"blob {rollouts.blob[:16]}, which is not in this store" in elsewhere.read_text()
