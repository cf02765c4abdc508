"""Bad input is refused before anything is written: `rlvr run` as a person types it, with a bad
config value (file or command line) or a bad task file, gets exit 2, one `error:` line naming the
file, line and field, and leaves no run behind (no store row, no run directory)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from store.log import EventLog
from tests.cli_runner import rlvr


def _refused(result, expected: str) -> None:
    assert result.code == 2, result.err
    assert len(result.error_lines) == 1, result.err
    assert result.error_lines[0].startswith("error: "), result.err
    assert expected in result.error_lines[0], result.err
    assert "Traceback" not in result.err


@pytest.mark.parametrize(
    ("toml", "overrides", "expected"),
    [
        # inf was accepted and logged as null: the run could then never be resumed or branched
        ("[grpo]\nlearning_rate = inf\n", [], "run.toml:2: grpo.learning_rate: must be a finite"),
        ("", ["kl_penalty_coef=inf"], "command line: grpo.kl_penalty_coef: must be a finite"),
        ("", ["grpo.learning_rate=nan"], "command line: grpo.learning_rate: must be a finite"),
        # nan in the file was blamed on the command line (nan != nan)
        ("[grpo]\nlearning_rate = nan\n", ["seed=3"], "run.toml:2: grpo.learning_rate: must be"),
        ("[policies.kl]\nlimit = -inf\n", [], "run.toml:2: policies.kl.limit: must be a finite"),
        ('[verifier]\nkind = "math"\ntimeout_s = inf\n', [], "verifier.timeout_s: must be a"),
        # silent coercions
        ('[grpo]\ngroup_size = "8"\n', [], "run.toml:2: grpo.group_size: Input should be a valid"),
        ("seed = true\n", [], "run.toml:1: seed: Input should be a valid integer"),
        ("", ['seed="8"'], "command line: seed: Input should be a valid integer"),
        ("", ["eval_every=2.5"], "command line: eval_every: Input should be a valid integer"),
        # min < max, checked up front instead of failing stage 4 after SFT
        (
            "[pipeline]\nmin_pass_rate = 0.9\nmax_pass_rate = 0.2\n",
            [],
            "min_pass_rate (0.9) must be below max_pass_rate (0.2)",
        ),
        ("", ["min_pass_rate=0.5", "max_pass_rate=0.5"], "command line: pipeline: Value error"),
        # sane maxima
        (
            "",
            [f"group_size={2**63 - 1}"],
            "grpo.group_size: Input should be less than or equal to 1024",
        ),
        ("[grpo.sampling]\nmax_tokens = 10000000\n", [], "run.toml:2: grpo.sampling.max_tokens"),
        ("", ["sft.learning_rate=5.0"], "command line: sft.learning_rate: Input should be less"),
        # a run name heads the run id, which names a directory under log_path
        ('run_name = "../../x"\n', [], "run.toml:1: run_name: Value error, not usable as a run"),
        ("", ["run_name=a/b"], "command line: run_name: Value error, not usable as a run name"),
        ("", ["run_name=" + "x" * 65], "65 characters (at most 64)"),
    ],
)
def test_a_bad_config_value_is_one_error_line_exit_2_and_nothing_written(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    toml: str,
    overrides: list[str],
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run.toml").write_text(toml)
    _refused(rlvr(capsys, "run", "run.toml", *overrides), expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.toml"]


def test_strict_values_that_are_right_still_load(tmp_path: Path) -> None:
    from orchestrator.config import load_config

    path = tmp_path / "run.toml"
    path.write_text('run_name = "exp-1.b_2"\n[grpo]\nlearning_rate = 1\ngroup_size = 1024\n')
    config = load_config(path, ["kl_penalty_coef=0", "pipeline.min_pass_rate=0.1"])
    assert config.grpo.learning_rate == 1.0 and isinstance(config.grpo.learning_rate, float)
    assert config.grpo.group_size == 1024 and config.pipeline.min_pass_rate == 0.1


def test_every_numeric_config_field_is_bounded_on_both_sides() -> None:
    # A new field gets a lower and an upper bound where it is declared: `2**63-1` or `-1e300`
    # would otherwise start a run.
    import typing

    import annotated_types as at
    from pydantic import BaseModel

    from orchestrator.config import RunConfig
    from stages.verifiers import config as verifiers

    unbounded = []

    def walk(model: type[BaseModel], prefix: str) -> None:
        for name, info in model.model_fields.items():
            args = typing.get_args(info.annotation) or (info.annotation,)
            for arg in args:
                inner = typing.get_args(arg) if typing.get_origin(arg) is list else (arg,)
                for sub in inner:
                    if isinstance(sub, type) and issubclass(sub, BaseModel):
                        walk(sub, f"{prefix}{name}.")
            if any(arg in (int, float) for arg in args):
                low = any(isinstance(m, (at.Ge, at.Gt)) for m in info.metadata)
                high = any(isinstance(m, (at.Le, at.Lt)) for m in info.metadata)
                if not (low and high):
                    unbounded.append(f"{prefix}{name}")

    walk(RunConfig, "")
    for section in typing.get_args(typing.get_args(verifiers.VerifierConfig)[0]):
        walk(section, f"verifier({section.__name__}).")
    assert unbounded == []


# --- task files: parsed in full before RunStarted ------------------------------------------------

MATH_OK = {"prompt": "1+1?", "answer": "2"}


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ([MATH_OK, {**MATH_OK, "difficulty": "3"}], "tasks.jsonl:2: field 'difficulty': expected"),
        ([MATH_OK, MATH_OK, {**MATH_OK, "difficulty": 1.5}], "tasks.jsonl:3: field 'difficulty'"),
        ([MATH_OK, {**MATH_OK, "difficulty": True}], "tasks.jsonl:2: field 'difficulty'"),
        ([MATH_OK, {"prompt": "2+2?"}], "tasks.jsonl:2: field 'answer': missing"),
        ([MATH_OK, "{not json"], "tasks.jsonl:2: invalid JSON"),
    ],
)
def test_a_bad_task_file_is_refused_before_the_run_starts(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    store_url: str,
    rows: list,
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    (tmp_path / "tasks.jsonl").write_text("\n".join(lines) + "\n")
    name = f"bad-data-{uuid.uuid4().hex[:8]}"
    (tmp_path / "run.toml").write_text(
        f'run_name = "{name}"\n[data]\ntask_family = "math"\ndata_path = "tasks.jsonl"\n'
    )
    _refused(rlvr(capsys, "run", "run.toml", "--store", store_url), expected)
    log = EventLog(store_url)
    try:
        assert not [s for s in log.runs() if s.run_id.startswith(name)]
    finally:
        log.close()
    assert not (tmp_path / "runs").exists()


def test_a_non_integer_paragraph_idx_names_line_and_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    row = {"question": "q?", "answer": "a", "paragraphs": [{"idx": "x", "paragraph_text": "t"}]}
    ok = {**row, "paragraphs": [{"idx": 0, "paragraph_text": "t", "is_supporting": True}]}
    (tmp_path / "qa.jsonl").write_text(json.dumps(ok) + "\n" + json.dumps(row) + "\n")
    (tmp_path / "run.toml").write_text('[data]\ntask_family = "qa"\ndata_path = "qa.jsonl"\n')
    result = rlvr(capsys, "run", "run.toml")
    _refused(result, "qa.jsonl:2: field 'paragraphs[0].idx': expected a non-negative integer")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qa.jsonl", "run.toml"]


def test_a_string_is_supporting_is_not_taken_for_true(tmp_path: Path) -> None:
    from stages.tasks.loaders import load_tasks
    from stages.tasks.types import TaskFormatError

    row = {"question": "q", "answer": "a", "paragraphs": [{"paragraph_text": "t",
                                                           "is_supporting": "false"}]}  # fmt: skip
    (tmp_path / "qa.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(TaskFormatError, match=r"qa.jsonl:1: field 'paragraphs\[0\].is_supporting'"):
        load_tasks(tmp_path / "qa.jsonl", "qa")
