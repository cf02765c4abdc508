"""Red team round 27 (log), typed as a person types the commands: a branch pointer
(`run_parents`) added to an intact run, or moved in a real branch, by SQL, with and without a
key. Every reader refused the run, but named one of its own intact rows ("hash chain broken at
seq 9: ... the parent's history was changed"), never the pointer. The run's own rows fix where
it branched (its first row's seq and the row it chains from), so the pointer is named whenever
they contradict it, and every command gives the same one line. Cases log27-001/002/013/014; the
rest are variants (moved earlier, moved later, another parent)."""

from __future__ import annotations

import pytest

from store.events import PauseRequested
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages
from tests.scenario.test_tampered_reads_cli import _built, _finished_run
from tests.scenario.test_tampered_round18_cli import _sql
from tests.scenario.test_tampered_round19_cli import _one_error

READERS = [
    ["status", "{run}"],
    ["status", "{run}", "--json"],
    ["verify", "{run}"],
    ["why", "{run}"],
    ["events", "{run}", "--type", "PolicyDecided"],
    ["report", "{run}", "--out", "{dir}/report.html"],
    ["resume", "{run}", "--from", "5"],
    ["branch", "{run}", "--at", "5"],
]


@pytest.fixture(scope="module", params=[False, True], ids=["unkeyed", "keyed"])
def two_runs(request, tmp_path_factory: pytest.TempPathFactory):
    """Two finished runs in one store (the first is `built[1]`), and a real branch of the first at
    seq 8."""
    built = _built(tmp_path_factory, "pointer", FakeStages(), request.param)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in built[2].items():
            patch.setenv(name, value)
        other = _finished_run(built[0], FakeStages())
        log = EventLog(built[0] / "events.db")
        log.branch(built[1], "real-branch", 8, [PauseRequested(by="a person")])
        log.close()
    return built, other


def _lines(capsys, monkeypatch, built, store: str, run: str) -> set[str]:
    for key, value in built[2].items():
        monkeypatch.setenv(key, value)
    lines = set()
    for command in READERS:
        args = [a.replace("{run}", run).replace("{dir}", str(built[0])) for a in command]
        line = _one_error(rlvr(capsys, *args, "--store", store))
        lines.add(
            line.removesuffix(f" (refusing to read it; `rlvr verify {run}` walks the whole chain)")
        )
    return lines  # the same words, `verify`'s without the hint to run it


def test_a_pointer_added_to_an_intact_run_is_named_by_every_reader(
    capsys, monkeypatch, two_runs
) -> None:
    """log27-001/013: an intact run given a pointer to another run of the store."""
    built, other = two_runs
    store = _sql(built, "added", f"INSERT INTO run_parents VALUES ('{{run}}', '{other}', 3)")
    lines = _lines(capsys, monkeypatch, built, store, built[1])
    assert len(lines) == 1, "\n".join(sorted(lines))
    [line] = lines
    assert f"branch pointer of run {built[1]} (run_parents) says it branched from run " in line
    assert f"{other} at seq 3, but the run has rows of its own from seq 1" in line
    assert "hash chain broken" not in line and "parent's history" not in line


@pytest.mark.parametrize(
    ("seq", "said"),
    [
        (11, "the run has rows of its own from seq 9: the pointer was added or moved"),
        (4, "its first row (seq 9) chains from run {run}'s row at seq 8: the pointer was moved"),
    ],
    ids=["log27-002 moved later", "moved earlier"],
)
def test_a_moved_pointer_is_named_by_every_reader(
    capsys, monkeypatch, two_runs, seq: int, said: str
) -> None:
    built, _ = two_runs
    statement = f"UPDATE run_parents SET parent_seq = {seq} WHERE run_id = 'real-branch'"
    store = _sql(built, f"moved{seq}", statement)
    lines = _lines(capsys, monkeypatch, built, store, "real-branch")
    assert len(lines) == 1, "\n".join(sorted(lines))
    [line] = lines
    assert f"(run_parents) says it branched from run {built[1]} at seq {seq}, but " in line
    assert said.replace("{run}", built[1]) in line, line


def test_a_pointer_to_another_parent_names_the_branch_point_and_the_pointer(
    capsys, monkeypatch, two_runs
) -> None:
    """log27-014: pointed at another run at the same seq; the rows cannot say which side was
    changed, so the branch point's seq is named with both."""
    built, other = two_runs
    store = _sql(built, "other-parent", f"UPDATE run_parents SET parent_run_id = '{other}'")
    lines = _lines(capsys, monkeypatch, built, store, "real-branch")
    assert len(lines) == 1, "\n".join(sorted(lines))
    [line] = lines
    assert "seq 9: its first own row does not chain from run " in line
    assert "that run's rows, or the branch pointer (run_parents), were changed" in line


def test_the_real_branch_reads(capsys, monkeypatch, two_runs) -> None:
    built, _ = two_runs
    for key, value in built[2].items():
        monkeypatch.setenv(key, value)
    store = str(built[0] / "events.db")
    result = rlvr(capsys, "verify", "real-branch", "--store", store)
    assert result.code == 0 and "intact" in result.out, result.err
    assert rlvr(capsys, "status", "real-branch", "--store", store).code == 0
