"""The README's first page, run as written: its quick start (tests/slow/conftest.py), then every
command and Python block of its walkthrough, in order, in the same folder. Each exits 0 and does
what the page says it does."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from store.log import EventLog
from tests.slow import readme
from tests.slow.runs import events

pytestmark = pytest.mark.slow

WALK = ["run", "status", "report", "why", "branch", "export-model"]


def test_the_first_page_walks_install_run_status_report_why_branch_export_in_order() -> None:
    typed = [argv[3] for argv in readme.commands() if argv[1:3] == ["-m", "orchestrator"]]
    assert [step for step in typed if step in WALK] == WALK, typed
    page = readme.first_page()
    assert "### Exit codes" in page and "rlvr config show" in page
    assert "#configuration-reference" in page


def test_every_command_of_the_walkthrough_runs_as_written(readme_quickstart) -> None:
    run = readme_quickstart
    env = {**os.environ, "RLVR_LOG_LEVEL": "WARNING", "COLUMNS": "100"}
    outputs = {}
    for argv in readme.commands()[1:]:  # the first is the quick start itself
        done = subprocess.run(argv, cwd=run.workdir, capture_output=True, text=True,
                              timeout=1500, env=env)  # fmt: skip
        typed = " ".join(argv[2:] if argv[1] == "-m" else argv)
        assert done.returncode == 0, f"{typed}:\n{done.stderr[-3000:]}"
        assert "Traceback" not in done.stdout + done.stderr, typed
        outputs[typed] = done.stdout + done.stderr
    said = "\n".join(outputs.values())
    assert run.run_id in outputs["orchestrator status"]
    assert "report" in outputs["orchestrator report latest"]
    assert "setting: gates.max_kl = 0.1" in outputs["orchestrator why latest --gate kl"]
    branched = outputs["orchestrator branch latest --at-step 20 grpo.learning_rate=5e-5"]
    assert f"from {run.run_id} at seq" in branched and ": completed at step" in branched
    assert "stopped at EOS" in said and "gates.max_kl" in said
    child = EventLog(run.store).runs()[-1].run_id
    assert child != run.run_id and events(run.store, child, "ModelExported")
    for block in readme.python_blocks():
        done = subprocess.run([sys.executable, "-c", block], cwd=run.workdir,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        assert done.stdout.strip()
