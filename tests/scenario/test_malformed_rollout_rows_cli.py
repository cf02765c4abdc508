"""A step's `RolloutsSampled` row that the code never wrote, its chain recomputed (no key), typed
as a person types the readers: `events --json` and `events export` (which spliced the stored
payload in unparsed) and the fold (whose fast path read only the payload's last digits) refuse
it naming its seq, in one `error:` line, as they refuse any other row that breaks its schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.events import RolloutsSampled
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.tampering import chain_holds, forge_chain, synthetic_run

RUN = "rollouts"
ROLLOUT_SEQ = 5  # after the opening batch (1-2) and two metrics rows (3-4)

READERS = [
    ["events", RUN, "--json"],
    ["events", "export", RUN],
    ["events", RUN],
    ["events", RUN, "--type", "RolloutsSampled"],
    ["status", RUN],
]
READER_IDS = ["events --json", "events export", "events", "events --type", "status"]

FORGED = {
    "not JSON": "not json{",
    "not JSON, ending as a step": 'garbage,"step":3}',
    "a count stored as text": (
        '{"attempt":0,"blob":null,"components":{},"group_size":2,"n_groups":"x",'
        '"policy_version":3,"rewards":[[1.0,0.0]],"samples":[],"step":3}'
    ),
    "a reward stored as text": (
        '{"attempt":0,"blob":null,"components":{},"group_size":2,"n_groups":1,'
        '"policy_version":3,"rewards":[["1.0",0.0]],"samples":[],"step":3}'
    ),
    "a key the event does not have": (
        '{"attempt":0,"blob":null,"components":{},"group_size":2,"n_groups":1,'
        '"policy_version":3,"rewards":[[1.0,0.0]],"samples":[],"step":3,"x":1}'
    ),
    "a JSON list": "[1, 2]",
}


def _store(tmp_path: Path, payload: str | None) -> str:
    path = tmp_path / "events.db"
    log = EventLog(path)
    synthetic_run(log, RUN, steps=2)
    rollouts = RolloutsSampled(step=3, n_groups=1, group_size=2, rewards=[[1.0, 0.0]])
    log.append(RUN, [rollouts], expected_seq=log.last_seq(RUN))
    if payload is not None:
        forge_chain(log, RUN, ROLLOUT_SEQ, {}, raw=payload)
        assert chain_holds(log, RUN)  # the chain holds: only the payload is not one the code wrote
    log.close()
    return str(path)


@pytest.mark.parametrize("reader", READERS, ids=READER_IDS)
@pytest.mark.parametrize("payload", list(FORGED.values()), ids=list(FORGED))
def test_a_forged_rollout_row_is_refused_by_its_seq(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reader: list[str], payload: str
) -> None:
    store = _store(tmp_path, payload)
    result = rlvr(capsys, *reader, "--store", store)
    assert result.code == 1, (result.out[-2000:], result.err[-2000:])
    assert len(result.error_lines) == 1 and "Traceback" not in result.err, result.err[-3000:]
    line = result.error_lines[0]
    assert line.startswith("error: ") and f"run {RUN}: seq {ROLLOUT_SEQ}: " in line, line
    assert "RolloutsSampled" in line, line
    if reader[1:2] == ["export"] or "--json" in reader:
        assert result.out == ""  # nothing an import or a pipe would half-trust


@pytest.mark.parametrize("reader", READERS, ids=READER_IDS)
def test_a_rollout_row_as_the_code_writes_it_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reader: list[str]
) -> None:
    store = _store(tmp_path, None)
    result = rlvr(capsys, *reader, "--store", store)
    assert result.code == 0 and result.err.strip() == "", result.err[-3000:]
    if reader[:2] == ["events", "export"]:
        assert len(result.out.splitlines()) == ROLLOUT_SEQ + 1  # the rows, then the head line
