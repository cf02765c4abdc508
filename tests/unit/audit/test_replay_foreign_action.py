"""Red team round 4, issue 28 (holdout h29, found by the lead): a log whose PolicyDecided names an
action this version's policies do not know (the chaos fixture's `halve_lr`, written by a custom
policy) is refused by `rlvr replay` in one line naming the seq, never a pydantic traceback."""

from __future__ import annotations

import pytest

from tests.cli_runner import rlvr


def test_replay_of_a_foreign_action_is_one_error_line_naming_its_seq(chaos, capsys) -> None:
    log, run_id = chaos
    seq = next(s.seq for s in log.read(run_id) if s.type == "PolicyDecided"
               and s.event.action == "halve_lr")  # fmt: skip
    result = rlvr(capsys, "replay", run_id, "--store", str(log.url))
    assert result.code == 1, result
    assert len(result.error_lines) == 1, result.err
    line = result.error_lines[0]
    assert line.startswith("error: ") and f"seq {seq}:" in line and "'halve_lr'" in line
    assert "Traceback" not in result.err


@pytest.mark.parametrize("override", ["policies.kl.enabled=false"])
def test_replay_with_an_override_refuses_the_same_way(chaos, capsys, override) -> None:
    log, run_id = chaos
    result = rlvr(capsys, "replay", run_id, override, "--store", str(log.url))
    assert result.code == 1 and "'halve_lr'" in result.err and "Traceback" not in result.err
