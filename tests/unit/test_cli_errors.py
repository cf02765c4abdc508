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


_BOOM = (
    "import orchestrator.cli.app as cli\n"
    "def boom(**kw): raise RuntimeError('nobody expected this')\n"
    "cli.app = boom\n"
    "cli.main()\n"
)


def test_an_unexpected_error_is_one_line_and_exit_1_unless_debugging(tmp_path: Path) -> None:
    """Issue 28's last resort: an exception no command expected is one `error:` line naming its
    type, exit 1, no traceback; RLVR_DEBUG=1 shows the traceback."""
    import os

    run = lambda env: subprocess.run(  # noqa: E731
        [sys.executable, "-c", _BOOM], cwd=tmp_path, capture_output=True, text=True,
        timeout=120, env={**os.environ, **env},
    )  # fmt: skip
    result = run({"RLVR_DEBUG": ""})
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "error: RuntimeError: nobody expected this (set RLVR_DEBUG=1 for the traceback)"
    ]
    debugging = run({"RLVR_DEBUG": "1"})
    assert debugging.returncode == 1 and "Traceback" in debugging.stderr


@pytest.mark.parametrize(
    "args",
    [["why"], ["replay"], ["resume"], ["status"], ["sink", "--to", "tensorboard", "tb"]],
)
def test_a_row_that_breaks_its_schema_is_one_line_naming_its_seq(
    tmp_path: Path, args: list[str]
) -> None:
    """Red team round 8 (a8s-05, 37): a chain-consistent MetricsRecorded with `"step": "x"` made
    why/replay/resume/sink end in a ValueError or TypeError traceback."""
    from store.log import EventLog
    from tests.tampering import forge_chain, synthetic_run

    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, "forged", steps=4)
    forge_chain(log, "forged", 4, {"step": "x"})
    command, *rest = args
    result = _rlvr(tmp_path, command, "forged", *rest, "--store", "events.db")
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert "seq 4: payload does not match MetricsRecorded" in lines[0]


@pytest.mark.parametrize(
    "args", [["replay"], ["sink", "--to", "tensorboard", "tb"], ["report", "--out", "rep"]]
)
def test_a_metric_that_is_not_a_number_is_one_line_naming_its_seq(
    tmp_path: Path, args: list[str]
) -> None:
    """A forged MetricsRecorded whose `kl` is text folds (the fold keeps metrics as they are), then
    the policies (replay), the sink and the run page's series read it as a number."""
    from store.log import EventLog
    from tests.tampering import forge_chain, synthetic_run

    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, "forged", steps=4)
    forge_chain(log, "forged", 4, {"metrics": {"kl": "big"}})
    command, *rest = args
    result = _rlvr(tmp_path, command, "forged", *rest, "--store", "events.db")
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert "seq 4: payload does not match MetricsRecorded" in lines[0], lines[0]
