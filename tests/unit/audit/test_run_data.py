"""The run page's data on the synthetic chaos log: its gates are `rlvr status RUN --json`'s, its
explanations `rlvr why RUN --seq N --json`'s, its series and markers what the log holds, an
increment is exactly the rows after its seq, and a step's rollouts carry the log's rewards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.console.run_data import run_page_data, step_data, why_data
from orchestrator.errors import UsageError
from store.log import EventLog
from tests.cli_runner import rlvr

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _store(log: EventLog) -> str:
    return log.url.removeprefix("sqlite:///")


def test_the_stage_strip_holds_the_gates_rlvr_status_gives(
    chaos: tuple[EventLog, str], capsys: pytest.CaptureFixture[str]
) -> None:
    log, run_id = chaos
    data = run_page_data(log, run_id)
    status = json.loads(rlvr(capsys, "status", run_id, "--json", "--store", _store(log)).out)
    shown = [g for stage in data["stages"] for g in stage["gates"]]
    assert sorted(shown, key=lambda g: g["seq"]) == sorted(status["gates"], key=lambda g: g["seq"])
    assert [s["name"] for s in data["stages"]][0] == "sft_preparation" and len(data["stages"]) == 7
    assert {s["status"] for s in data["stages"]} == {"passed"}  # a completed run
    kl = next(g for g in shown if g["name"] == "kl")
    assert kl["threshold"] == 0.1 and kl["passed"] is True


def test_each_explained_marker_is_what_rlvr_why_seq_gives(
    chaos: tuple[EventLog, str], capsys: pytest.CaptureFixture[str]
) -> None:
    log, run_id = chaos
    data = run_page_data(log, run_id)
    explained = [m for m in data["markers"] if m["explained"]]
    assert {m["kind"] for m in explained} == {"decision", "rollback"}
    for marker in explained:
        seq = str(marker["seq"])
        cli = json.loads(
            rlvr(capsys, "why", run_id, "--seq", seq, "--json", "--store", _store(log)).out
        )
        page = why_data(log, run_id, marker["seq"])
        assert page["items"] == cli["items"] and page["abandoned"] == cli["abandoned"]
    kl = why_data(log, run_id, next(m["seq"] for m in explained if m["label"].startswith("kl")))
    window = kl["items"][0]["window"]
    assert window["metric"] == "kl" and window["steps"] == [4] and window["values"] == [0.16]
    assert kl["items"][0]["threshold"] == 0.1


def test_series_and_markers_are_what_the_log_holds(chaos: tuple[EventLog, str]) -> None:
    log, run_id = chaos
    data = run_page_data(log, run_id)
    rows = [(r.seq, r.fields()) for r in log.read(run_id, types=["MetricsRecorded"])]
    series = data["series"]
    assert series["seq"] == [seq for seq, _ in rows]
    assert series["kl"] == [p["metrics"]["kl"] for _, p in rows]
    assert series["learning_rate"] == [p["metrics"]["learning_rate_scheduled"] for _, p in rows]
    assert series["temperature"][35] == 1.2 and series["temperature"][34] == 1.0
    kinds = {(m["kind"], m["step"]) for m in data["markers"]}
    assert {("decision", 4), ("rollback", 20), ("decision", 35), ("checkpoint", 10)} <= kinds
    assert data["evals"]["step"] == [10, 20, 30, 40, 40]
    assert {"metric": "kl", "label": "gate kl", "value": 0.1} in [
        {k: t[k] for k in ("metric", "label", "value")} for t in data["thresholds"]
    ]


def test_an_increment_holds_only_the_rows_after_its_seq(chaos: tuple[EventLog, str]) -> None:
    log, run_id = chaos
    full = run_page_data(log, run_id)
    cut = full["series"]["seq"][25]
    more = run_page_data(log, run_id, after_seq=cut)
    assert more["series"]["seq"] == full["series"]["seq"][26:]
    assert more["series"]["kl"] == full["series"]["kl"][26:]
    assert more["markers"] == [m for m in full["markers"] if m["seq"] > cut]
    assert more["stages"] == full["stages"]
    assert run_page_data(log, run_id, after_seq=full["last_seq"])["series"]["seq"] == []


def test_a_step_shows_its_rollouts_with_the_rewards_and_verdicts_the_log_holds(
    chaos: tuple[EventLog, str],
) -> None:
    log, run_id = chaos
    step = step_data(log, run_id, 4)
    [attempt] = step["attempts"]
    row = next(
        r.fields() for r in log.read(run_id, types=["RolloutsSampled"]) if r.fields()["step"] == 4
    )
    groups = attempt["groups"]
    assert [g["prompt"] for g in groups] == [s["prompt"] for s in row["samples"]]
    assert [[r["reward"] for r in g["rollouts"]] for g in groups] == [
        s["rewards"] for s in row["samples"]
    ]
    assert [[r["completion"] for r in g["rollouts"]] for g in groups] == [["5", "5"], ["6", "7"]]
    assert [[r["passed"] for r in g["rollouts"]] for g in groups] == [[True, True], [True, False]]
    assert attempt["metrics"]["kl"] == 0.16
    # round 24 (log 018): a step never logged is refused as `--at-step` refuses it, not an empty 200
    with pytest.raises(UsageError, match=f"run {run_id} has no step 999 \\(its last step is "):
        step_data(log, run_id, 999)


def test_a_step_kept_in_a_blob_shows_advantages_lengths_and_reasons(tmp_path: Path) -> None:
    from store.blobs import BlobStore
    from tests.unit.audit.hostile_log import HOSTILE, hostile_run

    log, run_id, blobs = hostile_run(tmp_path)
    [attempt] = step_data(log, run_id, 1, blobs=blobs)["attempts"]
    first = attempt["groups"][0]["rollouts"]
    assert attempt["text"] == "blob" and [r["reward"] for r in first] == [1.0, 0.0]
    assert [r["advantage"] for r in first] == [1.0, -1.0] and first[1]["truncated"] is True
    assert first[0]["reason"] == HOSTILE[-1] and first[0]["length"] == 7
    [missing] = step_data(log, run_id, 1, blobs=BlobStore(tmp_path / "none"))["attempts"]
    assert "which is not in this store" in missing["text"]
    assert [[r["reward"] for r in g["rollouts"]] for g in missing["groups"]] == [[1.0, 0.0]] * 2


def test_an_increment_reuses_the_step_index_the_page_built(chaos: tuple[EventLog, str]) -> None:
    from orchestrator.console.run_index import step_index

    log, run_id = chaos
    run_page_data(log, run_id)
    index = step_index(log, run_id)
    assert index.position == log.last_seq(run_id) and sorted(index.by_step) == list(range(1, 41))
    run_page_data(log, run_id, after_seq=5)  # an increment from far back: no index rebuilt
    assert step_index(log, run_id) is index and index.step_at(31) == 4


def test_the_page_reads_the_same_from_postgresql(chaos: tuple[EventLog, str]) -> None:
    import os
    import uuid

    from store.log import StoredEvent, chain_hash

    url = os.environ.get("RLVR_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("RLVR_TEST_POSTGRES_URL is not set")
    log, run_id = chaos
    target, prev, rows = f"page-{uuid.uuid4().hex[:10]}", "0" * 64, []
    for row in log.read(run_id):  # the chaos run under a new id, its chain hashed for that id
        digest = chain_hash(
            prev, target, row.seq, row.type, row.schema_version, row.recorded_at, row.payload
        )
        rows.append(
            StoredEvent(
                target,
                row.seq,
                row.type,
                row.schema_version,
                row.recorded_at,
                prev,
                digest,
                row.payload,
            )
        )
        prev = digest
    pg = EventLog(url)
    pg.import_rows(rows, batch_ends=log.batch_ends(run_id))
    try:
        assert run_page_data(pg, target) == {**run_page_data(log, run_id), "run_id": target}
        cut = run_page_data(log, run_id)["series"]["seq"][30]
        assert (
            run_page_data(pg, target, after_seq=cut)["series"]
            == run_page_data(log, run_id, after_seq=cut)["series"]
        )
        assert step_data(pg, target, 20)["attempts"] == step_data(log, run_id, 20)["attempts"]
    finally:
        pg.close()  # the run stays, under its unique id, as the other PostgreSQL tests' runs do
