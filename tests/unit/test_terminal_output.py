"""What a person sees on a terminal during a run (issue 29, item 6): log lines above a live
progress bar, never through it; the run id said once, not on every line; a repeated line
collapsed; each stage announced as "stage k/7" with the time elapsed. The first three in a real
pseudo-terminal."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from orchestrator.driver.runner import Driver
from store.blobs import BlobStore
from store.log import EventLog
from tests.scenario.fake_stages import FakeStages

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

_SCRIPT = textwrap.dedent(
    """
    import time
    from orchestrator.logging import bind, configure, get_logger
    from stages.progress import progress

    configure(level="INFO")
    bind(run_id="quickstart-20261127-012932-9e3e")
    log = get_logger("rlvr.test")
    with progress("GRPO to step 6", 6) as bar:
        for step in range(6):
            time.sleep(0.15)
            log.warning("checkpoint saved", step=step)
            for _ in range(3):
                log.warning("the same thing again")
            bar.advance(1, kl=0.01)
    log.warning("done")
    """
)


def _in_a_terminal(code: str) -> str:
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=child, stdout=child, stderr=child, close_fds=True,
        env={**os.environ, "COLUMNS": "120", "TERM": "xterm-256color"},
    )  # fmt: skip
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(main)
    return b"".join(chunks).decode(errors="replace")


def test_log_lines_go_above_the_bar_without_the_run_id_and_repeats_collapse() -> None:
    raw = _in_a_terminal(_SCRIPT)
    lines = [line for line in re.split(r"[\r\n]", _ANSI.sub("", raw)) if line.strip()]
    logged = [line for line in lines if "checkpoint saved" in line]
    assert len(logged) == 6
    assert not any("━" in line for line in logged), logged  # never on the bar's line
    assert "quickstart-20261127-012932-9e3e" not in raw  # bound, yet said once elsewhere
    same = [line for line in lines if "the same thing again" in line]
    assert len(same) == 6  # once per step: the two repeats after each collapse
    assert sum("(the line above, 2 more times)" in line for line in lines) == 6
    assert any("GRPO to step 6" in line and "6/6" in line for line in lines)


def test_each_stage_is_announced_as_k_of_7_with_the_time_elapsed(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    config = RunConfig(log_path=str(tmp_path))
    run_id, _ = start_run(log, config)
    said: list[str] = []
    Driver(log, run_id, config, FakeStages().registry(), run_dir=tmp_path / run_id,
           blobs=BlobStore(tmp_path / "blobs"), on_stage=said.append).run()  # fmt: skip
    assert [re.sub(r"\(\d+:\d\d elapsed\)", "(T)", line) for line in said] == [
        f"stage {k}/7: {name} (T)"
        for k, name in enumerate(
            [
                "sft_preparation",
                "task_design",
                "verification",
                "data_generation",
                "rlvr_optimization",
                "iterative_training",
                "evaluation",
            ],
            start=1,
        )  # fmt: skip
    ]
