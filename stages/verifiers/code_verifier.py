"""The code verifier: run the response's program and the task's tests in the sandbox.

Tests are bare asserts (one unit: the whole file) and/or pytest-style `test_*` functions (each a
unit). The reward is the fraction of units passed; `passed` needs all of them. The harness reads a
random nonce from stdin before any untrusted code runs and prints it with the result, so plain
prints from the program cannot forge a pass (a program that inspects the harness's frames could:
this is a sandbox against accidents and casual reward hacking, not a proof)."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from stages.verifiers.config import CodeVerifierConfig
from stages.verifiers.sandbox import Sandbox, SandboxLimits
from stages.verifiers.types import CodeReference, Verdict, fail

_FENCE = re.compile(r"```(?:python|py|python3)?[ \t]*\n(.*?)```", re.DOTALL)

HARNESS = r"""
import json, sys, traceback
def _main():
    nonce = sys.stdin.readline().strip()
    sys.stdin = open("/dev/null")
    import socket
    def _no_network(*args, **kwargs):
        raise OSError("network disabled in the verifier sandbox")
    socket.socket = socket.create_connection = _no_network
    sys.path.insert(0, ".")
    out = sys.__stdout__
    namespace = {"__name__": "solution"}
    def report(result):
        out.write("\n" + nonce + json.dumps(result) + "\n")
        out.flush()
    try:
        exec(compile(open("solution.py").read(), "solution.py", "exec"), namespace)
    except BaseException as e:
        report({"stage": "solution", "error": type(e).__name__ + ": " + str(e)[:300]})
        return
    namespace["__name__"] = "tests"
    before = set(namespace)
    failed = []
    try:
        exec(compile(open("tests.py").read(), "tests.py", "exec"), namespace)
    except BaseException as e:
        report({"stage": "tests", "units": 1, "failed": ["<module>: " + type(e).__name__ + ": " + str(e)[:200]]})
        return
    tests = [k for k in namespace if k not in before and k.startswith("test") and callable(namespace[k])]
    for name in tests:
        try:
            namespace[name]()
        except BaseException as e:
            failed.append(name + ": " + type(e).__name__ + ": " + str(e)[:200])
    # With test functions each is a unit; otherwise the module's bare asserts are the one unit.
    report({"stage": "done", "units": len(tests) or 1, "failed": failed})
_main()
"""


def extract_code(response: str) -> str:
    """The last fenced Python block, or the whole response when it has none."""
    blocks = _FENCE.findall(response)
    return blocks[-1] if blocks else response


class CodeVerifier:
    """Verifier[CodeReference | str]: the reference is the tests (a string works too)."""

    name = "code"

    def __init__(self, config: CodeVerifierConfig | None = None) -> None:
        self.config = config or CodeVerifierConfig()
        self.sandbox = Sandbox(
            SandboxLimits(
                timeout_s=self.config.timeout_s,
                memory_mb=self.config.memory_mb,
                max_processes=self.config.max_processes,
                max_file_mb=self.config.max_file_mb,
                isolate_network=self.config.isolate_network,
                drop_privileges=self.config.drop_privileges,
            )
        )

    def verify(self, response: str, reference: CodeReference | str) -> Verdict:
        tests = reference.tests if isinstance(reference, CodeReference) else reference
        code = extract_code(response)
        if not code.strip():
            return fail("parse_error", "no code in the response")
        nonce = secrets.token_hex(16)
        result = self.sandbox.run(
            {"solution.py": code, "tests.py": tests, "_harness.py": HARNESS},
            ["_harness.py"],
            stdin=nonce + "\n",
        )
        keep = self.config.max_output_chars
        details = {
            "stderr": result.stderr[-keep:],
            "network_isolated": result.network_isolated,
            "sandbox_uid": result.uid,
        }
        if result.timed_out:
            return fail("timeout", f"program ran past {self.config.timeout_s}s", **details)
        report_line = next(
            (line for line in reversed(result.stdout.splitlines()) if line.startswith(nonce)), None
        )
        details["stdout"] = result.stdout.replace(nonce, "<nonce>")[-keep:]
        if report_line is None:
            return fail(
                "runtime_error",
                f"program exited (code {result.returncode}) before the tests finished",
                **details,
            )
        report = json.loads(report_line[len(nonce) :])
        if report["stage"] == "solution":
            return fail("runtime_error", f"solution raised {report['error']}", **details)
        units, failed = report["units"], report["failed"]
        details["failed_tests"] = failed
        if not units:
            return fail("parse_error", "the tests define no checks", **details)
        reward = (units - len(failed)) / units
        if failed:
            return Verdict(
                passed=False,
                reward=reward,
                status="failed",
                reason=f"{len(failed)}/{units} tests failed: {failed[0]}",
                details=details,
            )
        return Verdict(
            passed=True,
            reward=1.0,
            status="ok",
            reason=f"{units}/{units} tests passed",
            details=details,
        )

    def verify_batch(self, items: Sequence[tuple[str, CodeReference | str]]) -> list[Verdict]:
        with ThreadPoolExecutor(max_workers=self.config.workers) as pool:
            return list(pool.map(lambda item: self.verify(*item), items))
