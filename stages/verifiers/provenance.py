"""Which verifier produced a step's verdicts (`VerdictsRecorded.verifier`): its kind, the
project's version, a digest of its settings and one of its code; for the LLM judge also the
model and a digest of its system prompt. Two steps whose provenance differs were scored by
different verifiers, which `status` and `why` point out and `rlvr rescore` explains.

The code digest covers the source of the kind's module and of every `stages.verifiers` module it
imports, directly or not (read from the files, not from what this process happens to have
imported), so an edit to the math parser changes the math verifier's digest and nothing else's."""

from __future__ import annotations

import ast
import hashlib
import json
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

_PACKAGE = "stages.verifiers"
_HERE = Path(__file__).resolve().parent
_MODULE_OF_KIND = {
    "math": "math_verifier", "exact": "qa_verifier", "qa": "qa_verifier",
    "code": "code_verifier", "rubric": "judge",
}  # fmt: skip


def provenance(config: Any) -> dict[str, Any]:
    """The provenance of the verifier `config` (a `VerifierConfig`) builds, JSON-native."""
    settings = json.dumps(config.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    out: dict[str, Any] = {
        "kind": config.kind,
        "version": project_version(),
        "settings_digest": _sha(settings.encode()),
        "code_digest": code_digest(config.kind),
    }
    if config.kind == "rubric":
        from stages.verifiers.judge import SYSTEM_PROMPT

        out["model"] = config.judge_model
        out["prompt_digest"] = _sha(SYSTEM_PROMPT.encode())
    return out


@cache
def project_version() -> str:
    try:
        return metadata.version("rlvr-orchestrator")
    except metadata.PackageNotFoundError:
        return "unknown"


@cache
def code_digest(kind: str) -> str:
    """sha256 over the sources of the kind's module and its `stages.verifiers` imports, by name."""
    if kind not in _MODULE_OF_KIND:
        raise ValueError(f"no verifier kind {kind!r}: one of {', '.join(_MODULE_OF_KIND)}")
    digest = hashlib.sha256()
    for name in sorted(_closure(_MODULE_OF_KIND[kind])):
        digest.update(name.encode() + b"\0" + (_HERE / f"{name}.py").read_bytes() + b"\0")
    return digest.hexdigest()


def _closure(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name in seen or not (_HERE / f"{name}.py").exists():
            continue
        seen.add(name)
        todo += _imports((_HERE / f"{name}.py").read_text(encoding="utf-8"))
    return seen


def _imports(source: str) -> list[str]:
    """The `stages.verifiers` modules a source imports (relative imports are not used here)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        out += [n[len(_PACKAGE) + 1 :].split(".")[0] for n in names if n.startswith(_PACKAGE + ".")]
    return out


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
