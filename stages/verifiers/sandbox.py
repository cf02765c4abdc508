"""Run an untrusted program under bubblewrap (`bwrap`), with limits on the whole check.

Isolation comes from bubblewrap (Debian package `bubblewrap`): new user, pid, network, ipc, uts and
mount namespaces; only /usr (read-only), a fresh /proc of the check's own pid namespace, a minimal
/dev, and size-capped private tmpfs /tmp and /dev/shm. Started as root, bwrap itself runs as uid
65534. Nothing else of the host is visible: no home, no run directory, no parent environment.

Limits that hold for the check as a whole, not per process, enforced by this (trusted) process:
- wall time: the pid namespace's init is killed at the deadline, which kills every process in it
  (daemons and pipe-holders included); the read loop never waits past timeout + 1 s;
- memory: a watchdog sums the resident memory of every process of the check (walked from /proc)
  every few milliseconds and kills the check past `memory_mb` (RLIMIT_AS per process stays as a
  backstop between two polls); it needs no root and no cgroup delegation;
- processes: the same walk counts them, and RLIMIT_NPROC, set inside the check's user namespace,
  stops a fork bomb between two polls;
- output: at most `max_output_bytes` of stdout and of stderr are kept; the rest is read and dropped.

`mode="unisolated"` runs the program as a plain subprocess with the same limits and none of the
namespaces: for machines without bubblewrap, only when a person asked for it."""

from __future__ import annotations

import contextlib
import os
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from stages.verifiers.types import VerifierError

NOBODY = 65534
SandboxMode = Literal["isolated", "unisolated"]
_POLL_S = 0.01
# One string hash seed for every sandboxed program and the code verifier's trusted worker, so a set
# of strings iterates in both as in one Python process (red team round 18). `-I` would ignore it:
# its other parts stay (-s no user site, -P no script directory on sys.path; the environment is
# cleared and written here).
HASH_SEED = "0"
_FLAGS = ("-s", "-P", "-S")
_GRACE_S = 0.8  # after a kill, how long to drain pipes (kept under the promised timeout + 1 s)
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class SandboxUnavailable(VerifierError):
    """No isolation tool works here and the user did not opt out of isolation."""


@dataclass(frozen=True)
class SandboxLimits:
    timeout_s: float = 5.0
    memory_mb: int = 512
    max_processes: int = 16
    max_output_bytes: int = 1 << 20
    tmpfs_mb: int = 16


@dataclass(frozen=True)
class RunResult:
    returncode: int | None  # None when the check was killed
    stdout: bytes
    stderr: bytes
    killed: str | None  # "timeout" | "memory" | "processes" | None
    peak_memory_mb: float
    peak_processes: int  # the most processes of the check one watchdog poll saw (bwrap's included)
    isolation: str  # "bwrap" | "unisolated"


def refusal(reason: str) -> str:
    return (
        f"code checks need an isolation tool and {reason}; install bubblewrap "
        "(apt-get install bubblewrap), or accept running untrusted code unisolated with "
        '--sandbox unisolated (rlvr check) or verifier.sandbox = "unisolated" (run config)'
    )


def _descendants(root: int) -> list[int]:
    """`root` and every process below it, from /proc/PID/task/TID/children."""
    seen, stack = [], [root]
    while stack:
        pid = stack.pop()
        seen.append(pid)
        with contextlib.suppress(OSError):
            for tid in os.listdir(f"/proc/{pid}/task"):
                with contextlib.suppress(OSError):
                    stack += [
                        int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()
                    ]
    return seen


def _rss_bytes(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


class Sandbox:
    """Probes once what works here (refusing when nothing isolates), then runs programs."""

    def __init__(self, limits: SandboxLimits, mode: SandboxMode = "isolated") -> None:
        self.limits = limits
        self.mode = mode
        self._lock = threading.Lock()
        self._argv: list[str] | None = None

    # -- set-up -------------------------------------------------------------------------------
    def _bwrap_argv(self, bwrap: str, python: str) -> list[str]:
        tmpfs = str(self.limits.tmpfs_mb * 1024 * 1024)
        argv = [bwrap, "--unshare-all", "--die-with-parent", "--new-session",
                "--ro-bind", "/usr", "/usr"]  # fmt: skip
        for link in ("bin", "lib", "lib64", "sbin"):
            target = Path("/", link)
            if target.is_symlink():
                argv += ["--symlink", os.readlink(target), f"/{link}"]
            elif target.is_dir():
                argv += ["--ro-bind", str(target), f"/{link}"]
        prefix = str(Path(python).resolve().parents[1])
        if not prefix.startswith("/usr"):  # an interpreter outside /usr (pyenv, conda): bind it
            argv += ["--ro-bind", prefix, prefix]
        argv += ["--proc", "/proc", "--dev", "/dev", "--size", tmpfs, "--tmpfs", "/tmp",
                 "--size", tmpfs, "--tmpfs", "/dev/shm", "--chdir", "/tmp", "--clearenv",
                 "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp",
                 "--setenv", "LANG", "C.UTF-8", "--setenv", "PYTHONIOENCODING", "utf-8",
                 "--setenv", "PYTHONHASHSEED", HASH_SEED, python, *_FLAGS]  # fmt: skip
        return argv

    def command(self) -> list[str]:
        """The argv prefix a program is appended to; SandboxUnavailable when none works."""
        with self._lock:
            if self._argv is None:
                self._argv = self._probe()
            return self._argv

    def _probe(self) -> list[str]:
        pythons = list(
            dict.fromkeys(p for p in ("/usr/bin/python3", _base_python()) if Path(p).exists())
        )
        if self.mode == "unisolated":  # as root it still runs as nobody, who needs /usr's python
            return [pythons[0] if os.getuid() == 0 else _base_python(), *_FLAGS]
        if sys.platform != "linux":
            raise SandboxUnavailable(refusal(f"there is none for {sys.platform}"))
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise SandboxUnavailable(refusal("bwrap (bubblewrap) is not on PATH"))
        error = ""
        for python in pythons:
            argv = self._bwrap_argv(bwrap, python)
            try:
                proc = subprocess.run([*argv, "-c", "pass"], capture_output=True, timeout=30,
                                      preexec_fn=self._preexec(), stdin=subprocess.DEVNULL)  # fmt: skip
            except (OSError, subprocess.SubprocessError) as e:
                error = str(e)
                continue
            if proc.returncode == 0:
                return argv
            error = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["?"]
            error = error[0]
        raise SandboxUnavailable(refusal(f"bwrap cannot start a sandbox here ({error})"))

    def _preexec(self):  # noqa: ANN202
        limits, drop = self.limits, os.getuid() == 0

        def setup() -> None:
            os.setsid()  # one group to kill when unisolated; bwrap adds its own session
            mem = max(limits.memory_mb, 64) * 1024 * 1024
            with contextlib.suppress(ValueError, OSError):  # macOS refuses RLIMIT_AS
                resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            cpu = int(limits.timeout_s) + 1
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            size = limits.tmpfs_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
            if drop:  # bwrap then builds an unprivileged user namespace as nobody
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)

        return setup

    # -- running ------------------------------------------------------------------------------
    def run(self, program: str, stdin: bytes) -> RunResult:
        """Run `python -c program` with `stdin`; every process of it is gone when this returns."""
        limits = self.limits
        if self.mode == "isolated":
            program = _nproc_limited(program, limits.max_processes + 2)
        argv = [*self.command(), "-c", program]
        proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=self._preexec(), cwd="/tmp" if self.mode == "isolated" else _scratch(),
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8",
                 "PYTHONHASHSEED": HASH_SEED},
        )  # fmt: skip
        deadline = time.monotonic() + limits.timeout_s
        killed: str | None = None
        peak = most = 0
        out, err = bytearray(), bytearray()
        sel = selectors.DefaultSelector()
        for stream, buf in ((proc.stdout, out), (proc.stderr, err)):
            os.set_blocking(stream.fileno(), False)
            sel.register(stream, selectors.EVENT_READ, buf)
        writer = threading.Thread(target=_feed, args=(proc, stdin), daemon=True)
        writer.start()
        hard_stop = deadline + _GRACE_S
        try:
            while sel.get_map():
                now = time.monotonic()
                if now >= hard_stop:
                    break  # pipes still open past the grace period: stop reading
                for key, _ in sel.select(timeout=_POLL_S):
                    _drain(key, sel, limits.max_output_bytes)
                if killed is None:
                    pids = _descendants(proc.pid)
                    rss = sum(_rss_bytes(p) for p in pids)
                    peak, most = max(peak, rss), max(most, len(pids))
                    if time.monotonic() >= deadline:
                        killed = "timeout"
                    elif rss > limits.memory_mb * 1024 * 1024:
                        killed = "memory"
                    elif len(pids) > limits.max_processes + 2:  # + bwrap and its namespace init
                        killed = "processes"
                    if killed is not None:
                        self._kill(proc, pids)
                        hard_stop = min(hard_stop, time.monotonic() + _GRACE_S)
        finally:
            sel.close()
            for stream in (proc.stdout, proc.stderr, proc.stdin):
                with contextlib.suppress(OSError):
                    stream.close()
            if proc.poll() is None or self.mode == "unisolated":
                self._kill(proc, _descendants(proc.pid))
            proc.wait()
        return RunResult(
            None if killed else proc.returncode, bytes(out), bytes(err), killed,
            peak / 2**20, most, "bwrap" if self.mode == "isolated" else "unisolated",
        )  # fmt: skip

    def _kill(self, proc: subprocess.Popen, pids: list[int]) -> None:
        # The namespace's init (bwrap's child) dying takes every process of the namespace with it.
        # bwrap itself (pids[0]) is left to reap it: killed first, its child would become an
        # orphan that a container's init may never reap.
        for pid in reversed(pids[1:] if self.mode == "isolated" else pids):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if self.mode == "unisolated":
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
        try:
            proc.wait(timeout=_GRACE_S)
        except subprocess.TimeoutExpired:
            proc.kill()


def _nproc_limited(program: str, processes: int) -> str:
    """`program` with RLIMIT_NPROC set first, inside the check's own user namespace.

    The watchdog counts processes every few milliseconds, and a fork bomb makes hundreds in that
    time (seen: +520 between two polls). Set before bwrap, the limit would count every process of
    uid 65534 on the host, so checks running side by side would starve each other; set inside, the
    kernel counts per user namespace, so it binds this check alone (bwrap's init and this
    interpreter are the + 2 the caller adds)."""
    return (
        "import resource as _r\n"
        f"_r.setrlimit(_r.RLIMIT_NPROC, ({processes}, {processes}))\n"
        "del _r\n" + program
    )


def _feed(proc: subprocess.Popen, data: bytes) -> None:
    with contextlib.suppress(OSError, ValueError):
        proc.stdin.write(data)
        proc.stdin.close()


def _drain(key: selectors.SelectorKey, sel: selectors.BaseSelector, cap: int) -> None:
    buf: bytearray = key.data
    for _ in range(16):  # bounded, so an endless printer cannot hold the loop past the deadline
        try:
            chunk = os.read(key.fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            sel.unregister(key.fileobj)
            return
        if len(buf) < cap:
            buf += chunk[: cap - len(buf)]


def _base_python() -> str:
    """The interpreter behind this one (a venv's python lives under a path nobody can read)."""
    base = Path(sys.base_prefix, "bin", f"python{sys.version_info[0]}.{sys.version_info[1]}")
    return str(base) if base.exists() else sys.executable


def _scratch() -> str:
    return "/tmp" if Path("/tmp").is_dir() else os.getcwd()
