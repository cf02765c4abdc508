"""House rules on the shape of the code, read from the source with `ast`: the RL step and the
training engine read as short functions (each under 60 lines, decorators left out), and nothing
keeps a second copy of the settings in force."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LONGEST = 60


def _long_functions(folder: Path, longest: int, root: Path = ROOT) -> list[str]:
    out = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > longest:
                    out.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({lines})")
    return out


def test_no_function_of_the_rl_step_or_the_training_engine_runs_over_60_lines() -> None:
    for package in ("stages/rl", "stages/training"):
        assert _long_functions(ROOT / package, LONGEST) == []


def test_the_rule_sees_a_long_function(tmp_path: Path) -> None:
    (tmp_path / "long.py").write_text("def f():\n" + "    x = 1\n" * 61)
    (tmp_path / "short.py").write_text("def g():\n" + "    x = 1\n" * 59)
    assert _long_functions(tmp_path, LONGEST, root=tmp_path) == ["long.py:1 f (62)"]


def _names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    found |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    found |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    return found


def test_no_second_home_of_the_settings_in_force_is_left() -> None:
    # The settings in force are the log's fold (store/settings.py): what the old code kept beside
    # it (the trainer's copy, the session's overrides, the checkpoint's meta and the resume's
    # patch of the two) is gone, and stays gone.
    gone = {"lives_on", "take_logged_settings", "overrides_of", "with_settings"}
    for package in ("stages", "orchestrator", "policies", "store"):
        for path in sorted((ROOT / package).rglob("*.py")):
            assert not gone & _names(path), path
    session = (ROOT / "stages" / "rl" / "session.py").read_text(encoding="utf-8")
    assert "overrides" not in session
