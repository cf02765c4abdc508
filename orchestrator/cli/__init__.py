"""The command line: `rlvr` and its commands (entry point `orchestrator.cli:main`)."""

from orchestrator.cli.app import main

__all__ = ["main"]
