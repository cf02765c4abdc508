"""README: the suite runs on two pytest-xdist workers, a whole test file to a worker."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests import conftest

ROOT = Path(__file__).resolve().parents[2]


class _Item:
    def __init__(self, nodeid: str, fixturenames: list[str]) -> None:
        self.nodeid, self.fixturenames, self.marks = nodeid, fixturenames, []

    def get_closest_marker(self, name: str):
        return next((m for m in self.marks if m.name == name), None)

    def add_marker(self, mark: pytest.MarkDecorator) -> None:
        self.marks.append(mark.mark)


def test_the_suite_runs_on_two_workers_by_group() -> None:
    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert addopts["addopts"].split() == ["-ra", "-n", "2", "--dist", "loadgroup", "--durations=30"]


def test_a_file_is_one_group_and_the_quickstart_readers_share_one() -> None:
    items = [
        _Item("tests/slow/test_chaos.py::test_a", ["tmp_path"]),
        _Item("tests/slow/test_chaos.py::test_b", []),
        _Item("tests/slow/test_quickstart.py::test_c", ["readme_quickstart"]),
        _Item("tests/slow/test_readme_walkthrough.py::test_d", ["readme_quickstart", "tmp_path"]),
        _Item("tests/unit/test_x.py::test_e[1]", []),
    ]
    conftest.pytest_collection_modifyitems(items)
    groups = [item.get_closest_marker("xdist_group").args[0] for item in items]
    assert groups == [
        "tests/slow/test_chaos.py",
        "tests/slow/test_chaos.py",
        "readme-quickstart",
        "readme-quickstart",
        "tests/unit/test_x.py",
    ]
