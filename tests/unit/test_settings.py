"""One name, one value per setting a run changes while it trains: the vocabulary on the ground
floor (store/settings.py), the config fields it starts from, the README's table made from it, the
values in force as a fold of the log, and old logs read under the one names."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.settings_table import CHANGED_BY, settings_table
from stages.training.config import SETTING_FIELDS, GRPOConfig
from stages.training.types import TrainerState, UpdateMetrics
from store.errors import StoreError
from store.settings import BY_NAME, SETTINGS, Settings
from store.upcasters import upcast

ROOT = Path(__file__).resolve().parents[2]
NAMES = [s.name for s in SETTINGS]


def test_the_readme_shows_the_table_made_from_the_vocabulary() -> None:
    assert settings_table() in (ROOT / "README.md").read_text(encoding="utf-8")
    assert list(CHANGED_BY) == NAMES == [f.name for f in dataclasses.fields(Settings)]


def test_every_setting_starts_at_the_config_field_of_its_name_and_type() -> None:
    config = GRPOConfig()
    assert list(SETTING_FIELDS) == NAMES
    start = config.start_settings()
    for setting in SETTINGS:
        assert SETTING_FIELDS[setting.name][-1] == setting.name
        assert isinstance(getattr(start, setting.name), setting.type)
    assert start.temperature == config.sampling.temperature
    assert start.learning_rate == config.learning_rate


def test_a_config_in_force_holds_each_setting_where_it_starts() -> None:
    changed = GRPOConfig().start_settings().changed(
        {"temperature": 0.5, "micro_batches": 4, "learning_rate": 9e-3, "kl_penalty_coef": 0.2,
         "entropy_coef": 0.1, "group_size": 3, "not_a_setting": 1}
    )  # fmt: skip
    config = GRPOConfig().in_force(changed)
    assert config.sampling.temperature == 0.5 and config.micro_batches == 4
    assert (config.learning_rate, config.kl_penalty_coef) == (9e-3, 0.2)
    assert (config.entropy_coef, config.group_size) == (0.1, 3)
    assert config.start_settings() == changed
    assert GRPOConfig().in_force(GRPOConfig().start_settings()) == GRPOConfig()


def test_settings_are_read_as_their_types_and_refuse_what_is_missing_or_not_a_number() -> None:
    values = GRPOConfig().start_settings().values()
    assert Settings.of({**values, "group_size": 4.0}).group_size == 4
    assert type(Settings.of({**values, "learning_rate": 1}).learning_rate) is float
    with pytest.raises(StoreError, match="no value in force for setting 'micro_batches'"):
        Settings.of({k: v for k, v in values.items() if k != "micro_batches"})
    with pytest.raises(StoreError, match="setting 'temperature': expected a number"):
        Settings.of({**values, "temperature": "hot"})


def test_the_trainer_keeps_no_setting_and_the_update_logs_the_one_names() -> None:
    assert not set(NAMES) & {f.name for f in dataclasses.fields(TrainerState)}
    assert {BY_NAME["learning_rate"].metric, BY_NAME["kl_penalty_coef"].metric} <= set(
        UpdateMetrics.model_fields
    )
    assert "kl_coef" not in UpdateMetrics.model_fields
    assert "learning_rate" not in UpdateMetrics.model_fields
    metrics = GRPOConfig().start_settings().metrics()
    assert set(metrics) == set(NAMES) - {"learning_rate"}  # the step logs the scheduled rate


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
    expected = config.grpo.start_settings().values()
    assert expected["learning_rate"] == 3e-5 and expected["micro_batches"] == 2
    assert project(log.read(run_id)).hyperparameters == expected


def test_an_old_run_started_row_gets_the_start_values_its_config_held() -> None:
    config = RunConfig.model_validate(
        {"grpo": {"learning_rate": 2e-5, "sampling": {"temperature": 0.7}}}
    ).model_dump(mode="json")
    for version in (1, 2):
        payload = upcast("RunStarted", version, {"config": config, "config_hash": "x"})
        grpo = RunConfig.model_validate(payload["config"]).grpo
        assert payload["hyperparameters"] == grpo.start_settings().values()
    assert upcast("RunStarted", 2, {"config": {}, "config_hash": "x"})["hyperparameters"] == {}


def test_every_change_of_a_setting_is_a_hyperparameters_changed_the_fold_reads() -> None:
    """Out of memory, the faults policy's retry changes `micro_batches` by the same event a KL
    adjustment changes the LR by: the fold of the log is the one home of the values in force."""
    from policies.consequences import consequences
    from policies.types import Decision
    from store.events import HyperparametersChanged, RunStarted
    from store.log import StoredEvent
    from store.projections import project

    retry = Decision(
        policy="faults", action="retry_smaller_microbatch", trigger_metric="oom", value=None,
        threshold=None, parameters={"step": 3, "attempt": 1, "micro_batches": 4}, reason="oom",
    )  # fmt: skip
    (changed,) = consequences(project([]), retry)
    assert changed == HyperparametersChanged(changes={"micro_batches": 4}, reason="oom")
    start = GRPOConfig().start_settings().values()
    events = [
        RunStarted(config={}, config_hash="h", hyperparameters=start),
        HyperparametersChanged(changes={"learning_rate": 5e-5, "kl_penalty_coef": 0.02}),
        changed,
    ]
    rows = [
        StoredEvent(run_id="r", seq=i + 1, type=e.type_name(), schema_version=e.schema_version,
                    payload=e.model_dump_json(), recorded_at="", prev_hash="", hash="")
        for i, e in enumerate(events)
    ]  # fmt: skip
    in_force = Settings.of(project(rows).hyperparameters)
    assert (in_force.learning_rate, in_force.kl_penalty_coef) == (5e-5, 0.02)
    assert in_force.micro_batches == 4 and in_force.group_size == start["group_size"]


def test_the_policies_read_settings_by_the_vocabulary_and_refuse_another_name() -> None:
    from policies.signals import hyperparameter
    from store.projections import RunState

    state = RunState(hyperparameters={"temperature": 0.7})
    assert hyperparameter(state, "temperature") == 0.7
    with pytest.raises(KeyError, match="'kl_coef' is not a setting"):
        hyperparameter(state, "kl_coef")
