"""A small process pool with a hard per-job time limit. A thread cannot stop a hung sympy call and
`concurrent.futures` cannot kill one stuck worker, so each worker is its own process with its own
pipes: a job past its deadline gets its worker killed and replaced, and comes back as a timeout.

Workers are started as `python -m stages.verifiers.pool` rather than through multiprocessing, so the
caller's `__main__` is never re-imported and no multi-threaded parent is forked."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

JobResult = tuple[str, Any]  # ("ok", value) | ("timeout", None) | ("error", message)
_REPO_ROOT = str(Path(__file__).resolve().parents[2])
_START_TIMEOUT_S = 120.0


class _Worker:
    def __init__(self, target: str, env: dict[str, str] | None = None) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([_REPO_ROOT, os.environ.get("PYTHONPATH", "")]),
            **(env or {}),
        }
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "stages.verifiers.pool",
                str(to_child_r),
                str(from_child_w),
                target,
            ],
            pass_fds=(to_child_r, from_child_w),
            env=env,
            stdin=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self.send_conn = Connection(to_child_w, readable=False)
        self.recv_conn = Connection(from_child_r, writable=False)
        # Wait for the import to finish so a job's deadline never includes start-up time.
        if not self.recv_conn.poll(_START_TIMEOUT_S) or self.recv_conn.recv() != ("ready", None):
            self.kill()
            raise RuntimeError(f"worker for {target} did not start")

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.send_conn.close()
        self.recv_conn.close()


class HardTimeoutPool:
    """Runs `target(*args)` jobs (target = "module:function") on `workers` processes."""

    def __init__(self, target: str, workers: int = 2, env: dict[str, str] | None = None) -> None:
        self.target = target
        self.env = env  # set in each worker's environment (the code verifier's hash seed)
        self.size = workers
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        self.restarts = 0

    def _replace(self, index: int) -> None:
        self._workers[index].kill()
        self.restarts += 1
        self._workers[index] = _Worker(self.target, self.env)

    def run(self, jobs: Sequence[tuple[Any, ...]], timeout_s: float) -> list[JobResult]:
        """Run every job; each gets at most `timeout_s` seconds of wall clock once started."""
        results: list[JobResult | None] = [None] * len(jobs)
        with self._lock:
            while len(self._workers) < min(self.size, len(jobs)):
                self._workers.append(_Worker(self.target, self.env))
            pending = deque(enumerate(jobs))
            busy: dict[int, tuple[int, float]] = {}  # worker index -> (job index, deadline)
            while pending or busy:
                for w in range(len(self._workers)):
                    if w not in busy and pending:
                        job_index, args = pending.popleft()
                        try:
                            self._workers[w].send_conn.send((job_index, args))
                        except OSError:
                            self._replace(w)
                            self._workers[w].send_conn.send((job_index, args))
                        busy[w] = (job_index, time.monotonic() + timeout_s)
                next_deadline = min(deadline for _, deadline in busy.values())
                conns = {self._workers[w].recv_conn: w for w in busy}
                ready = wait(list(conns), timeout=max(0.0, next_deadline - time.monotonic()))
                for conn in ready:
                    w = conns[conn]  # type: ignore[index]
                    job_index, _ = busy.pop(w)
                    try:
                        got_id, result = conn.recv()  # type: ignore[union-attr]
                        results[got_id] = result
                    except (EOFError, OSError):  # the worker died (e.g. out of memory)
                        results[job_index] = ("error", "worker process died")
                        self._replace(w)
                now = time.monotonic()
                for w, (job_index, deadline) in list(busy.items()):
                    if now >= deadline:
                        results[job_index] = ("timeout", None)
                        del busy[w]
                        self._replace(w)
        return [r if r is not None else ("error", "lost") for r in results]

    def close(self) -> None:
        with self._lock:
            for worker in self._workers:
                worker.kill()
            self._workers = []

    def __del__(self) -> None:
        for worker in getattr(self, "_workers", []):
            worker.proc.kill()


def _serve(recv_fd: int, send_fd: int, target: str) -> None:
    module_name, _, func_name = target.partition(":")
    func = getattr(importlib.import_module(module_name), func_name)
    recv_conn, send_conn = Connection(recv_fd, writable=False), Connection(send_fd, readable=False)
    send_conn.send(("ready", None))
    while True:
        try:
            job_id, args = recv_conn.recv()
        except EOFError:  # the parent went away
            return
        try:
            send_conn.send((job_id, ("ok", func(*args))))
        except Exception as e:  # a job's failure is data; the worker lives on
            send_conn.send((job_id, ("error", f"{type(e).__name__}: {e}"[:300])))


if __name__ == "__main__":
    _serve(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
