"""One name per tunable setting: the table, the README, the policies' list, and old logs read
under the new names."""

from __future__ import annotations

from pathlib import Path

from orchestrator.config import RunConfig
from policies.types import HYPERPARAMETERS
from stages.rl.tunables import BY_NAME, TUNABLES, setting, table_markdown, with_settings
from stages.training.config import GRPOConfig
from stages.training.types import StepMetrics, TrainerState
from store.upcasters import upcast

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_shows_the_table() -> None:
    assert table_markdown() in (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_setting_a_policy_may_change_is_in_the_table_under_its_config_name() -> None:
    assert set(HYPERPARAMETERS) <= set(BY_NAME)
    config = GRPOConfig()
    for tunable in TUNABLES:
        assert tunable.config.split(".")[-1] == tunable.name
        assert (
            isinstance(setting(config, tunable.name), tunable.type) or tunable.lives_on == "trainer"
        )


def test_the_trainer_and_the_step_metrics_use_the_table_names() -> None:
    on_trainer = {t.name for t in TUNABLES if t.lives_on == "trainer"}
    assert on_trainer <= set(TrainerState.__dataclass_fields__)
    assert {BY_NAME[n].metric for n in on_trainer} <= set(StepMetrics.model_fields)
    assert (
        "kl_coef" not in StepMetrics.model_fields
        and "learning_rate" not in StepMetrics.model_fields
    )


def test_overrides_land_where_the_table_says() -> None:
    config = with_settings(
        GRPOConfig(), {"temperature": 0.5, "micro_batches": 4, "learning_rate": 9.0}
    )
    assert config.sampling.temperature == 0.5 and config.micro_batches == 4
    assert config.learning_rate == GRPOConfig().learning_rate  # the trainer's, not the config's


def test_old_metrics_are_read_under_the_one_names() -> None:
    old = {"step": 3, "metrics": {"kl_coef": 0.05, "learning_rate": 1e-5, "kl": None,
                                  "nonfinite_kl_coef": 1.0, "reward_mean": 0.5}}  # fmt: skip
    new = upcast("MetricsRecorded", 1, old)["metrics"]
    assert new == {"kl_penalty_coef": 0.05, "learning_rate_scheduled": 1e-5, "kl": None,
                   "nonfinite_kl_penalty_coef": 1.0, "reward_mean": 0.5}  # fmt: skip


def test_a_run_recorded_with_the_trainers_kl_controller_still_loads() -> None:
    config = RunConfig().model_dump(mode="json")
    config["grpo"] |= {"kl_controller": "adaptive", "kl_target": 0.05, "kl_adapt_rate": 0.1}
    payload = upcast("RunStarted", 1, {"config": config, "config_hash": "x"})
    assert "kl_controller" not in payload["config"]["grpo"]
    RunConfig.model_validate(payload["config"])


def test_a_new_run_records_every_tunables_start_value_and_the_projection_copies_it(
    tmp_path: Path,
) -> None:
    from orchestrator.driver.commands import start_run
    from store.log import EventLog
    from store.projections import project

    config = RunConfig.model_validate({"grpo": {"learning_rate": 3e-5, "micro_batches": 2}})
    log = EventLog(tmp_path / "e.db")
    run_id, _ = start_run(log, config)
    started = next(iter(log.read(run_id)))
    assert started.type == "RunStarted" and started.schema_version == 3
    expected = {t.name: setting(config.grpo, t.name) for t in TUNABLES}
    assert expected["learning_rate"] == 3e-5 and expected["micro_batches"] == 2
    assert project(log.read(run_id)).hyperparameters == expected


def test_an_old_run_started_row_gets_the_start_values_its_config_held() -> None:
    config = RunConfig.model_validate(
        {"grpo": {"learning_rate": 2e-5, "sampling": {"temperature": 0.7}}}
    ).model_dump(mode="json")
    for version in (1, 2):
        payload = upcast("RunStarted", version, {"config": config, "config_hash": "x"})
        grpo = RunConfig.model_validate(payload["config"]).grpo
        assert payload["hyperparameters"] == {t.name: setting(grpo, t.name) for t in TUNABLES}
    assert upcast("RunStarted", 2, {"config": {}, "config_hash": "x"})["hyperparameters"] == {}
