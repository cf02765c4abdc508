"""From plain config to a verifier. The verifiers check text against a reference and know no task:
which reference a task gives its verifier is `stages.tasks.references`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from stages.verifiers.code_verifier import CodeVerifier
from stages.verifiers.config import (
    CodeVerifierConfig,
    ExactMatchConfig,
    JudgeConfig,
    MathVerifierConfig,
    QAVerifierConfig,
    VerifierConfig,
)
from stages.verifiers.math_verifier import MathVerifier
from stages.verifiers.qa_verifier import ExactMatchVerifier, QAVerifier
from stages.verifiers.types import (
    Verdict,
    Verifier,
    VerifierError,
    fail,
)

_CONFIG = TypeAdapter(VerifierConfig)


def _rubric_judge(config: JudgeConfig) -> Verifier:
    # The judge imports openai (about a second): only runs that use it pay for it.
    from stages.verifiers.judge import RubricJudge

    return RubricJudge(config)


_BUILDERS: dict[type, Any] = {
    MathVerifierConfig: MathVerifier,
    ExactMatchConfig: ExactMatchVerifier,
    CodeVerifierConfig: CodeVerifier,
    QAVerifierConfig: QAVerifier,
    JudgeConfig: _rubric_judge,
}


def parse_verifier_config(data: Mapping[str, Any]) -> VerifierConfig:
    """Validate a config dict carrying `kind` (math | exact | code | qa | rubric)."""
    try:
        return _CONFIG.validate_python(dict(data))
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise VerifierError(
            f"verifier config field {field!r}: {err['msg']} (got {err.get('input')!r:.60})"
        ) from e


class GuardedVerifier:
    """A verifier whose exceptions become `verifier_error` verdicts: a failed rollout (reward 0,
    the response's fault: it made the verifier raise), never a pass, never a crash of the caller.
    Configuration errors (VerifierError, e.g. no sandbox) still raise."""

    def __init__(self, inner: Verifier) -> None:
        self.inner = inner
        self.name = inner.name

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def verify(self, response: str, reference: Any) -> Verdict:
        try:
            return self.inner.verify(response, reference)
        except VerifierError:
            raise
        except Exception as e:  # noqa: BLE001 - any bug or hostile input becomes data
            return fail(
                "verifier_error", f"{self.name} verifier raised {type(e).__name__}: {e}"[:300]
            )

    def verify_batch(self, items: Sequence[tuple[str, Any]]) -> list[Verdict]:
        try:
            return self.inner.verify_batch(items)
        except VerifierError:
            raise
        except Exception:  # noqa: BLE001 - one item raised: redo them one by one, each guarded
            return [self.verify(response, reference) for response, reference in items]


def build_verifier(config: VerifierConfig | Mapping[str, Any]) -> Verifier:
    """Build the verifier a config describes, guarded; heavy parts start lazily."""
    if isinstance(config, Mapping):
        config = parse_verifier_config(config)
    return GuardedVerifier(_BUILDERS[type(config)](config))
