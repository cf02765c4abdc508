"""Bad input through the real `rlvr` console script: one clear line, a non-zero exit, no log."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

RLVR = [sys.executable, "-c", "from orchestrator.cli.app import main; main()"]


def _rlvr(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*RLVR, *args], cwd=tmp_path, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, "missing.toml: no such config file"),
        ("seed = = 1\n", "TOML syntax error: Invalid value (at line 1, column 8)"),
        (
            "[gates]\nmax_kll = 0.1\n",
            "run.toml:2: unknown config key 'gates.max_kll' (did you mean 'gates.max_kl'?)",
        ),
        ("eval_every = 'often'\n", "run.toml:1: eval_every: Input should be a valid integer"),
    ],
)
def test_bad_config_gets_one_line_a_nonzero_exit_and_no_log(
    tmp_path: Path, text: str | None, expected: str
) -> None:
    name = "missing.toml"
    if text is not None:
        name = "run.toml"
        (tmp_path / name).write_text(text)
    result = _rlvr(tmp_path, "run", name)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert expected in lines[0]
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "runs").exists()


def test_an_unknown_override_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    (tmp_path / "run.toml").write_text("seed = 1\n")
    result = _rlvr(tmp_path, "run", "run.toml", "sede=2")
    assert result.returncode == 2 and "did you mean 'seed'" in result.stderr
    assert not (tmp_path / "runs").exists()


def test_reading_a_missing_store_is_an_error_not_a_new_store(tmp_path: Path) -> None:
    result = _rlvr(tmp_path, "status")
    assert result.returncode == 2 and "no event store at runs/events.db" in result.stderr
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("check", "pairs.jsonl"), "Missing option '--verifier'"),
        (("run", "--no-such-flag"), "No such option: --no-such-flag"),
        (("frobnicate",), "No such command 'frobnicate'"),
    ],
)
def test_usage_errors_print_usage_and_exit_2_without_a_traceback(
    tmp_path: Path, args: tuple[str, ...], expected: str
) -> None:
    # the regression: typer 0.29 raises its vendored click's exceptions, which the old handler
    # (click's own classes) let through as a traceback with exit 1
    result = _rlvr(tmp_path, *args)
    assert result.returncode == 2, result.stderr
    assert expected in result.stderr
    assert "Traceback" not in result.stderr
