"""The code verifier: the candidate runs in the sandbox; the verdict is computed out here.

The tests never enter the sandbox. `code_tests.plan` splits each assert into the candidate's calls
(their source text: inputs only) and the trusted rest (expected values, comparison). The sandbox
receives the program and the calls on stdin, evaluates each call and writes back its value as
plain tagged JSON (ints, floats, strings, bools, None, lists, tuples, dicts, sets, bytes) to a
reporter process that never runs the program (`code_harness`); its one report line must carry
the run's nonce and be all of stdout. An object with its own `__eq__`, a patched `json`, a frame
written to every fd or a rewritten test file can only change what the candidate claims its
values are, or fail the run, which the trusted side then compares with values the
candidate never saw. The tests are hostile data too: planning and scoring run in a bounded worker
process (`code_scoring`), never in this one. The reward is the fraction of test units passed;
`passed` needs all of them."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from stages.verifiers.code_blocks import CodeBlocksDisagree, extract_code
from stages.verifiers.code_globals import function_global_reads
from stages.verifiers.code_groups import apply_fixes
from stages.verifiers.code_harness import HARNESS, REPORT, REPORTER_MB, job_frames
from stages.verifiers.code_lifetimes import lifetime_unverifiable, observes_lifetimes
from stages.verifiers.code_scoring import TRUSTED_TIMEOUT_S, PlanSummary
from stages.verifiers.code_tests import program_names
from stages.verifiers.code_trusted import Unverifiable
from stages.verifiers.code_values import CandidateError, decode_all
from stages.verifiers.config import CodeVerifierConfig
from stages.verifiers.pool import HardTimeoutPool
from stages.verifiers.sandbox import HASH_SEED, RunResult, Sandbox, SandboxLimits
from stages.verifiers.types import CodeReference, Verdict, fail


class CodeVerifier:
    """Verifier[CodeReference | str]: the reference is the tests (a string works too)."""

    name = "code"

    def __init__(self, config: CodeVerifierConfig | None = None) -> None:
        self.config = config or CodeVerifierConfig()
        self.sandbox = Sandbox(
            SandboxLimits(
                timeout_s=self.config.timeout_s,
                memory_mb=self.config.memory_mb + REPORTER_MB,
                max_processes=self.config.max_processes + 1,  # + the harness's reporter
                max_output_bytes=self.config.max_output_bytes,
                tmpfs_mb=self.config.max_file_mb,
            ),
            mode=self.config.sandbox,
        )
        # The expected values and comparisons are evaluated in a worker process of their own, under
        # a wall-clock and a memory limit (`code_scoring`): the tests are hostile data too.
        # the sandbox's string hash seed: a set of strings iterates out here as in there
        self.trusted = HardTimeoutPool("stages.verifiers.code_scoring:job", workers=1,
                                       env={"PYTHONHASHSEED": HASH_SEED})  # fmt: skip
        self.trusted_timeout_s = TRUSTED_TIMEOUT_S

    def close(self) -> None:
        self.trusted.close()

    def verify(self, response: str, reference: CodeReference | str) -> Verdict:
        return _storable(self._verify(response, reference))

    def _verify(self, response: str, reference: CodeReference | str) -> Verdict:
        tests = reference.tests if isinstance(reference, CodeReference) else reference
        try:
            code = extract_code(response, tests)
        except CodeBlocksDisagree as e:
            return fail("parse_error", str(e))
        names = program_names(code) if code.strip() else frozenset()
        defines = sorted(names or ())
        reads = sorted(function_global_reads(code)) if code.strip() else []  # code_globals
        planned = self._trusted_run(("plan", tests, defines, reads))
        if isinstance(planned, str):
            return fail("parse_error", planned)
        kind, found = planned
        if kind == "unsupported":
            return fail("parse_error", f"unverifiable task: {str(found)[:300]}")
        test_plan: PlanSummary | None = found if kind == "plan" else None
        missing = "" if kind == "plan" else str(found)
        if test_plan is not None and not test_plan.units:
            return fail("parse_error", "unverifiable task: the tests define no checks")
        if not code.strip():
            return fail("parse_error", "no code in the response")
        if names is None:
            return fail("runtime_error", "solution raised SyntaxError: the program does not parse")
        if test_plan is None:
            return fail("failed", missing)
        if not test_plan.calls:
            return fail("parse_error", "unverifiable task: the tests call nothing of the program")
        unverifiable = lifetime_unverifiable(code)  # ids and counts the harness shares (round 21)
        if unverifiable:
            return fail("parse_error", f"unverifiable task: {unverifiable}")
        job = {"solution": code, "imports": test_plan.imports, "calls": len(test_plan.calls),
               "own": test_plan.own, "modules": test_plan.program_modules, "originals": test_plan.originals,
               "keep": test_plan.keep, "take": test_plan.take, "groups": test_plan.groups,
               "objects": test_plan.objects, "raising": test_plan.raising,
               "unplaced": test_plan.unplaced if observes_lifetimes(code) else []}  # fmt: skip
        nonce = secrets.token_hex(16)
        frames = job_frames(job, nonce, test_plan.calls, test_plan.bindings)
        result = self.sandbox.run(HARNESS, frames)
        read = self._reported_values(result, nonce, len(test_plan.calls))
        if isinstance(read, Verdict):
            return read
        report, values, details = read
        job = ("score", tests, defines, reads, report["values"])
        return self._score(test_plan, job, values, details)

    def _reported_values(
        self, result: RunResult, nonce: str, calls: int
    ) -> Verdict | tuple[dict[str, Any], list[Any], dict[str, Any]]:
        """What the sandbox run reported (its report, the decoded values, the run's details), or
        the verdict when it reported none: killed, cut at the output limit, forged or malformed."""
        keep = self.config.max_output_chars
        stdout = result.stdout.decode("utf-8", "replace")
        details: dict[str, Any] = {
            "stderr": result.stderr.decode("utf-8", "replace")[-keep:],
            "isolation": result.isolation,
            "peak_memory_mb": round(result.peak_memory_mb, 1),
        }
        if result.killed == "timeout":
            return fail("timeout", f"program ran past {self.config.timeout_s}s", **details)
        if result.killed is not None:
            return fail("runtime_error", f"killed: over the {result.killed} limit", **details)
        if len(result.stdout) >= self.config.max_output_bytes and stdout.startswith(
            f"{REPORT}{nonce} "
        ):
            # the reporter's own line (the nonce), cut at the limit: the values outgrew the harness
            return fail("parse_error", "unverifiable task: the program's values passed the report's "
                        f"{self.config.max_output_bytes} bytes", **details)  # fmt: skip
        report = _read_report(stdout, nonce)
        if isinstance(report, str):
            return fail("failed", report, **details)
        if report is None or report.get("broken") == "exited":
            return fail("runtime_error", f"program exited (code {result.returncode}) "
                        "before its values were reported", **details)  # fmt: skip
        if "broken" in report:
            return fail("failed", f"the program wrote to the harness's channel: {str(report['broken'])[:200]}", **details)  # fmt: skip
        if "error" in report:
            return fail("runtime_error", _raised(str(report["error"])), **details)
        try:
            report["values"] = apply_fixes(report["values"])
            values = decode_all(report["values"])
            if len(values) != calls:
                raise ValueError(f"{len(values)} values for {calls} calls")
        except (ValueError, TypeError, KeyError, RecursionError, AttributeError) as e:
            return fail("failed", f"malformed values from the program: {str(e)[:200]}", **details)
        return report, values, details

    def _trusted_run(self, job: tuple[Any, ...]) -> tuple[str, Any] | str:
        """One job on the trusted worker (`code_scoring.job`: the tests, the program's names and,
        to score, its values as the sandbox tagged them: plain JSON data); a string says why there
        is no result."""
        try:
            [(status, result)] = self.trusted.run([job], self.trusted_timeout_s)
        except (RecursionError, ValueError, TypeError) as e:  # values too deep or odd to send
            return f"values the program returned cannot be compared: {type(e).__name__}"
        if status == "timeout":
            return f"unverifiable task: the tests' trusted part ran past {self.trusted_timeout_s} s"
        if status == "error":
            return f"unverifiable task: the trusted evaluator failed ({str(result)[:200]})"
        return result

    def _score(self, test_plan: PlanSummary, job: tuple[Any, ...], values: list[Any],
               details: dict[str, Any]) -> Verdict:  # fmt: skip
        scored = self._trusted_run(job)
        if isinstance(scored, str) or scored[0] != "scored":
            why = (
                scored if isinstance(scored, str) else f"unverifiable task: {str(scored[1])[:300]}"
            )
            status = "parse_error" if why.startswith("unverifiable") else "failed"
            return fail(status, why, **details)
        failed = []
        for (name, asserts), k in zip(test_plan.units, scored[1], strict=True):
            if k < 0:
                continue
            used = asserts[k]
            errors = [values[i].message for i in used if isinstance(values[i], CandidateError)]
            got = "".join(f" ({test_plan.calls[i][:60]} returned {_short_repr(values[i])})"
                          for i in used[:1])  # fmt: skip
            failed.append(f"{name}: " + (errors[0] if errors else "assert failed" + got))
        units = len(test_plan.units)
        details["failed_tests"] = failed
        if failed:
            return Verdict(passed=False, reward=(units - len(failed)) / units, status="failed",
                           reason=f"{len(failed)}/{units} tests failed: {failed[0]}", details=details)  # fmt: skip
        return Verdict(passed=True, reward=1.0, status="ok", reason=f"{units}/{units} tests passed",
                       details=details)  # fmt: skip

    def verify_batch(self, items: Sequence[tuple[str, CodeReference | str]]) -> list[Verdict]:
        self.sandbox.command()  # refuse once, before any thread starts, when nothing isolates
        with ThreadPoolExecutor(max_workers=self.config.workers) as pool:
            return list(pool.map(lambda item: self.verify(*item), items))


_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]{1,100})'")


def _raised(error: str) -> str:
    """Why the program failed to load; a module the sandbox's python lacks is named as such: the
    program runs on its standard library alone (`-I -S`: no site-packages, numpy neither)."""
    reason = f"solution raised {error[:300]}"
    missing = _MISSING_MODULE.match(error)
    if missing:
        module = missing.group(1).split(".")[0]
        reason += (
            f" ({module} is not installed for the sandbox's python: candidate programs get its"
            " standard library only)"
        )
    return reason


def _read_report(stdout: str, nonce: str) -> dict[str, Any] | str | None:
    """The harness's one report line (`code_harness`): None when stdout is empty, a string
    saying why when it holds anything else (a line without the run's nonce, a second line)."""
    if not stdout:
        return None
    prefix = f"{REPORT}{nonce} "
    if not stdout.startswith(prefix) or not stdout.endswith("\n") or "\n" in stdout[:-1]:
        return "the report channel held something besides the harness's one report"
    try:
        report = json.loads(stdout[len(prefix) :])
    except (ValueError, RecursionError) as e:
        return f"malformed report: {type(e).__name__}"
    return report if isinstance(report, dict) else "malformed report: not an object"


def _short_repr(value: Any) -> str:
    """At most 60 characters of `value`'s repr; never raises (an int past 4300 digits does)."""
    try:
        return repr(value)[:60]
    except Unverifiable:  # a program's class whose own repr the trusted side cannot give
        return f"<a {type(value).__name__}>"
    except ValueError:
        return f"<{type(value).__name__} too large to print>"


def _clean(value: Any) -> Any:
    """Text from the sandbox as UTF-8 can store it (lone surrogates escaped), at any depth."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    return value


def _storable(verdict: Verdict) -> Verdict:
    return verdict.model_copy(
        update={"reason": _clean(verdict.reason), "details": _clean(verdict.details)}
    )
