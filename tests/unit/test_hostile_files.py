"""Files a person hands the command line are bounded and checked at the door, as typed: a data
row over the length limits or the model's context, deeply nested JSON, text that is not UTF-8 and
paths that cannot be written each give one `error:` line naming the file (and line), a non-zero
exit, no traceback and no run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import Result, rlvr

MATH_OK = {"prompt": "2+2?", "answer": "4"}


def _one_line(result: Result, expected: str, code: int = 2) -> None:
    assert result.code == code, result.err
    assert len(result.error_lines) == 1, result.err
    assert result.error_lines[0].startswith("error: "), result.err
    assert expected in result.error_lines[0], result.err
    assert "Traceback" not in result.err


def _task_file(tmp_path: Path, rows: list, name: str = "tasks.jsonl") -> None:
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    (tmp_path / name).write_text("\n".join(lines) + "\n")
    (tmp_path / "run.toml").write_text(f'[data]\ntask_family = "math"\ndata_path = "{name}"\n')


@pytest.mark.parametrize(
    ("rows", "overrides", "expected"),
    [
        # 30,000 characters of answer segfaulted mlx 7 s into SFT (rc 139)
        (
            [MATH_OK, MATH_OK | {"prompt": "3+3?"}, {"prompt": "1+1?", "answer": "2" * 30_000}],
            [],
            "tasks.jsonl:3: field 'answer': 30,000 characters, over data.max_answer_chars = 8,192",
        ),
        (
            [MATH_OK, {"prompt": "x" * 40, "answer": "1"}],
            ["data.max_prompt_chars=32"],
            "tasks.jsonl:2: field 'prompt': 40 characters, over data.max_prompt_chars = 32",
        ),
        # within the character limits, but not within the embedded model's 64 positions
        (
            [{"prompt": "1" * 50, "answer": "2" * 20}, MATH_OK],
            ["model.max_position_embeddings=64"],
            "tasks.jsonl:1: the prompt and answer take 71 tokens, over the model's context of 64 "
            "(model.max_position_embeddings)",
        ),
    ],
)
def test_a_row_too_long_is_refused_at_the_door_with_its_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    rows: list,
    overrides: list[str],
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    _task_file(tmp_path, rows)
    _one_line(rlvr(capsys, "run", "run.toml", *overrides), expected)
    assert not (tmp_path / "runs").exists()  # no store, no run directory: SFT never started


def test_rows_within_the_limits_and_the_context_pass_the_door() -> None:
    from orchestrator.config import check_data, load_config

    check_data(load_config("configs/math.toml"))  # as shipped: no error
