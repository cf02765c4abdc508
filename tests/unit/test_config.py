"""Config: TOML + overrides, and errors that name the file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.config import RunConfig, config_hash, load_config
from orchestrator.errors import ConfigError


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "run.toml"
    path.write_text(text)
    return path


def test_overrides_beat_the_file_and_the_file_beats_defaults(tmp_path: Path) -> None:
    path = _write(tmp_path, 'seed = 3\nrun_name = "a"\n[gates]\nmax_kl = 0.2\n')
    config = load_config(path, ["seed=7", "gates.min_verifiability=0.9", "max_category_share=0.5"])
    assert (config.seed, config.run_name) == (7, "a")
    assert config.gates.max_kl == 0.2 and config.gates.min_verifiability == 0.9
    assert config.gates.max_category_share == 0.5
    assert config.eval_every == RunConfig().eval_every


def test_the_hash_follows_the_resolved_config() -> None:
    assert config_hash(RunConfig()) == config_hash(RunConfig())
    assert config_hash(RunConfig()) != config_hash(RunConfig(seed=1))


@pytest.mark.parametrize(
    ("text", "overrides", "message"),
    [
        ("seed = = 3\n", [], r"run.toml: TOML syntax error: .*line 1"),
        (
            "seed = 1\n[gates]\nmax_kl = 0.2\nmin_verifiabilty = 0.7\n",
            [],
            r"run.toml:4: unknown config key 'gates.min_verifiabilty' \(did you mean 'gates.min_verifiability'\?\)",
        ),
        ('seed = "many"\n', [], r"run.toml:1: seed: Input should be a valid integer"),
        ("", ["sed=3"], r"unknown config key 'sed' on the command line \(did you mean 'seed'\?\)"),
        ("", ["seed"], r"expected key=value"),
        ("", ["max_kl=high"], r"command line: gates.max_kl: Input should be a valid number"),
        (
            "[checkpoints]\nkeep_optimizer_last = 0\n",
            [],
            r"run.toml:2: checkpoints.keep_optimizer_last: Input should be greater than or equal to 1",
        ),
        (
            '[checkpoints]\nkeep_optimizer_last = "2"\n',
            [],
            r"run.toml:2: checkpoints.keep_optimizer_last: Input should be a valid integer",
        ),
    ],
)
def test_bad_input_names_what_is_at_fault(
    tmp_path: Path, text: str, overrides: list[str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(_write(tmp_path, text), overrides)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="nope.toml: no such config file"):
        load_config(tmp_path / "nope.toml")


def test_the_shipped_supervisor_config_loads() -> None:
    from orchestrator.driver.supervisor import load_supervisor_config

    config = load_supervisor_config(
        Path(__file__).resolve().parents[2] / "configs" / "supervisor.toml"
    )
    assert config.max_restarts == 5 and config.schedule == []


def test_a_bad_supervisor_config_names_the_field(tmp_path: Path) -> None:
    from orchestrator.driver.supervisor import load_supervisor_config

    path = tmp_path / "sup.toml"
    path.write_text('[[schedule]]\nconfig = "x.toml"\n')
    with pytest.raises(ConfigError, match=r"schedule.0.cron: Field required"):
        load_supervisor_config(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('interval_s = "15"', r"sup.toml:2: interval_s: Input should be a valid number"),
        ("max_restarts = true", r"sup.toml:2: max_restarts: Input should be a valid integer"),
        ("grace_s = inf", r"sup.toml:2: grace_s: must be a finite number"),
        ("backoff_base_s = 900.0", r"backoff_base_s \(900.0\) is above backoff_max_s \(600.0\)"),
        ('[[schedule]]\nconfig = "x.toml"\ncron = "61 * * * *"', r"schedule.0.cron: .*crontab"),
        ("interval = 15", r"sup.toml:2: interval: Extra inputs are not permitted"),
    ],
)
def test_the_supervisor_config_is_strict_and_names_file_line_and_field(
    tmp_path: Path, text: str, message: str
) -> None:
    from orchestrator.driver.supervisor import load_supervisor_config

    path = tmp_path / "sup.toml"
    path.write_text(f"# supervisor\n{text}\n")
    with pytest.raises(ConfigError, match=message):
        load_supervisor_config(path)
