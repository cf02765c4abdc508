"""A driver process in stage 1's SFT (the real stage, a run of many SFT steps), for stop tests.

Usage: python -m tests.scenario.sft_driver DIR  (writes DIR/run_id, then DIR/ready once SFT runs)
"""

from __future__ import annotations

import sys
from pathlib import Path

import stages.training.sft as sft_module
from orchestrator.config import load_config
from orchestrator.driver.commands import start_run
from orchestrator.driver.lifecycle import drive
from orchestrator.driver.registry import product_stages
from store.log import EventLog

ROOT = Path(__file__).resolve().parents[2]
real_sft = sft_module.sft


def announced_sft(*args, **kwargs):  # type: ignore[no-untyped-def]
    """The real SFT, after telling the test it has started."""
    (FOLDER / "ready").write_text("1")
    return real_sft(*args, **kwargs)


def main() -> None:
    log = EventLog(FOLDER / "events.db")
    # Far more steps than the test waits for: only a stop request ends this SFT early.
    config = load_config(
        ROOT / "configs" / "quickstart.toml",
        [f"log_path={FOLDER}", "sft.steps=1000000", "lease_ttl_s=30"],
    )
    run_id, _ = start_run(log, config)
    (FOLDER / "run_id").write_text(run_id)
    sft_module.sft = announced_sft
    drive(log, run_id, config, product_stages())


if __name__ == "__main__":
    FOLDER = Path(sys.argv[1])
    main()
