"""A deliberately loose verifier (the QA reward, token F1 x precision, passing at 0.1 on numeric
answers accepts hedges such as "52 or 53": 0.5 x 1/3) fails the stage-3 gate, and `rlvr why` names
the wrong answers it accepted."""

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
    assert item["passed"] is False and item["value"] > 0.05
    calibration = next(e for e in item["evidence"] if e["type"] == "VerifierCalibrated")
    assert "accepted" in json.dumps(calibration) and " or " in json.dumps(calibration)  # hedges
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
