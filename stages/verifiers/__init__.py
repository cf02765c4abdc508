"""Verifiers: the reward signal. Math (safe parser + sympy in killable workers), code (sandboxed
subprocess), QA (EM/F1, citations), exact match, and the LLM rubric judge; plus calibration.

Names resolve lazily so that worker processes importing one submodule (the sympy worker) do not pay
for openai, pydantic configs and the sandbox on start-up."""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "CalibrationReport": "calibration",
    "calibrate": "calibration",
    "right_candidates": "calibration",
    "wrong_candidates": "calibration",
    "CodeVerifierConfig": "config",
    "ExactMatchConfig": "config",
    "JudgeConfig": "config",
    "MathVerifierConfig": "config",
    "QAVerifierConfig": "config",
    "VerifierConfig": "config",
    "build_verifier": "registry",
    "default_config": "registry",
    "parse_verifier_config": "registry",
    "reference_for": "registry",
    "verify_tasks": "registry",
    "CodeReference": "types",
    "QAReference": "types",
    "RubricReference": "types",
    "Usage": "types",
    "Verdict": "types",
    "Verifier": "types",
    "VerifierError": "types",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'stages.verifiers' has no attribute {name!r}")
    return getattr(importlib.import_module(f"stages.verifiers.{_EXPORTS[name]}"), name)
