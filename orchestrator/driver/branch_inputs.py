"""What a branch's driver reads of its parent's history, checked before the branch writes its
first row (`lifecycle.branch`).

A branch replays the parent's steps after the checkpoint it restores (stages/rl/resume.py): it
takes the settings in force as numbers (`store.settings.Settings`), applies each
`HyperparametersChanged` on the way, and switches to each `TrainingSetBuilt`'s tasks, looked up
in the branch's task file. A text value among those settings (`"learning_rate": "0.001"`, which
the event's schema lets through) or a training set naming a task the task file does not hold was
refused only there, after the branch's rows were written: a branch no driver could run. Here
each is one error naming the setting or the task file and the parent's seq; nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orchestrator.config import RunConfig
from orchestrator.errors import ConfigError, OrchestratorError
from store.errors import StoreError
from store.log import EventLog
from store.settings import Settings

# The rows a catch-up reads for its settings and its curriculum.
_READ = ["RunStarted", "HyperparametersChanged", "TrainingSetBuilt"]


def check_branch_history(
    log: EventLog, parent_id: str, at_seq: int, config: RunConfig, start: Mapping[str, Any]
) -> None:
    """Refuse a branch of `parent_id` at `at_seq` whose driver would refuse the parent's history
    there: `OrchestratorError` for a setting that is not a number (named with its seq),
    `ConfigError` (data.data_path) for a training set naming a task the branch's task file (in
    `config`, the branch's) does not hold. `start`: the config's start values of the settings."""
    settings = Settings.of(start)
    task_ids: set[str] | None = None
    for row in log.read(parent_id, types=_READ, to_seq=at_seq):
        event: Any = row.event
        if row.type == "TrainingSetBuilt":
            if event.pass_rates:  # the task file is read only for a set that names tasks
                task_ids = _task_ids(config) if task_ids is None else task_ids
                _check_tasks(parent_id, row.seq, event.pass_rates, task_ids, config)
            continue
        values = event.hyperparameters if row.type == "RunStarted" else event.changes
        try:
            settings = settings.changed(values)
        except StoreError as e:  # a setting that is not a number, named by Settings
            raise OrchestratorError(
                f"run {parent_id}: seq {row.seq}: {e}: a branch cannot replay it (nothing written)"
            ) from e


def _task_ids(config: RunConfig) -> set[str]:
    """The ids of the training tasks the branch's driver will look training sets up in."""
    from stages.errors import StageError
    from stages.services import task_suite  # the task families: only when there is a set

    try:
        return set(task_suite(config).by_id())
    except StageError as e:
        raise ConfigError(f"data.data_path: {e}") from e


def _check_tasks(
    parent_id: str, seq: int, kept: Mapping[str, Any], task_ids: set[str], config: RunConfig
) -> None:
    missing = sorted(i for i in kept if i not in task_ids)
    if missing:
        shown = ", ".join(map(repr, missing[:5])) + (" ..." if len(missing) > 5 else "")
        raise ConfigError(
            f"data.data_path: the training set of run {parent_id} at seq {seq} names task(s) "
            f"{config.data.data_path or 'the generated tasks'} does not hold: {shown} "
            "(nothing written)"
        )
