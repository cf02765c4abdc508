"""A deliberately loose verifier (the QA verifier on arithmetic answers, passing at an F1 of 0.1)
accepts wrong answers (conflicting finals, answers inside an unclosed <think>): it fails the stage-3
gate, and `rlvr why` names the wrong answers it accepted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.slow.runs import QUICKSTART, SHORT, only_run, rlvr, state

pytestmark = pytest.mark.slow

LOOSE = ["verifier.kind=qa", "verifier.f1_threshold=0.1", "sft.steps=50"]


def test_why_names_the_wrong_answers_a_loose_verifier_accepted(tmp_path: Path) -> None:
    result = rlvr("run", str(QUICKSTART), *SHORT, *LOOSE, cwd=tmp_path, timeout=900)
    assert result.returncode == 1, result.stderr[-3000:]
    store = tmp_path / "runs" / "events.db"
    run_id = only_run(store)
    final = state(store, run_id)
    assert final.state == "failed" and "false_positive_rate" in final.failure_reason
    assert not final.gates["false_positive_rate"].passed

    why = rlvr(
        "why",
        run_id,
        "--gate",
        "false_positive_rate",
        "--json",
        "--store",
        str(store),
        cwd=tmp_path,
        check=True,
    )
    (item,) = json.loads(why.stdout)["items"]
    # It fails on its accepted wrong answers: above the 5% rate, or (with stage 3's adversary, whose
    # variants dilute the rate) on a single accepted hack under zero tolerance, named in the detail.
    assert item["passed"] is False and item["value"] > 0
    assert item["value"] > 0.05 or "zero tolerance" in json.dumps(item)
    calibration = next(e for e in item["evidence"] if e["type"] == "VerifierCalibrated")
    # The wrong answers it accepted are named, each with its response and kind (a conflicting
    # final such as '28\n27', an answer inside an unclosed <think>, ...).
    named = json.dumps(calibration)
    assert "accepted" in named and '"response"' in named and '"kind"' in named
    text = rlvr(
        "why",
        run_id,
        "--gate",
        "false_positive_rate",
        "--store",
        str(store),
        cwd=tmp_path,
        check=True,
    ).stdout
    assert "qa" in text and "accepted" in text
