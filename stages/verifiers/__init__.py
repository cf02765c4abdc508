"""Verifiers: the reward signal. Math (safe parser + sympy in killable workers), code (sandboxed
subprocess), QA (EM/F1, citations), exact match, and the LLM rubric judge; plus calibration."""

from stages.verifiers.calibration import (
    CalibrationReport,
    calibrate,
    right_candidates,
    wrong_candidates,
)
from stages.verifiers.config import (
    CodeVerifierConfig,
    ExactMatchConfig,
    JudgeConfig,
    MathVerifierConfig,
    QAVerifierConfig,
    VerifierConfig,
)
from stages.verifiers.registry import (
    build_verifier,
    default_config,
    parse_verifier_config,
    reference_for,
    verify_tasks,
)
from stages.verifiers.types import (
    CodeReference,
    QAReference,
    RubricReference,
    Usage,
    Verdict,
    Verifier,
    VerifierError,
)

__all__ = [
    "CalibrationReport",
    "CodeReference",
    "CodeVerifierConfig",
    "ExactMatchConfig",
    "JudgeConfig",
    "MathVerifierConfig",
    "QAReference",
    "QAVerifierConfig",
    "RubricReference",
    "Usage",
    "Verdict",
    "Verifier",
    "VerifierConfig",
    "VerifierError",
    "build_verifier",
    "calibrate",
    "default_config",
    "parse_verifier_config",
    "reference_for",
    "right_candidates",
    "verify_tasks",
    "wrong_candidates",
]
