"""The code sandbox against an attacker: reward hacks through `rlvr check` as root and as an
unprivileged user, limits on the whole check, nothing left behind, refusal without a sandbox."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import pytest

from stages.verifiers.code_probes import hack_responses

REPO = Path(__file__).resolve().parents[3]
RLVR = [sys.executable, "-m", "orchestrator"]
PROBLEMS = [  # (tests, correct solution): asserts, MBPP's test list, HumanEval's check(candidate)
    ("assert add(1, 2) == 3\nassert add(-1, 1) == 0", "def add(a, b):\n    return a + b"),
    (
        ["assert is_even(4) == True", "assert is_even(7) == False"],
        "def is_even(n):\n    return n % 2 == 0",
    ),
    (
        "def check(candidate):\n    assert candidate('ab') == 'ba'\n    assert candidate('') == ''\n\ncheck(rev)",
        "def rev(s):\n    return s[::-1]",
    ),
]


@pytest.fixture
def tmp_path():
    """A folder uid 65534 can read (pytest's own live under a root-only directory)."""
    path = Path(tempfile.mkdtemp(prefix="rlvr-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


def _hack_file(tmp_path: Path) -> tuple[Path, int]:
    lines = []
    for tests, solution in PROBLEMS:
        text = tests if isinstance(tests, str) else "\n".join(tests)
        for kind, response in hack_responses(text, solution):
            lines.append({"kind": kind, "response": response, "tests": tests})
    lines.append(
        {"kind": "empty_test_set", "response": "def add(a, b):\n    return 0", "tests": ""}
    )
    hacks = len(lines)
    lines += [{"kind": "correct", "response": s, "tests": t} for t, s in PROBLEMS]
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    path.chmod(0o644)
    return path, hacks


def _nobody(home: Path) -> list[str] | None:
    """A command prefix that runs `python -m orchestrator` as uid 65534 (None when impossible)."""
    home.mkdir(exist_ok=True)
    home.chmod(0o777)
    env = [
        "/usr/bin/env",
        f"HOME={home}",
        "PATH=/usr/bin:/bin",
        f"PYTHONPATH={REPO}:{sysconfig.get_paths()['purelib']}",
    ]
    drop = [
        shutil.which("setpriv") or "setpriv",
        "--reuid",
        "65534",
        "--regid",
        "65534",
        "--clear-groups",
        *env,
    ]
    for python in (sys.executable, "/usr/bin/python3"):
        probe = subprocess.run([*drop, python, "-c", "import typer, pydantic"], capture_output=True)
        if probe.returncode == 0:
            return [*drop, python, "-m", "orchestrator"]
    return None


def _check(
    prefix: list[str], path: Path, *extra: str, env: dict | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, "check", "--verifier", "code", *extra, str(path)], capture_output=True,
                          text=True, timeout=600, cwd=path.parent, env=env)  # fmt: skip


def _assert_hacks_fail_and_solutions_pass(
    result: subprocess.CompletedProcess, path: Path, hacks: int
) -> None:
    assert result.returncode == 0, result.stderr[-2000:]
    verdicts = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [json.loads(line)["kind"] for line in path.read_text().splitlines()]
    passed = [k for k, v in zip(kinds[:hacks], verdicts, strict=False) if v["passed"]]
    assert passed == [], passed
    assert all(v["passed"] for v in verdicts[hacks:]), verdicts[hacks:]


def test_reward_hacks_get_no_pass_and_correct_solutions_pass_as_this_user(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    path, hacks = _hack_file(tmp_path)
    assert hacks >= 30
    _assert_hacks_fail_and_solutions_pass(_check(RLVR, path), path, hacks)


@pytest.mark.skipif(os.getuid() != 0, reason="the test above already ran as an unprivileged user")
def test_reward_hacks_get_no_pass_as_an_unprivileged_user(tmp_path):
    prefix = _nobody(tmp_path / "home")
    if prefix is None:
        pytest.skip("no interpreter with the project's dependencies is readable by uid 65534")
    path, hacks = _hack_file(tmp_path)
    _assert_hacks_fail_and_solutions_pass(_check(prefix, path), path, hacks)


def test_without_bwrap_an_unprivileged_user_is_refused_unless_they_opt_out(tmp_path):
    prefix = RLVR if os.getuid() != 0 else _nobody(tmp_path / "home")
    if prefix is None:
        pytest.skip("no interpreter with the project's dependencies is readable by uid 65534")
    empty = tmp_path / "nobin"
    empty.mkdir(mode=0o755)
    prefix = [p.replace("PATH=/usr/bin:/bin", f"PATH={empty}") for p in prefix]
    env = {**os.environ, "PATH": str(empty)}
    path = tmp_path / "answers.jsonl"
    path.write_text(
        json.dumps(
            {"response": "def add(a, b):\n    return a + b", "tests": "assert add(1, 2) == 3"}
        )
        + "\n"
    )
    path.chmod(0o644)
    refused = _check(prefix, path, env=env)
    assert refused.returncode == 2 and refused.stdout == ""
    assert (
        refused.stderr.count("\n") == 1
        and "bwrap" in refused.stderr
        and "--sandbox unisolated" in refused.stderr
    )
    ran = _check(prefix, path, "--sandbox", "unisolated", env=env)
    assert ran.returncode == 0 and json.loads(ran.stdout)["passed"]
    assert "--sandbox unisolated: untrusted code runs without isolation" in ran.stderr


VERIFY_ONE = r"""
import json, sys, time
from stages.verifiers.code_verifier import CodeVerifier
from stages.verifiers.config import CodeVerifierConfig
v = CodeVerifier(CodeVerifierConfig(timeout_s=float(sys.argv[1]), memory_mb=512))
start = time.monotonic()
first = v.verify(sys.stdin.read(), "assert add(1, 2) == 3")
elapsed = time.monotonic() - start
after = v.verify("def add(a, b):\n    return a - b", "assert add(1, 2) == 3")
# VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec, so it would report the RSS of the
# pytest process that spawned us; VmHWM is this process image's own peak.
hwm_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"elapsed": elapsed, "first": first.status, "reason": first.reason, "after": after.passed,
                  "peak_rss_mb": hwm_kb / 1024}))
"""
MARK = "97.4242"  # a sleep duration nothing else uses, to find this check's processes
HOSTILE = {
    "daemon": f"import os\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        os.execv('/usr/bin/sleep', ['sleep', '{MARK}'])\n    os._exit(0)\ndef add(a, b):\n    return 0\n",
    "pipe_holder": f"import os\nif os.fork() == 0:\n    os.execv('/usr/bin/sleep', ['sleep', '{MARK}'])\nimport time\ntime.sleep(60)\n",
    "shm_filler": f"import os\nif os.fork() == 0:\n    os.execv('/usr/bin/sleep', ['sleep', '{MARK}'])\nblock = b'x' * 2**20\nfor path in ('/dev/shm/fill', '/tmp/fill'):\n    try:\n        with open(path, 'wb') as f:\n            for _ in range(4096):\n                f.write(block)\n    except OSError:\n        pass\ndef add(a, b):\n    return 0\n",
    "endless_printer": "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n    sys.stderr.write('y' * 65536)\n",
    "three_children_of_300_mb": "import os, time\nfor _ in range(3):\n    if os.fork() == 0:\n        block = b'x' * (300 * 2**20)\n        time.sleep(120)\ntime.sleep(120)\n",
}


def _left() -> list[str]:
    found = subprocess.run(
        ["pgrep", "-f", f"sleep {MARK}"], capture_output=True, text=True
    ).stdout.split()
    return [
        p
        for p in found
        if Path(f"/proc/{p}/stat").exists()
        and Path(f"/proc/{p}/stat").read_text().split()[2] != "Z"
    ]


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_check_leaves_nothing_returns_in_time_and_the_next_check_is_sound(kind):
    # Touching 900 MB can take longer than 2 s on a VM whose memory is faulted in on first use
    # (seen: 300 MB in 1.2-3 s on a fresh machine), so the memory case gets a timeout it cannot
    # reach first: its verdict must come from the memory limit.
    timeout_s = 60.0 if kind == "three_children_of_300_mb" else 2.0
    result = subprocess.run([sys.executable, "-c", VERIFY_ONE, str(timeout_s)], input=HOSTILE[kind],
                            capture_output=True, text=True, timeout=180, cwd=REPO)  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout)
    assert out["first"] != "ok" and out["after"] is False, out
    # Every hostile program lives 60 s or more unless the watchdog ends it (timeout or memory): a
    # bound well under that proves the kill without failing on a loaded machine.
    assert out["elapsed"] < 30.0, out
    assert out["peak_rss_mb"] < 300, out
    if kind == "three_children_of_300_mb":  # the limit is on the check: 900 MB together is killed
        assert out["reason"] == "killed: over the memory limit", out
    # A killed namespace takes a moment to be torn down: up to a second on a quiet machine, more
    # under a loaded test run (seen: over 1 s with two xdist workers and other work).
    for _ in range(200):
        if not _left():
            break
        time.sleep(0.05)
    assert _left() == []


def test_a_run_config_with_an_unisolated_sandbox_records_it_as_each_stage_starts(tmp_path):
    from orchestrator.config import RunConfig
    from orchestrator.driver.commands import start_run
    from orchestrator.driver.lifecycle import drive
    from store.log import EventLog
    from tests.scenario.fake_stages import FakeStages

    config = RunConfig.model_validate(
        {"log_path": str(tmp_path), "verifier": {"kind": "code", "sandbox": "unisolated"}}
    )
    log = EventLog(tmp_path / "events.db")
    run_id, _ = start_run(log, config)
    drive(log, run_id, config, FakeStages().registry())
    rows = list(log.read(run_id))
    waived = [r for r in rows if r.type == "IsolationWaived"]
    started = [r for r in rows if r.type == "StageStarted"]
    # In the stage's first batch, beside its StageStarted: never appended by a getter mid-step.
    assert [r.seq for r in waived] == [r.seq + 1 for r in started] and len(started) == 7
    assert "unisolated" in waived[0].event.reason and waived[0].event.verifier == "code"


def test_an_exception_inside_a_verifier_is_a_failed_rollout_never_a_pass_nor_an_exclusion():
    from stages.verifiers.registry import GuardedVerifier

    class Broken:
        name = "broken"

        def verify(self, response, reference):
            raise KeyError("forged")

        def verify_batch(self, items):
            raise KeyError("forged")

    (verdict,) = GuardedVerifier(Broken()).verify_batch([("x", "y")])
    assert verdict.status == "verifier_error" and not verdict.passed and verdict.reward == 0.0
    assert not verdict.excluded and "KeyError" in verdict.reason


def test_stage_3_probes_reward_hacks_on_a_sample_of_the_runs_code_tasks_and_none_passes():
    from stages.tasks.calibration import calibrate, hack_candidates
    from stages.tasks.types import Task
    from stages.verifiers.registry import build_verifier

    sample = [
        json.loads(line)
        for line in (REPO / "configs/data/code_sample.jsonl").read_text().splitlines()
    ]
    tasks = [
        Task(task_id=t["task_id"], family="code", prompt=t["prompt"], tests="\n".join(t["tests"]),
             answer=t["solution"], metadata={"solution": t["solution"]})
        for t in sample[:8]
    ]  # fmt: skip
    verifier = build_verifier({"kind": "code"})
    probes = hack_candidates(tasks, seed=0, verifier=verifier)
    assert len({p.task_id for p in probes}) == 5 and all(
        p.known_hack and not p.correct for p in probes
    )
    assert {p.kind for p in probes} >= {
        "reward_hack:always_equal",
        "reward_hack:exfiltrate",
        "reward_hack:escape_daemon",
    }
    report = calibrate(verifier, tasks)
    assert report.accepted_hacks == [] and report.rejected_right == []


PROBE_HOST = r"""
import os, socket
def written(path):
    block, total = b'x' * 2**20, 0
    try:
        with open(path, 'wb') as f:
            for _ in range(64):
                f.write(block)
                f.flush()
                total += len(block)
    except OSError:
        pass
    return total
def seen():
    found = [p for p in ('/root', '/home', '/work', '/etc/passwd', '/var/run/postgresql') if os.path.exists(p)]
    for port in (5432, 22, 80):
        try:
            socket.create_connection(('127.0.0.1', port), timeout=0.5).close()
            found.append(port)
        except OSError:
            pass
    return found + [k for k in os.environ if 'KEY' in k or 'SECRET' in k]
def left_from_before():
    return [p for p in os.listdir('/tmp') + os.listdir('/dev/shm') if p.startswith('marker')]
"""


def test_the_sandbox_sees_no_host_files_network_or_secrets_and_its_tmpfs_are_private_and_capped(
    monkeypatch,
):
    from stages.verifiers.registry import build_verifier

    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    verifier = build_verifier({"kind": "code", "max_file_mb": 8})
    tests = (
        "assert seen() == []\nassert written('/dev/shm/f') <= 8 * 2**20\nassert written('/tmp/f') <= 8 * 2**20\n"
        "assert left_from_before() == []"
    )
    first = verifier.verify(
        PROBE_HOST.replace(
            "def left_from_before():",
            "open('/tmp/marker', 'w').write('x'); open('/dev/shm/marker', 'w').write('x')\ndef _unused():",
        ),
        tests.rsplit("\n", 1)[0],
    )
    assert first.passed, first
    second = verifier.verify(PROBE_HOST, tests)  # nothing the first check wrote is there
    assert second.passed, second


FORK_UNTIL_REFUSED = """
import os, sys, time
made = 0
while made < 2000:
    try:
        pid = os.fork()
    except OSError as e:
        sys.stdout.write(f"refused after {made}: errno {e.errno}\\n")
        sys.stdout.flush()
        os._exit(0)
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    made += 1
"""


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_a_fork_bomb_is_stopped_by_the_kernel_not_only_by_the_watchdog():
    # The watchdog polls every 10 ms; a fork loop makes hundreds of processes in that time (seen:
    # +520 on a 2-core machine, load average in the thousands). RLIMIT_NPROC inside the check's own
    # user namespace refuses the fork instead: at most max_processes children, bwrap's init and the
    # interpreter, whatever the watchdog saw.
    from stages.verifiers.sandbox import Sandbox, SandboxLimits

    limits = SandboxLimits(timeout_s=5.0, memory_mb=256, max_processes=8)
    result = Sandbox(limits).run(FORK_UNTIL_REFUSED, b"")
    assert result.peak_processes <= limits.max_processes + 3, result  # + bwrap, init, interpreter
    refused = result.stdout.decode()
    if refused:  # else the watchdog saw the limit reached first and killed the check
        assert int(refused.split()[2].rstrip(":")) <= limits.max_processes, refused
    else:
        assert result.killed == "processes", result
