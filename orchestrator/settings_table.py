"""The README's table of the settings a run changes while it trains, made from their one
vocabulary (store/settings.py), where each starts in the run's config (stages/training/config.py)
and what changes it. `python -m orchestrator.settings_table` prints it; a test holds the README's
copy equal to it."""

from __future__ import annotations

from stages.training.config import SETTING_FIELDS
from store.settings import SETTINGS

# Who changes each setting while the run trains, each change a `HyperparametersChanged` event
# (tests/unit/stages/test_stage_every_setting.py changes each by these triggers).
CHANGED_BY = {
    "learning_rate": "policies kl, rollback; chaos",
    "kl_penalty_coef": "policies kl, rollback",
    "temperature": "policy entropy; chaos",
    "entropy_coef": "policy entropy",
    "group_size": "policy entropy",
    "micro_batches": "policy faults (out of memory)",
}


def settings_table() -> str:
    """The table as the README shows it."""
    rows = [
        "| setting | type | config | changed by | step metric |",
        "| --- | --- | --- | --- | --- |",
    ]
    for s in SETTINGS:
        config = ".".join(("grpo", *SETTING_FIELDS[s.name]))
        rows.append(
            f"| `{s.name}` | {s.type.__name__} | `{config}` | {CHANGED_BY[s.name]} | `{s.metric}` |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    print(settings_table())
