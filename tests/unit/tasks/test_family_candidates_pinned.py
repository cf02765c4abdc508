"""The calibration candidates of every family, on the shipped sample data, are the lists main
made before task families became one class each (issue 17): same tasks, kinds, texts, truth and
known-hack flags, in the same order. The fingerprints in data/calibration_candidates_main.json
were computed at main 420409c with the if-chains in stages/tasks/calibration.py. The built-in
adversary's variants (kinds `adversary:...`, issue 27) came later and are left out here; their
determinism per run seed is tested in tests/unit/tasks/test_adversary.py."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from stages.tasks import generate_arithmetic, generate_reversal, load_tasks
from stages.tasks.adversary import PREFIX as ADVERSARY
from stages.tasks.calibration import hack_candidates, right_candidates, wrong_candidates

ROOT = Path(__file__).resolve().parents[3]
PINNED = json.loads(
    (Path(__file__).parent / "data" / "calibration_candidates_main.json").read_text()
)
SUITES = {
    "math": lambda: load_tasks(ROOT / "configs/data/math_sample.jsonl"),
    "math_latex": lambda: load_tasks(ROOT / "configs/data/math_latex_sample.jsonl"),
    "qa": lambda: load_tasks(ROOT / "configs/data/qa_sample.jsonl"),
    "code": lambda: load_tasks(ROOT / "configs/data/code_sample.jsonl"),
    "rubric": lambda: load_tasks(ROOT / "configs/data/rubric_sample.json"),
    "arithmetic": lambda: generate_arithmetic(2, n=200, seed=0),
    "reverse": lambda: generate_reversal()[:200],
}


def _fingerprint(tasks: list) -> dict:
    candidates = [c for t in tasks for c in (*wrong_candidates(t, tasks, 0), *right_candidates(t))]
    for sandbox in ("isolated", "unisolated"):  # code's reward hacks differ by sandbox
        verifier = SimpleNamespace(config=SimpleNamespace(sandbox=sandbox))
        candidates += hack_candidates(tasks, 0, verifier)
    rows = [
        (c.task_id, c.kind, c.text, c.correct, c.known_hack)
        for c in candidates
        if not c.kind.startswith(ADVERSARY)
    ]
    kinds: dict[str, int] = {}
    for row in rows:
        kinds[row[1]] = kinds.get(row[1], 0) + 1
    return {
        "tasks": len(tasks),
        "candidates": len(rows),
        "sha256": hashlib.sha256(json.dumps(rows).encode()).hexdigest(),
        "kinds": dict(sorted(kinds.items())),
    }


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_every_familys_calibration_candidates_are_the_ones_main_made(suite: str) -> None:
    got = _fingerprint(SUITES[suite]())
    want = PINNED[suite]
    assert (got["tasks"], got["candidates"], got["kinds"]) == (
        want["tasks"],
        want["candidates"],
        want["kinds"],
    )
    assert got["sha256"] == want["sha256"]  # same texts, flags and order
