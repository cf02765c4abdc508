"""The math verifier: extract the final answer, parse it with the whitelist grammar, decide in pure
Python when the comparison is numeric, and send only symbolic comparisons to worker processes that
are killed at `timeout_s`. Reward is 1.0 for a pass, 0.0 otherwise."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stages.verifiers.config import MathVerifierConfig
from stages.verifiers.math_compare import CompareOptions, fast_compare
from stages.verifiers.math_extract import extract_answer
from stages.verifiers.math_parse import MathParseError, Node, normalise, parse_answer
from stages.verifiers.pool import HardTimeoutPool
from stages.verifiers.types import Verdict, fail

_SYMPY_TARGET = "stages.verifiers.math_symbolic:sympy_compare"
_EXTRACTION_STATUS = {"no_answer": "parse_error", "too_long": "parse_error"}


def parse_reference(reference: str) -> Node:
    """Parse a task's reference answer; raises MathParseError when it is outside the grammar."""
    return parse_answer(normalise(reference))


class MathVerifier:
    """Verifier[str]: the reference is the answer as text ("19", "\\frac{1}{2}", "(1, 2)")."""

    name = "math"

    def __init__(self, config: MathVerifierConfig | None = None) -> None:
        self.config = config or MathVerifierConfig()
        self.options = CompareOptions(
            rel_tolerance=self.config.rel_tolerance,
            decimal_rounding_places=self.config.decimal_rounding_places,
            percent_as_fraction=self.config.percent_as_fraction,
        )
        self._pool: HardTimeoutPool | None = None
        self._ref_cache: dict[str, Node | str] = {}

    def _reference(self, reference: str) -> Node | str:
        cached = self._ref_cache.get(reference)
        if cached is None:
            try:
                cached = parse_reference(reference)
            except MathParseError as e:
                cached = f"reference {reference!r} is not parseable: {e}"
            if len(self._ref_cache) < 100_000:
                self._ref_cache[reference] = cached
        return cached

    def _prepare(
        self, response: str, reference: str
    ) -> Verdict | tuple[Node, Node, dict[str, Any]]:
        """Everything up to the symbolic step; returns a verdict when no sympy is needed."""
        ref = self._reference(reference)
        if isinstance(ref, str):
            return fail("parse_error", ref)
        found = extract_answer(response, self.config.extraction, self.config.max_answer_chars)
        details: dict[str, Any] = {"extracted": found.text, "mode": found.mode}
        if found.text is None:
            status = _EXTRACTION_STATUS.get(found.problem, "failed")
            return fail(status, found.reason, **details)  # type: ignore[arg-type]
        try:
            answer = parse_answer(normalise(found.text))
        except MathParseError as e:
            return fail("parse_error", f"answer not parseable: {e}", **details)
        outcome = fast_compare(answer, ref, self.options)
        if outcome is None:
            return answer, ref, details
        passed, reason = outcome
        details["path"] = "fast"
        return Verdict(
            passed=passed,
            reward=float(passed),
            status="ok" if passed else "failed",
            reason=reason,
            details=details,
        )

    def verify(self, response: str, reference: str) -> Verdict:
        return self.verify_batch([(response, reference)])[0]

    def verify_batch(self, items: Sequence[tuple[str, str]]) -> list[Verdict]:
        verdicts: list[Verdict | None] = []
        symbolic: list[tuple[int, dict[str, Any]]] = []
        jobs: list[tuple[Node, Node, CompareOptions]] = []
        for i, (response, reference) in enumerate(items):
            prepared = self._prepare(response, reference)
            if isinstance(prepared, Verdict):
                verdicts.append(prepared)
                continue
            answer, ref, details = prepared
            verdicts.append(None)
            symbolic.append((i, details))
            jobs.append((answer, ref, self.options))
        if jobs:
            results = self._get_pool().run(jobs, self.config.timeout_s)
            for (i, details), (kind, value) in zip(symbolic, results, strict=True):
                details = {**details, "path": "sympy"}
                if kind == "timeout":
                    verdicts[i] = fail(
                        "timeout", f"symbolic check exceeded {self.config.timeout_s}s", **details
                    )
                elif kind == "error":
                    verdicts[i] = fail("parse_error", f"symbolic check failed: {value}", **details)
                else:
                    passed, reason = value
                    verdicts[i] = Verdict(
                        passed=passed,
                        reward=float(passed),
                        status="ok" if passed else "failed",
                        reason=reason,
                        details=details,
                    )
        return [v for v in verdicts if v is not None]

    def _get_pool(self) -> HardTimeoutPool:
        if self._pool is None:
            self._pool = HardTimeoutPool(_SYMPY_TARGET, self.config.workers)
        return self._pool

    def close(self) -> None:
        """Stop the worker processes (they are daemons, so exiting the parent also stops them)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None
