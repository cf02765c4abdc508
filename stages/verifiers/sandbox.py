"""Run untrusted Python in a subprocess: temp working directory, environment stripped to a short
whitelist (no API keys), rlimits on memory / processes / file size / CPU, a fresh network namespace
where the OS allows it, and uid 65534 when started as root (so RLIMIT_NPROC binds and the parent's
/proc/PID/environ is unreadable). The whole process group is killed at the wall-clock limit.

Limits of this sandbox: it is not a VM. Code shares the host kernel and filesystem (read-only to
nobody, writable to root when privileges cannot be dropped)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

NOBODY = 65534
CLONE_NEWNET = 0x40000000
_ENV_WHITELIST = ("PATH", "LANG", "LC_ALL", "TZ")


@dataclass(frozen=True)
class SandboxLimits:
    timeout_s: float = 5.0
    memory_mb: int = 512
    max_processes: int = 16
    max_file_mb: int = 8
    isolate_network: bool = True
    drop_privileges: bool = True


@dataclass(frozen=True)
class RunResult:
    returncode: int | None  # None when killed at the time limit
    stdout: str
    stderr: str
    timed_out: bool
    network_isolated: bool
    uid: int


def _unshare_net() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET) failed")


def _processes_of(uid: int) -> int:
    try:
        return sum(
            1 for p in Path("/proc").iterdir() if p.name.isdigit() and p.stat().st_uid == uid
        )
    except OSError:
        return 0


class Sandbox:
    """Probes once what this OS allows, then runs programs under those settings."""

    def __init__(self, limits: SandboxLimits) -> None:
        self.limits = limits
        self._probe_lock = threading.Lock()
        self._probed: tuple[str, bool, bool] | None = None  # (python, isolate_net, drop_uid)

    def _preexec(self, isolate_net: bool, drop_uid: bool, nproc: int | None):  # noqa: ANN202
        limits = self.limits

        def setup() -> None:
            os.setsid()
            if isolate_net:
                _unshare_net()
            if drop_uid:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            mem = limits.memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            size = limits.max_file_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
            cpu = int(limits.timeout_s) + 2
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if nproc is not None:
                resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))

        return setup

    def _try(self, python: str, isolate_net: bool, drop_uid: bool) -> bool:
        try:
            proc = subprocess.run(
                [python, "-I", "-c", "pass"],
                preexec_fn=self._preexec(isolate_net, drop_uid, None),
                env=self._env("/"),
                cwd="/",
                capture_output=True,
                timeout=30,
            )
        except (OSError, subprocess.SubprocessError):
            return False
        return proc.returncode == 0

    def settings(self) -> tuple[str, bool, bool]:
        """(interpreter, network isolated, uid dropped): the strictest combination that works."""
        with self._probe_lock:
            if self._probed is None:
                root = hasattr(os, "getuid") and os.getuid() == 0
                want_drop = self.limits.drop_privileges and root
                # The venv interpreter may live under /root, unreadable to nobody: try system ones too.
                pythons = [sys.executable] + [
                    p for p in ("/usr/bin/python3", shutil.which("python3")) if p
                ]
                net_options = (
                    [True, False]
                    if self.limits.isolate_network and sys.platform == "linux"
                    else [False]
                )
                candidates = [
                    (py, net, drop)
                    for drop in ([True, False] if want_drop else [False])
                    for net in net_options
                    for py in dict.fromkeys(pythons)
                ]
                self._probed = next(
                    (c for c in candidates if self._try(*c)), (sys.executable, False, False)
                )
            return self._probed

    @staticmethod
    def _env(home: str) -> dict[str, str]:
        env = {k: os.environ[k] for k in _ENV_WHITELIST if k in os.environ}
        env.setdefault("PATH", "/usr/bin:/bin")
        env.update(HOME=home, PYTHONDONTWRITEBYTECODE="1", PYTHONIOENCODING="utf-8")
        return env

    def run(self, files: dict[str, str], argv: list[str], stdin: str = "") -> RunResult:
        """Write `files` into a fresh temp dir and run `python argv...` there."""
        python, isolate_net, drop_uid = self.settings()
        workdir = tempfile.mkdtemp(prefix="rlvr-sandbox-")
        try:
            for name, text in files.items():
                Path(workdir, name).write_text(text, encoding="utf-8")
            if drop_uid:
                os.chown(workdir, NOBODY, NOBODY)
            nproc = self.limits.max_processes
            if not drop_uid:  # RLIMIT_NPROC counts every process of the uid, not just ours
                nproc = None if sys.platform != "linux" else _processes_of(os.getuid()) + nproc
            proc = subprocess.Popen(
                [python, "-I", *argv],
                cwd=workdir,
                env=self._env(workdir),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                preexec_fn=self._preexec(isolate_net, drop_uid, nproc),
            )
            timed_out = False
            try:
                out, err = proc.communicate(stdin.encode(), timeout=self.limits.timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                self._kill_group(proc.pid)
                out, err = proc.communicate()
            self._kill_group(proc.pid)  # children left behind by a program that exited
            return RunResult(
                None if timed_out else proc.returncode,
                out.decode("utf-8", "replace"),
                err.decode("utf-8", "replace"),
                timed_out,
                isolate_net,
                NOBODY if drop_uid else os.getuid(),
            )
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    @staticmethod
    def _kill_group(pid: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
