"""Adding a task family is one module (toy_family.py) and one `register` line: the toy family then
passes config validation, loads from a file (its rows recognised by their keys), goes through
stage 2's verifiability check and stage 3's calibration, and `rlvr check` reads its input shape."""

from __future__ import annotations

import json

import pytest
from toy_family import PARITY
from typer.testing import CliRunner

from orchestrator.cli.app import app
from stages.config import DataConfig
from stages.curriculum import check_verifiability
from stages.tasks import load_tasks
from stages.tasks.calibration import calibrate
from stages.tasks.families import FAMILIES, register
from stages.tasks.references import default_config, reference_for
from stages.verifiers.registry import build_verifier

ROWS = ["1011", "0", "111", "10", "0110", "11111", "1001", "101"]


@pytest.fixture()
def parity_registered():
    register(PARITY)  # the one line a new family needs
    yield PARITY
    FAMILIES.pop(PARITY.name)


@pytest.fixture()
def parity_file(tmp_path):
    path = tmp_path / "parity.jsonl"
    path.write_text("".join(json.dumps({"bits": b}) + "\n" for b in ROWS))
    return path


def test_an_unregistered_family_is_a_config_error_naming_the_known_ones():
    with pytest.raises(ValueError, match="unknown task family 'parity': known families are math"):
        DataConfig(task_family="parity")


def test_a_registered_toy_family_runs_through_load_stage_2_and_stage_3(
    parity_registered, parity_file
):
    assert DataConfig(task_family="parity").task_family == "parity"
    tasks = load_tasks(parity_file)  # no family given: sniffed from the `bits` key
    assert [t.family for t in tasks] == ["parity"] * len(ROWS)
    assert [t.answer for t in tasks[:4]] == ["odd", "even", "odd", "odd"]
    assert reference_for(tasks[0]) == "odd"
    verifier = build_verifier(default_config("parity"))
    assert verifier.name == build_verifier({"kind": "exact"}).name

    verifiable, dropped = check_verifiability(verifier, tasks, seed=0)
    assert (verifiable, dropped) == (len(ROWS), [])

    report = calibrate(verifier, tasks, seed=0)
    # Per task: empty, flipped, hedge and other_task answers are wrong; two forms are right.
    assert report.by_kind["flipped"] == [len(ROWS), 0]
    assert report.by_kind["equivalent"] == [2 * len(ROWS), 0]
    assert report.n_right == 2 * len(ROWS)
    assert report.false_positive_rate == 0.0 and report.false_negative_rate == 0.0


def test_rlvr_check_reads_the_toy_familys_input_shape(parity_registered, tmp_path):
    path = tmp_path / "answers.jsonl"
    lines = [{"response": "odd", "bits": "1"}, {"response": "odd", "bits": "11"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = CliRunner().invoke(app, ["check", "--verifier", "parity", str(path)])
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["passed"] for line in result.stdout.splitlines()] == [True, False]
    assert "2 checked, 1 passed" in result.stderr

    path.write_text(json.dumps({"response": "odd", "bits": "12"}) + "\n")
    result = CliRunner().invoke(app, ["check", "--verifier", "parity", str(path)])
    assert result.exit_code == 2
    assert f"{path}:1: field 'bits' must be 0s and 1s" in result.stderr
