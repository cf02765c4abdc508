"""A driver process that hangs inside step 12 while holding its run's lease (for signal tests).

Usage: python -m tests.scenario.hanging_driver DIR  (writes DIR/run_id, then DIR/ready at step 12)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from orchestrator.driver.lifecycle import drive
from store.log import EventLog
from tests.scenario.fake_stages import FakeStages


def main(folder: Path) -> None:
    log = EventLog(folder / "events.db")
    config = RunConfig(log_path=str(folder), lease_ttl_s=30)
    run_id, _ = start_run(log, config)
    (folder / "run_id").write_text(run_id)

    def hang(step: int) -> None:
        if step == 12:
            (folder / "ready").write_text("1")
            time.sleep(600)  # a step that never ends: only the second signal gets us out

    drive(log, run_id, config, FakeStages(on_step=hang).registry())


if __name__ == "__main__":
    main(Path(sys.argv[1]))
