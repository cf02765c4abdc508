import json
from pathlib import Path

import pytest
import typer
from openai_server import ScriptedOpenAIServer
from typer.testing import CliRunner

from orchestrator.cli.check_command import check

FIXTURES = Path(__file__).parents[2] / "fixtures" / "verifiers"


@pytest.fixture()
def run():
    app = typer.Typer()
    app.command()(check)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args))


def test_math_check_prints_one_verdict_per_line_and_a_summary(run):
    result = run("--verifier", "math", str(FIXTURES / "check_math.jsonl"))
    assert result.exit_code == 0, result.output
    verdicts = [json.loads(line) for line in result.stdout.splitlines()]
    assert [v["passed"] for v in verdicts] == [True, False, True]
    assert set(verdicts[0]) >= {"passed", "reward", "reason"}
    assert "3 checked, 2 passed" in result.stderr


def test_a_bad_line_names_file_line_and_field_and_exits_non_zero(run, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"response": "1", "reference": "1"}\n{"reference": "2"}\n')
    result = run("--verifier", "math", str(path))
    assert result.exit_code == 2
    assert f"{path}:2: field 'response' missing" in result.stderr
    assert result.stdout == ""


def test_invalid_json_and_unknown_verifiers_are_one_clear_line(run, tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text("{oops\n")
    result = run("--verifier", "math", str(path))
    assert result.exit_code == 2 and f"{path}:1:" in result.stderr
    result = run("--verifier", "poetry", str(path))
    assert result.exit_code == 2 and "--verifier must be one of" in result.stderr


def test_code_qa_and_exact_lines_take_their_own_fields(run, tmp_path):
    code = tmp_path / "code.jsonl"
    code.write_text(
        json.dumps({"response": "def f():\n    return 1", "tests": "assert f() == 1"}) + "\n"
    )
    assert json.loads(run("--verifier", "code", str(code)).stdout)["passed"] is True
    qa = tmp_path / "qa.jsonl"
    qa.write_text(
        json.dumps({"response": "Answer: NYC", "reference": "New York", "aliases": ["NYC"]}) + "\n"
    )
    assert json.loads(run("--verifier", "qa", str(qa)).stdout)["passed"] is True
    missing = tmp_path / "code_missing.jsonl"
    missing.write_text(json.dumps({"response": "x"}) + "\n")
    assert "field 'reference' missing" in run("--verifier", "code", str(missing)).stderr


def test_rubric_check_talks_to_an_openai_compatible_server(run, tmp_path):
    path = tmp_path / "rubric.jsonl"
    path.write_text(
        json.dumps({"response": "hi", "prompt": "greet", "rubrics": ["says hi"]}) + "\n"
    )
    reply = json.dumps({"grades": [{"id": 1, "passed": True, "reason": "ok"}]})
    with ScriptedOpenAIServer(default=lambda _b: reply) as server:
        result = run("--verifier", "rubric", "--base-url", server.base_url, str(path))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["passed"] is True
    assert f"judge: {server.base_url}, key from $OPENAI_API_KEY" in result.stderr
