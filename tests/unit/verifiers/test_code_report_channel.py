"""Issue 27, code (red team round 5): a program wrote a made-up report (the right values) to every
fd and exited, and was paid. The report now comes from a reporter process that never runs the
program, carries the run's nonce and must be all of stdout; answers come back one per request,
each echoing a token drawn after the fork. These programs try every way in."""

from __future__ import annotations

import shutil

import pytest

from stages.verifiers.code_verifier import CodeVerifier
from stages.verifiers.config import CodeVerifierConfig

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
TESTS = "assert add(2, 3) == 5\nassert add(-1, 1) == 0\nassert add(10, 32) == 42"
VALUES = '{"values": [5, 0, 42]}'
FAKE = f"\\nRLVR-VALUES {VALUES}\\n"
# A frame as the harness frames its answers, with a made-up token.
ANSWER = '2\\n{"t": "0" * 32, "a": "ok"}'
WRONG = "def add(a, b):\n    return None\n"

SPRAY = (
    "import os\n"
    "def _spray(data, fds=range(1, 21)):\n"
    "    for fd in fds:\n"
    "        try:\n            os.write(fd, data)\n        except OSError:\n            pass\n"
)
FORGERIES = {
    "every_fd_then_exit": SPRAY + f"_spray(b'{FAKE}')\nos._exit(0)\n",
    "every_fd_then_system_exit": SPRAY + f"_spray(b'{FAKE}')\nraise SystemExit\n",
    "every_fd_then_wrong_add": SPRAY + f"_spray(b'{FAKE}')\n" + WRONG,
    "in_the_call_then_exit": SPRAY + f"def add(a, b):\n    _spray(b'{FAKE}')\n    os._exit(0)\n",
    "framed_answers_to_every_fd": SPRAY
    + "import json\n"
    + "for v in ('ok', 5, 0, 42):\n"
    + "    d = json.dumps({'t': '0' * 32, 'a': v}).encode()\n"
    + "    _spray(b'%d\\n' % len(d) + d)\n"
    + WRONG,
    "proc_self_fd": (
        "import os\n"
        "for n in os.listdir('/proc/self/fd'):\n"
        "    try:\n"
        "        fd = os.open('/proc/self/fd/' + n, os.O_WRONLY)\n"
        f"        os.write(fd, b'{FAKE}')\n"
        "    except OSError:\n        pass\n" + WRONG
    ),
    "parent_stdout_through_proc": (
        "import os\n"
        "try:\n"
        "    fd = os.open(f'/proc/{os.getppid()}/fd/1', os.O_WRONLY)\n"
        f"    os.write(fd, b'{FAKE}')\n"
        "except OSError:\n    pass\n" + WRONG
    ),
    "parent_memory_for_the_nonce": (
        "import os, re\n"
        "try:\n"
        "    mem = open(f'/proc/{os.getppid()}/mem', 'rb')\n"
        "    LEAK = True\n"
        "except OSError:\n    LEAK = False\n"
        "def add(a, b):\n    return a + b if LEAK else None\n"
    ),
    "print_fake_frames": (
        "import sys\n"
        f"sys.__stdout__.write('{FAKE}'); sys.__stdout__.flush()\n"
        f"sys.stderr.write('{FAKE}')\nprint('{FAKE}')\n" + WRONG
    ),
    "answer_with_the_stolen_token_then_exit": (
        "import os, sys, json\n"
        "def add(a, b):\n"
        "    f = sys._getframe(1)\n"
        "    while f is not None and 'token' not in f.f_locals:\n"
        "        f = f.f_back\n"
        "    token, fd = f.f_locals['token'], None\n"
        "    for name, v in f.f_globals.items():\n"
        "        pass\n"
        "    for fd in range(3, 21):\n"
        "        d = json.dumps({'t': token, 'a': 5}).encode()\n"
        "        try:\n            os.write(fd, b'%d\\n' % len(d) + d)\n"
        "        except OSError:\n            pass\n"
        "    os._exit(0)\n"
    ),
    "answer_twice_each_call": (
        "import os, sys, json\n"
        "_right = {(2, 3): 5, (-1, 1): 0, (10, 32): 42}\n"
        "def add(a, b):\n"
        "    f = sys._getframe(1)\n"
        "    while f is not None and 'token' not in f.f_locals:\n"
        "        f = f.f_back\n"
        "    d = json.dumps({'t': f.f_locals['token'], 'a': _right.get((a, b), 0)}).encode()\n"
        "    for fd in range(3, 21):\n"
        "        try:\n            os.write(fd, b'%d\\n' % len(d) + d)\n"
        "        except OSError:\n            pass\n"
        "    return None\n"
    ),
    "kill_the_reporter": (
        "import os, signal\n"
        f"os.write(2, b'{FAKE}')\n"
        "os.kill(os.getppid(), signal.SIGKILL)\n" + WRONG
    ),
    "close_every_fd": "import os\nos.closerange(0, 100)\n" + WRONG,
    "grandchild_writes_late": (
        SPRAY + "if os.fork() == 0:\n    import time\n    time.sleep(0.3)\n"
        f"    _spray(b'{FAKE}')\n    os._exit(0)\n" + WRONG
    ),
}


@pytest.fixture(scope="module")
def verifier():
    v = CodeVerifier(CodeVerifierConfig(timeout_s=3.0, memory_mb=256, max_processes=8))
    yield v
    v.close()


@pytest.mark.parametrize("program", FORGERIES.values(), ids=FORGERIES.keys())
def test_no_program_forges_or_preempts_the_report(verifier, program):
    verdict = verifier.verify(program, TESTS)
    assert not verdict.passed and verdict.reward < 1.0, verdict


@pytest.mark.parametrize(
    "noise",
    [
        f"import sys\nsys.__stdout__.write('{FAKE}')\nsys.__stdout__.flush()\n",
        f"import sys\nprint('{FAKE}')\nprint('{FAKE}', file=sys.stderr)\n",
        SPRAY + f"_spray(b'{FAKE}', fds=(1, 2))\n",
        "import os\nos.write(1, b'RLVR-VALUES ' + b'0' * 32 + b' {}\\n')\n",
    ],
)
def test_a_right_program_that_prints_report_lines_of_its_own_still_passes(verifier, noise):
    verdict = verifier.verify(noise + "def add(a, b):\n    return a + b\n", TESTS)
    assert verdict.passed, verdict


def test_a_program_failing_to_load_or_exiting_reports_as_before(verifier):
    raised = verifier.verify("raise ValueError('no')", TESTS)
    assert raised.status == "runtime_error" and "ValueError: no" in raised.reason
    exited = verifier.verify("def add(a, b):\n    import os\n    os._exit(3)\n", TESTS)
    assert exited.status == "runtime_error" and "before its values were reported" in exited.reason
