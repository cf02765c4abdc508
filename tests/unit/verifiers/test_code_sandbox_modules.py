"""Candidate programs run on the sandbox python's standard library alone (`-I -S`: no
site-packages). A program that imports a module outside it (numpy, red team round 7's s-code-059)
fails with a reason that names the environment, not a bug in the program."""

from __future__ import annotations

import shutil

import pytest

from stages.verifiers.registry import build_verifier
from stages.verifiers.types import CodeReference

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


def _verdict(program: str, tests: str):
    verifier = build_verifier({"kind": "code"})
    try:
        [verdict] = verifier.verify_batch(
            [(f"```python\n{program}\n```", CodeReference(tests=tests))]
        )
    finally:
        getattr(verifier, "close", lambda: None)()
    return verdict


@pytest.mark.parametrize("module", ["numpy", "numpy.linalg", "scipy", "no_such_module_xyz"])
def test_a_module_outside_the_standard_library_is_named_as_missing_from_the_sandbox(module):
    verdict = _verdict(
        f"import {module}\ndef double(x):\n    return 2 * x", "assert double(2) == 4"
    )
    top = module.split(".")[0]
    assert not verdict.passed and verdict.status == "runtime_error"
    assert f"{top} is not installed for the sandbox's python" in verdict.reason, verdict.reason


def test_other_load_errors_keep_their_reason_and_standard_library_imports_work():
    assert _verdict(
        "import fractions, heapq\ndef double(x):\n    return 2 * x", "assert double(2) == 4"
    ).passed
    verdict = _verdict(
        "def double(x):\n    return 2 * x\nraise ValueError('no')", "assert double(2) == 4"
    )
    assert "not installed" not in verdict.reason and "ValueError: no" in verdict.reason
