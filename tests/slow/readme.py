"""The README's walkthrough as commands a test can run: the first page's code blocks, read from
the README itself, so what it shows is what the tests type."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
FIRST_PAGE = 120  # lines: install -> run -> status -> report -> why -> branch -> export-model
_INSTALL = ("python3 -m venv", ".venv/bin/pip install")
_SUITE = ".venv/bin/python -m pytest"  # the test suite itself: .ci/run runs it


def first_page() -> str:
    return "\n".join(README.read_text(encoding="utf-8").splitlines()[:FIRST_PAGE])


def code_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced block."""
    return re.findall(r"^```(\w*)\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def commands() -> list[list[str]]:
    """Every shell command of the first page, as argv, after its install steps: `rlvr ...`
    (or `.venv/bin/rlvr`) and the venv's other scripts (`mlx_lm.generate`)."""
    out = []
    for language, body in code_blocks(first_page()):
        if language != "bash":
            continue
        for line in body.splitlines():
            for part in (p.strip() for p in line.split("&&")):
                if not part or part.startswith(_INSTALL) or part.startswith(_SUITE):
                    continue
                out.append(_argv(part))
    return out


def _argv(command: str) -> list[str]:
    words = shlex.split(command)
    program = words[0].removeprefix(".venv/bin/")
    if program == "rlvr":
        return [sys.executable, "-m", "orchestrator", *words[1:]]
    return [str(Path(sys.executable).parent / program), *words[1:]]


def python_blocks() -> list[str]:
    return [body for language, body in code_blocks(first_page()) if language == "python"]
