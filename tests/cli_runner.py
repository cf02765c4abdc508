"""`rlvr` as a person types it, in process: the real console entry (`main`, which maps errors to
one line and an exit code), argv set, stdout and stderr captured."""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass

import pytest

from orchestrator.cli.app import main


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def error_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]


def rlvr(capsys: pytest.CaptureFixture[str], *args: str) -> Result:
    capsys.readouterr()  # drop what came before
    argv = sys.argv
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    sys.argv = ["rlvr", *args]
    try:
        main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    finally:
        sys.argv = argv
        # main() points logging at the captured stderr, which is closed after this test
        root.handlers[:] = handlers
        root.setLevel(level)
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)
