"""The code verifier: the candidate runs in the sandbox; the verdict is computed out here.

The tests never enter the sandbox. `code_tests.plan` splits each assert into the candidate's calls
(their source text: inputs only) and the trusted rest (expected values, comparison). The sandbox
receives the program and the calls on stdin, evaluates each call and writes back its value as
plain tagged JSON (ints, floats, strings, bools, None, lists, tuples, dicts, sets, bytes): an object
with its own `__eq__`, a patched `json`, a forged report or a rewritten test file can only change
what the candidate claims its values are, which the trusted side then compares with values the
candidate never saw. The tests are hostile data too: planning and scoring run in a bounded worker
process (`code_scoring`), never in this one. The reward is the fraction of test units passed;
`passed` needs all of them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from stages.verifiers.code_blocks import CodeBlocksDisagree, extract_code
from stages.verifiers.code_scoring import TRUSTED_TIMEOUT_S, PlanSummary
from stages.verifiers.code_tests import program_names
from stages.verifiers.code_values import CandidateError, decode
from stages.verifiers.config import CodeVerifierConfig
from stages.verifiers.pool import HardTimeoutPool
from stages.verifiers.sandbox import Sandbox, SandboxLimits
from stages.verifiers.types import CodeReference, Verdict, fail

_REPORT = "RLVR-VALUES "

# Runs inside the sandbox. Reads its whole job before any candidate code runs; the report goes to
# a private copy of stdout, the candidate's own prints to stderr. The job holds the program, the
# tests' imports and the calls (inputs only): no expected value, no comparison.
HARNESS = r"""
import json, os, sys
def _main():
    # The job comes in length-prefixed frames read only when needed: the program, imports and
    # names first; each call (with the inputs it is the first to name) just before it runs, so
    # later calls' inputs are still in the pipe, not in memory the program could walk.
    _read, _int, _eval, _compile = os.read, int, eval, compile
    def frame(fd):
        size = b""
        while not size.endswith(b"\n"):
            byte = _read(fd, 1)
            if not byte:
                raise EOFError("the job ended early")
            size += byte
        left, chunks = _int(size), []
        while left > 0:
            chunk = _read(fd, min(left, 65536))
            if not chunk:
                raise EOFError("the job ended early")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks).decode("utf-8")
    job = json.loads(frame(0))
    feed = os.dup(0)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    sys.stdin = open(os.devnull)
    report_fd = os.dup(1)
    os.dup2(2, 1)
    _type, _repr, _str, _hex, _hasattr = type, repr, str, hex, hasattr
    _callable, _getattr, _isinstance = callable, getattr, isinstance
    def enc(v, depth=0):
        t = _type(v)
        if depth > 50:
            raise ValueError("value nested too deeply")
        if v is None or t is bool or t is str:
            return v
        if t is int:
            return v if -(1 << 53) < v < (1 << 53) else {"i": _hex(v)}
        if t is float:
            return {"f": _repr(v)}
        if t is complex:
            return {"c": [_repr(v.real), _repr(v.imag)]}
        if t is bytes or t is bytearray:
            return {"b" if t is bytes else "ba": v.hex()}
        if t in (list, tuple, set, frozenset):
            tag = {list: "l", tuple: "t", set: "s", frozenset: "fs"}[t]
            return {tag: [enc(x, depth + 1) for x in v]}
        if t is dict:
            return {"d": [[enc(k, depth + 1), enc(x, depth + 1)] for k, x in v.items()]}
        if t in views:
            return {views[t]: [enc(x, depth + 1) for x in v]}
        kind = (_getattr(t, "__module__", ""), t.__name__)
        if kind == ("collections", "deque"):  # a deque is not equal to a list in Python
            return {"dq": [enc(x, depth + 1) for x in v]}
        for base in (dict, list, tuple, set, frozenset, str, int, float):  # Counter, namedtuple
            if _isinstance(v, base) and t is not base:
                return enc(base(v.items()) if base is dict else base(v), depth + 1)
        if t is range:
            return {"r": [_hex(v.start), _hex(v.stop), _hex(v.step)]}
        if kind == ("fractions", "Fraction"):
            return {"fr": [_hex(v.numerator), _hex(v.denominator)]}
        if kind == ("decimal", "Decimal"):
            return {"dec": _str(v)}
        if kind[0] == "numpy":
            if t.__name__ == "ndarray":
                return {"nd": [_str(v.dtype), enc(v.tolist(), depth + 1)]}
            return {"ns": [_str(_getattr(v, "dtype", "")), enc(v.item(), depth + 1)]}
        if _callable(v):  # a program function or class named in the tests (callable(f))
            return {"fn": _str(_getattr(v, "__name__", "?"))[:100]}
        if _hasattr(v, "__next__"):  # a generator or iterator: its first values
            items = []
            for x in v:
                if len(items) == 10000:
                    return {"it": items, "more": True}
                items.append(enc(x, depth + 1))
            return {"it": items, "more": False}
        raise _Unsupported(t.__name__)
    class _Unsupported(Exception):  # a value of the program's own class: no plain form
        pass
    views = {type({}.keys()): "dk", type({}.values()): "dv", type({}.items()): "di"}
    def report(obj):
        os.write(report_fd, ("\n" + "RLVR-VALUES " + json.dumps(obj) + "\n").encode())
    import builtins, types
    literal_names = {"__builtins__": {}, "set": set, "frozenset": frozenset}
    originals = dict(vars(builtins))  # before the program can rebind any
    module = types.ModuleType("solution")  # a real module: dataclasses and pickle look it up
    sys.modules["solution"] = module
    ns = module.__dict__
    try:
        exec(compile(job["solution"], "solution.py", "exec"), ns)
    except BaseException as e:
        report({"error": _type(e).__name__ + ": " + _str(e)[:300]})
        return
    for line in job["imports"]:
        try:  # a module missing here fails only the calls that use it
            exec(line, ns)
        except BaseException:
            pass
    for name in job["own"]:  # a builtin name the tests call as the program's: never the builtin
        if name not in ns:
            def missing(*args, _name=name, **kwargs):
                raise NameError("the program does not define " + _name)
            ns[name] = missing
    for name in job["originals"]:
        ns["__rlvr_" + name + "__"] = originals[name]
    for alias in job["modules"]:
        ns[alias] = module
    # Inputs the program receives as objects (and may change, as in Python) live here, never in
    # the program's globals: a call sees only those it is passed, by its own local names.
    # Frames are Python literals we wrote, read with the builtins as they were (never json or ast,
    # which the program may have patched to watch what comes in).
    inputs = {}
    values = []
    for _ in range(job["calls"]):
        try:
            call, binds = _eval(_compile(frame(feed), "<frame>", "eval"), {"__builtins__": {}})
        except BaseException as e:
            report({"error": "the job could not be read: " + _type(e).__name__})
            return
        try:
            for name, text in binds:
                inputs[name] = _eval(_compile(text, "<input>", "eval"), literal_names)
            code = _compile(call, "<call>", "eval")
            local = {n: inputs[n] for n in code.co_names if n in inputs}
            values.append(enc(_eval(code, ns, local)))
        except _Unsupported as e:
            values.append({"u": _str(e)[:100]})
        except BaseException as e:
            values.append({"e": _type(e).__name__ + ": " + _str(e)[:200]})
    report({"values": values})
_main()
"""


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
                max_output_bytes=self.config.max_output_bytes,
                tmpfs_mb=self.config.max_file_mb,
            ),
            mode=self.config.sandbox,
        )
        # The expected values and comparisons are evaluated in a worker process of their own, under
        # a wall-clock and a memory limit (`code_scoring`): the tests are hostile data too.
        self.trusted = HardTimeoutPool("stages.verifiers.code_scoring:job", workers=1)
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
        planned = self._trusted_run(("plan", tests, defines))
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
        job = {"solution": code, "imports": test_plan.imports, "calls": len(test_plan.calls),
               "own": test_plan.own, "modules": test_plan.program_modules, "originals": test_plan.originals}  # fmt: skip
        result = self.sandbox.run(HARNESS, job_frames(job, test_plan.calls, test_plan.bindings))
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
        line = next((x for x in reversed(stdout.splitlines()) if x.startswith(_REPORT)), None)
        if line is None:
            return fail("runtime_error", f"program exited (code {result.returncode}) "
                        "before its values were reported", **details)  # fmt: skip
        try:
            report = json.loads(line[len(_REPORT) :])
            if "error" in report:
                return fail(
                    "runtime_error", f"solution raised {str(report['error'])[:300]}", **details
                )
            values = [decode(v) for v in report["values"]]
            if len(values) != len(test_plan.calls):
                raise ValueError(f"{len(values)} values for {len(test_plan.calls)} calls")
        except (ValueError, TypeError, KeyError, RecursionError, AttributeError) as e:
            return fail("failed", f"malformed values from the program: {str(e)[:200]}", **details)
        job = ("score", tests, defines, report["values"])
        return self._score(test_plan, job, values, details)

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


def _frame(text: str) -> bytes:
    data = text.encode("utf-8", "backslashreplace")
    return b"%d\n" % len(data) + data


def job_frames(header: dict[str, Any], calls: list[str], bindings: list[list[str]]) -> bytes:
    """The sandbox's stdin: the header as JSON, then per call `repr((call, [[name, literal]]))`
    holding the shared inputs that call is the first to name (a later read of one is a call too)."""
    pending = dict(bindings)
    frames = [_frame(json.dumps(header))]
    for call in calls:
        names = compile(call, "<call>", "eval").co_names
        binds = [[n, pending.pop(n)] for n in names if n in pending]
        frames.append(_frame(repr((call, binds))))
    return b"".join(frames)


def _short_repr(value: Any) -> str:
    """At most 60 characters of `value`'s repr; never raises (an int past 4300 digits does)."""
    try:
        return repr(value)[:60]
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
