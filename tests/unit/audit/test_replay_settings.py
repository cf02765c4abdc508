"""`rlvr replay` lists the GRPO settings the run trained with: every option of the recorded
config, with a branch's overrides on top."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from orchestrator.config import load_config
from store.events import RunBranched, RunStarted
from store.log import EventLog


def test_replay_lists_the_grpo_options_in_force_with_the_branch_overrides(tmp_path: Path) -> None:
    config = load_config(None, [
        "grpo.loss_agg=dr-grpo", "grpo.dynamic_sampling=true",
        "grpo.reward_weights={format=0.25}",
    ]).model_dump(mode="json")  # fmt: skip
    log = EventLog(tmp_path / "events.db")
    log.append("child", [
        RunStarted(config=config, config_hash="h"),
        RunBranched(parent_run_id="parent", parent_seq=9, overrides=["max_refill_rounds=5"]),
    ], expected_seq=0)  # fmt: skip
    typed = subprocess.run(  # `rlvr replay child --store events.db`, as a person types it
        [sys.executable, "-m", "orchestrator", "replay", "child", "--store", str(tmp_path / "events.db")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert typed.returncode == 0, typed.stderr[-2000:]
    text = " ".join(typed.stdout.split())
    assert "GRPO settings in force:" in text
    for setting in ("loss_agg='dr-grpo'", "dynamic_sampling=True", "max_refill_rounds=5",
                    "reward_weights={'format': 0.25}", "sampling.temperature=1.0",
                    "importance_level='token'", "overlong_filter=False"):  # fmt: skip
        assert setting in text, setting
