"""Contracts shared by every verifier: the `Verdict`, the references each family checks against,
the `Verifier` protocol and the package's root exception.

A verdict is data, never an exception: a timeout, a parse failure or a judge outage is a verdict
with its `status` and `reason`, so one bad rollout cannot kill a training step. Whose fault decides
what it weighs: a response that is too long, unparseable, makes the verifier raise or overflows
the judge's context scores 0 (the policy must learn not to write it); only an infrastructure fault
(the judge unreachable, 429/5xx, its reply unusable) carries no signal and is excluded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

VerdictStatus = Literal[
    "ok",  # checked; `passed` says whether it was right
    "failed",  # checked and wrong (or rejected: hedge, conflicting answers, not a plain number)
    "timeout",  # the check ran past its hard time limit
    "parse_error",  # no answer could be extracted or parsed from the response
    "runtime_error",  # the candidate program crashed or was killed by a resource limit
    "judge_error",  # the judge was unreachable, refused (429/5xx) or unparseable: excluded
    "verifier_error",  # the verifier raised on this response: a failed rollout, the response's fault
]


class VerifierError(Exception):
    """Root exception for verifier configuration and input errors (never for a wrong answer)."""


class Usage(BaseModel):
    """Tokens a verification spent (the LLM judge reports them so a run can show its cost)."""

    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = Field(0, description="Prompt tokens summed over every attempt.")
    completion_tokens: int = Field(0, description="Completion tokens summed over every attempt.")
    calls: int = Field(0, description="Completions received, re-asks included.")


class Verdict(BaseModel):
    """The outcome of checking one response. JSON-native so it can go straight into an event."""

    model_config = ConfigDict(frozen=True)

    passed: bool = Field(description="True only when the response was checked and judged right.")
    reward: float = Field(description="Scalar reward for the response (0..1 for most verifiers).")
    status: VerdictStatus = Field(
        description="How the check ended; anything but ok/failed is an error."
    )
    reason: str = Field(description="One line a person can read: why it passed or failed.")
    details: dict[str, Any] = Field(
        default_factory=dict, description="Verifier-specific JSON-native extras (scores, outputs)."
    )
    usage: Usage | None = Field(None, description="Judge token usage, when a model was called.")

    @property
    def excluded(self) -> bool:
        """An infrastructure fault carries no signal: leave the rollout out of the advantages."""
        return self.status == "judge_error"


def fail(status: VerdictStatus, reason: str, **details: Any) -> Verdict:
    """A zero-reward verdict; `details` must be JSON-native."""
    return Verdict(passed=False, reward=0.0, status=status, reason=reason, details=details)


class QAReference(BaseModel):
    """What a multi-hop QA answer is checked against (MuSiQue style)."""

    model_config = ConfigDict(frozen=True)

    answer: str = Field(description="The gold answer.")
    aliases: list[str] = Field(default_factory=list, description="Other accepted spellings.")
    supporting_ids: list[int] = Field(
        default_factory=list, description="Indices of the gold supporting paragraphs."
    )
    num_hops: int | None = Field(None, description="Hop count, for optional reward weighting.")


class CodeReference(BaseModel):
    """The tests a candidate program must pass."""

    model_config = ConfigDict(frozen=True)

    tests: str = Field(
        description="Python test code: bare asserts and/or pytest-style test_* functions."
    )


class RubricReference(BaseModel):
    """The instruction and the rubric criteria a judge grades a response against."""

    model_config = ConfigDict(frozen=True)

    prompt: str = Field("", description="The instruction the response answers.")
    rubrics: list[str] = Field(description="Criteria, each graded pass/fail in one judge call.")


RefT_contra = TypeVar("RefT_contra", contravariant=True)


@runtime_checkable
class Verifier(Protocol[RefT_contra]):
    """Checks responses against references. Never raises for a bad response: returns a verdict."""

    name: str

    def verify(self, response: str, reference: RefT_contra) -> Verdict: ...

    def verify_batch(self, items: Sequence[tuple[str, RefT_contra]]) -> list[Verdict]: ...
