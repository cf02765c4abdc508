"""Which seq a tampered keyed run is refused at, typed as a person types the commands (the real
`main`): a row rewritten with its prev_hash changed and its own hash recomputed (transplanted,
swapped, junk, or renumbered after a deleted row) is named, not the intact row before it; an edit
behind a cut tail is named before the tail; a branch with its own rows deleted is named at its
first own seq. `verify`, the readers, `branch --at` and `resume --from` name the same seq."""

from __future__ import annotations

import re
import sqlite3

import pytest

from orchestrator.driver import registry
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages
from tests.scenario.test_tampered_reads_cli import _built, _copy
from tests.tampering import (
    delete_and_shift,
    edit_payload,
    rewrite_prev,
    swap_rows,
    transplant,
    truncate,
)

READERS = [
    ["verify", "{run}"],
    ["status", "{run}"],
    ["why", "{run}"],
    ["events", "{run}", "--type", "PolicyDecided"],
    ["branch", "{run}", "--at", "{cut}", "seed=9"],
    ["resume", "{run}", "--from", "{cut}"],
]


@pytest.fixture(scope="module")
def keyed_run(tmp_path_factory: pytest.TempPathFactory):
    return _built(tmp_path_factory, "blame", FakeStages(), keyed=True)


def _line(capsys, built, store: str, command: list[str], cut: int, monkeypatch) -> str:
    _, run_id, env = built
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    args = [a.replace("{run}", run_id).replace("{cut}", str(cut)) for a in command]
    result = rlvr(capsys, *args, "--store", store)
    assert result.code == 1, (result.out[-2000:], result.err[-2000:])
    assert "Traceback" not in result.err, result.err[-3000:]
    return " ".join(result.err.split())


def _tampered(keyed_run, name: str, tamper) -> tuple[str, int, int]:
    """(store, the cut: a batch end, the seq `tamper(log, run_id, seq)` rewrites: the one after)"""
    log, store = _copy(keyed_run, name)
    run_id = keyed_run[1]
    cut = log.batch_ends(run_id)[-8]
    tamper(log, run_id, cut + 1)
    log.close()
    return store, cut, cut + 1


TAMPERS = {
    "transplant": lambda log, run_id, seq: transplant(log, run_id, seq, seq + 4),
    "swap": swap_rows,
    "junk prev_hash": lambda log, run_id, seq: rewrite_prev(log, run_id, seq, "ab" * 32),
    "delete and shift": delete_and_shift,
    "edit and cut tail": lambda log, run_id, seq: (
        edit_payload(log, run_id, seq, {"forged": True}),
        truncate(log, run_id, log.last_seq(run_id) - 1, cover_tracks=False),
    ),
}


@pytest.mark.parametrize("command", READERS, ids=lambda c: " ".join(c[:1] + c[2:3]))
@pytest.mark.parametrize("tamper", sorted(TAMPERS))
def test_a_rewritten_row_is_named_by_every_command_not_the_intact_row_before_it(
    keyed_run, tamper, command, capsys, monkeypatch
) -> None:
    monkeypatch.setattr(registry, "product_stages", lambda: FakeStages().registry())
    store, cut, bad = _tampered(keyed_run, tamper.replace(" ", "-"), TAMPERS[tamper])
    line = _line(capsys, keyed_run, store, command, cut, monkeypatch)
    assert f"hash chain broken at seq {bad}:" in line, line


def test_a_keyed_branch_with_its_own_rows_deleted_is_named_at_its_first_own_seq(
    keyed_run, capsys, monkeypatch
) -> None:
    monkeypatch.setattr(registry, "product_stages", lambda: FakeStages().registry())
    log, store = _copy(keyed_run, "branch-gone")
    run_id, env = keyed_run[1], keyed_run[2]
    cut = log.batch_ends(run_id)[-8]
    log.close()
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    made = rlvr(capsys, "branch", run_id, "--at", str(cut), "seed=9", "--store", store)
    assert made.code == 0, made.err[-3000:]
    child = re.search(rf"branched (\S+) from {run_id}", made.err).group(1)
    with sqlite3.connect(store) as conn:
        conn.execute("DELETE FROM events WHERE run_id = ?", (child,))
    for command in (["verify"], ["status"], ["why"], ["events", "--type", "PolicyDecided"]):
        line = _line(capsys, keyed_run, store, [command[0], child, *command[1:]], cut, monkeypatch)
        assert f"run {child}: hash chain broken at seq {cut + 1}: the keyed head" in line, line
