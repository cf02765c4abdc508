"""`rlvr run` / `resume` exit codes as documented (orchestrator/cli/app.py EXIT_CODES and the
README's table): 0 completed, 3 paused (a policy, SIGTERM), 130 paused by Ctrl-C, 1 failed, 2 bad
input; a paused run's summary says why and prints the resume command. The real CLI entry and
driver, on stand-in stages (tests/slow/test_cli_human_forms.py runs the same on the real ones)."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest

import orchestrator.cli.app as cli_app
from orchestrator.cli.app import EXIT_CODES
from tests.cli_runner import Result, rlvr
from tests.scenario.fake_stages import FakeStages


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "run.toml"
    path.write_text(f'run_name = "codes"\nlog_path = "{tmp_path}"\n')
    return path


def _run(capsys: pytest.CaptureFixture[str], monkeypatch, stages: FakeStages, *args: str) -> Result:
    monkeypatch.setattr(cli_app, "_stages", stages.registry)
    return rlvr(capsys, *args)


def _run_id(result: Result) -> str:
    return re.search(r"run (\S+) started", result.err).group(1)


def test_a_completed_run_exits_0_and_prints_the_export_command(
    capsys, monkeypatch, config: Path
) -> None:
    done = _run(capsys, monkeypatch, FakeStages(), "run", str(config))
    assert done.code == 0, done.err
    run_id = _run_id(done)
    assert f"run {run_id}: completed" in done.out
    assert f"export the model: rlvr export-model {run_id} --out models/{run_id}" in done.out


def test_a_policy_pause_exits_3_says_why_and_a_resume_goes_on_without_pausing_again(
    capsys, monkeypatch, config: Path
) -> None:
    judge_fails_once = FakeStages(
        metrics_at=lambda step: {"judge_error_rate": 0.5} if step == 13 else {}
    )
    paused = _run(capsys, monkeypatch, judge_fails_once, "run", str(config))
    assert paused.code == 3, paused.err
    run_id = _run_id(paused)
    assert f"run {run_id}: paused at step 13" in paused.out
    assert "paused: policy faults: 50% of judge calls failed at step 13" in paused.out
    assert f"continue with: rlvr resume {run_id}" in paused.out
    assert "-> latest" in paused.out and "-> final" not in paused.out
    resumed = _run(capsys, monkeypatch, judge_fails_once, "resume", run_id, "--store",
                   str(config.parent / "events.db"))  # fmt: skip
    assert resumed.code == 0, resumed.out + resumed.err
    assert f"run {run_id}: completed" in resumed.out


@pytest.mark.parametrize(("sent", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 3)])
def test_a_signal_pauses_the_run_and_exits_130_for_ctrl_c_3_for_sigterm(
    capsys, monkeypatch, config: Path, sent: signal.Signals, code: int
) -> None:
    def signal_at(step: int) -> None:
        if step == 13:
            os.kill(os.getpid(), sent)

    stopped = _run(capsys, monkeypatch, FakeStages(on_step=signal_at), "run", str(config))
    assert stopped.code == code, stopped.err
    run_id = _run_id(stopped)
    assert f"paused: {sent.name} received" in stopped.out
    assert f"continue with: rlvr resume {run_id}" in stopped.out


def test_a_failed_run_exits_1_and_points_at_why(capsys, monkeypatch, config: Path) -> None:
    failed = _run(capsys, monkeypatch, FakeStages(false_positive_rate=0.2), "run", str(config))
    assert failed.code == 1
    assert f"why it failed: rlvr why {_run_id(failed)}" in failed.out


def test_bad_input_exits_2_and_writes_nothing(capsys, monkeypatch, config: Path) -> None:
    bad_key = _run(capsys, monkeypatch, FakeStages(), "run", str(config), "gates.max_kll=1")
    assert bad_key.code == 2 and "did you mean 'gates.max_kl'" in bad_key.err
    assert not (config.parent / "events.db").exists()
    unknown = rlvr(capsys, "resume", "nope", "--store", str(config.parent / "none.db"))
    assert unknown.code == 2 and "no event store" in unknown.err
    _run(capsys, monkeypatch, FakeStages(), "run", str(config))
    missing = rlvr(capsys, "resume", "nope", "--store", str(config.parent / "events.db"))
    assert missing.code == 2 and "no run 'nope'" in missing.err


def test_the_documented_codes_are_the_ones_used() -> None:
    assert sorted(EXIT_CODES) == [0, 1, 2, 3, 130]
    assert (cli_app.EXIT_PAUSED, cli_app.EXIT_INTERRUPTED) == (3, 130)


def test_under_mlx_launch_a_paused_rank_0_exits_0_and_still_says_it_paused(
    capsys, monkeypatch, config: Path
) -> None:
    """`mlx.launch` reads any non-zero exit of a rank as a crash and tears the job down."""
    import typer

    from orchestrator.driver.commands import load_state
    from store.log import EventLog

    judge = FakeStages(metrics_at=lambda step: {"judge_error_rate": 0.5} if step == 13 else {})
    paused = _run(capsys, monkeypatch, judge, "run", str(config))
    assert paused.code == 3
    log = EventLog(config.parent / "events.db")
    run_id = _run_id(paused)
    state = load_state(log, run_id)
    cli_app._launched_finish(run_id, state, log)  # returns: the process exits 0
    assert f"continue with: rlvr resume {run_id}" in capsys.readouterr().out
    with pytest.raises(typer.Exit) as single:
        cli_app._finish(run_id, state, log)
    assert single.value.exit_code == 3


def test_the_readme_exit_code_table_is_the_one_the_cli_uses() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme.split("### Exit codes", 1)[1].split("\n\n", 2)[1]
    rows = {int(line.split("|")[1]): line for line in table.splitlines()[2:]}
    assert sorted(rows) == sorted(EXIT_CODES)
    assert "rlvr resume RUN" in rows[3] and "Ctrl-C" in rows[130] and "unknown run id" in rows[2]
