"""Acceptance of issue 31 item 3, as a person types it: a run whose verdicts a silent fault zeroes
from step 6 on (nothing in its log says so: no event, not in the recorded config) is rescored;
`rlvr rescore` names step 6 exactly, the share of mis-scored rollouts and the checkpoint before
it (step 4), and the `rlvr branch` command it prints completes, with the verifier fixed (the
branch reads the recorded config, which never held the fault): its own rescore finds nothing."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from store.log import EventLog
from tests.slow.runs import QUICKSTART, SHORT, only_run, rlvr

pytestmark = pytest.mark.slow
N = 6
# The fault lives in the TOML file (an override on the command line would be recorded).
FAULT = f"""
[[chaos.faults]]
kind = "verdict_corruption"
step = {N}
mode = "zero"
silent = true
"""
# Zeroed rewards have no variance: the entropy policy would react (and roll back) and reward health
# would pause the run at step 8 (tests/slow/test_reward_health_run.py), which is not what this
# test is about: the rescore must find the onset in a plain log, after the fact.
SETTINGS = [*SHORT, "policies.entropy.enabled=false", "policies.reward_health.enabled=false",
            "pipeline.round_steps=4"]  # fmt: skip


@pytest.fixture(scope="module")
def corrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    workdir = tmp_path_factory.mktemp("rescore")
    config = workdir / "run.toml"
    config.write_text(QUICKSTART.read_text() + FAULT)
    done = rlvr("run", str(config), *SETTINGS, cwd=workdir, timeout=1200)
    assert done.returncode == 0, done.stderr[-4000:]
    return workdir, only_run(workdir / "runs" / "events.db")


def test_the_silent_fault_leaves_no_trace_in_the_log(corrupted) -> None:
    workdir, run_id = corrupted
    rows = list(EventLog(workdir / "runs" / "events.db").read(run_id))
    assert not [r for r in rows if r.type == "FaultInjected"]
    assert "verdict_corruption" not in rows[0].payload
    rewards = {r.event.step: r.event.rewards for r in rows if r.type == "RolloutsSampled"}
    assert any(x for row in rewards[N - 1] for x in row)  # before: some rollouts pass
    assert not any(x for row in rewards[N] for x in row)  # from N: every reward zero


def test_rescore_names_step_n_the_share_and_the_checkpoint_and_its_branch_completes(
    corrupted,
) -> None:
    workdir, run_id = corrupted
    done = rlvr("rescore", run_id, cwd=workdir, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    printed = done.stdout
    print(f"$ rlvr rescore {run_id}\n{printed}{done.stderr}")  # the README's worked example
    assert f"first step whose rewards differ: step {N} (seq " in printed, printed
    assert not re.search(rf"^step [0-{N - 1}] \(seq", printed, re.M)  # nothing before N
    share = re.search(r"from there on ([\d,]+) of ([\d,]+) rewards were mis-scored \(([\d.]+)%\)",
                      printed)  # fmt: skip
    assert share is not None, printed
    wrong, total = (int(share.group(i).replace(",", "")) for i in (1, 2))
    assert 0 < wrong <= total
    record = next(EventLog(workdir / "runs" / "events.db").read(run_id, types=["RunRescored"]))
    assert record.event.to_fail == 0 and record.event.to_pass == wrong  # zeroed: only fail->pass
    assert re.search(r"last retained checkpoint before it: step 4 \(", printed), printed
    command = next(
        line.removeprefix("retrain from there: ")
        for line in printed.splitlines()
        if line.startswith("retrain from there: ")
    )
    words = shlex.split(command)
    assert words[:3] == ["rlvr", "branch", run_id]
    branched = rlvr(*words[1:], cwd=workdir, timeout=1200)  # as typed, `rlvr` itself aside
    assert branched.returncode == 0, branched.stderr[-4000:]
    child = re.search(r"branched (\S+) from", branched.stderr)
    assert child is not None, branched.stderr[-2000:]
    again = rlvr("rescore", child.group(1), cwd=workdir, timeout=900)
    assert again.returncode == 0, again.stderr[-4000:]
    assert "no reward differs from the log" in again.stdout, again.stdout
