"""Red team round 15 (issue 27 item 2), the rules behind the code cases it closed: an input a
method or a module's function receives is shared like one a plain call receives; an assert reads
its inputs and makes its calls in Python's order, check() units among the bare asserts; identity
between the program's values is the harness's report, never two decoded copies; keys that would
merge as plain values make the value unsupported."""

import ast

import pytest

from stages.verifiers.code_tests import UnsupportedTests, plan
from stages.verifiers.code_trusted import evaluate
from stages.verifiers.code_values import UnsupportedValue, decode, returned_inputs


def _asserts(p) -> list[str]:  # type: ignore[no-untyped-def]
    return [ast.unparse(a) for u in p.units for a in u.asserts]


@pytest.mark.parametrize(
    "call", ["Solution().sort_copy(nums)", "solution.sort_copy(nums)", "s.sort_copy(nums)"]
)
def test_an_input_a_method_or_a_module_function_receives_is_shared(call: str) -> None:
    """kind: hack. `Solution().m(nums)` or `solution.f(nums)` may sort nums in place; the later
    read of nums is the program's, as in Python, never the literal as written."""
    tests = f"import solution\nimport solution as s\nnums = [3, 1, 2]\nassert {call} == [1, 2, 3]\n"
    p = plan(tests + "assert nums == [3, 1, 2]", frozenset({"Solution", "sort_copy"}))
    assert p.bindings == [["nums", "[3, 1, 2]"]]
    assert p.calls[-1] == "nums" and _asserts(p)[-1] == "_v1 == [3, 1, 2]"


def test_an_input_read_after_a_call_in_the_same_assert_is_read_after_it() -> None:
    """kind: hack. `f(nums) == max(nums)` reads nums after f ran (Python's order); compared with
    the program's value it must hold as written too, so no answer key is the program's."""
    p = plan("nums = [1, 5, 3]\nassert largest(nums) == max(nums)", frozenset({"largest"}))
    assert p.calls == ["largest(nums)", "nums"]
    assert _asserts(p) == ["_v0 == max(_v1) and _v0 == max([1, 5, 3])"]


def test_a_read_after_the_call_against_a_literal_is_the_programs_value_alone() -> None:
    """kind: correct. `sort_in_place(xs) is None and xs == [1, 2, 3]` holds in Python: xs is read
    after the call and compared with a literal, not with another of the program's values."""
    tests = "xs = [3, 1, 2]\nassert sort_in_place(xs) is None and xs == [1, 2, 3]"
    p = plan(tests, frozenset({"sort_in_place"}))
    assert p.calls == ["sort_in_place(xs)", "xs"]
    assert _asserts(p) == ["_v0 is None and _v1 == [1, 2, 3]"]


def test_a_check_call_among_bare_asserts_runs_where_it_is_written() -> None:
    """kind: hack. Python runs check(next_id) before the assert below it: so do the calls."""
    tests = "def check(candidate):\n    assert candidate() == 1\n\ncheck(next_id)\n" \
        "assert next_id() == 2\n"  # fmt: skip
    p = plan(tests, frozenset({"next_id"}))
    assert [u.name for u in p.units] == ["asserts", "check"]
    assert [ast.unparse(a) for a in p.units[1].asserts] == ["_v0 == 1"]
    assert [ast.unparse(a) for a in p.units[0].asserts] == ["_v1 == 2"]


def test_identity_between_two_calls_is_the_harness_report() -> None:
    """kind: hack. `new_board() is not new_board()`: decoded values are always distinct objects;
    whether the two calls gave one object is what the harness saw, the earlier one kept alive."""
    p = plan("assert new_board() is not new_board()", frozenset({"new_board"}))
    assert p.keep == [0] and _asserts(p) == ["not _is_same(_v0, _v1, 0, 1)"]
    expr = ast.parse(_asserts(p)[0], mode="eval").body
    assert not evaluate(expr, [[0], [0]], {}, {1: 0})
    assert evaluate(expr, [[0], [0]], {}, {})


@pytest.mark.parametrize("test", ["assert copy(grid)[0] is not grid[0]", "assert f()[0] is g()"])
def test_identity_between_parts_of_the_programs_values_is_unsupported(test: str) -> None:
    """kind: hack. An element's identity does not survive the boundary: unverifiable, not paid."""
    with pytest.raises(UnsupportedTests, match="identity"):
        plan("grid = [[1], [2]]\n" + test, frozenset({"copy", "f", "g"}))


def test_identity_of_types_and_against_none_still_reads_the_decoded_values() -> None:
    """kind: correct. `type(f()) is type(g())` and `f() is None` are decided out here as before."""
    p = plan("assert type(f()) is type(g())\nassert f() is None", frozenset({"f", "g"}))
    assert p.keep == [] and _asserts(p) == ["type(_v0) is type(_v1)", "_v2 is None"]


def test_a_same_object_claim_names_only_an_earlier_call() -> None:
    """kind: hack. A claim that a call gave a later call's object is not one the harness makes."""
    value = {"ref": [1, {"l": []}]}
    assert returned_inputs([{"l": []}, value], ["f()", "g()"]) == {}
    assert returned_inputs([{"l": []}, {"ref": [0, {"l": []}]}], ["f()", "g()"]) == {1: 0}


@pytest.mark.parametrize(
    "raw", [{"d": [["a", 0], ["a", 1]]}, {"s": ["a", "a"]}, {"l": [{"ctr": [["a", 1], ["a", 2]]}]}]
)
def test_keys_that_merge_as_plain_values_make_the_value_unsupported(raw: dict) -> None:
    """kind: hack. A str subclass with its own hash keeps keys apart that plain strs merge: the
    merged dict could equal the expected one where Python's does not."""
    assert isinstance(decode(raw), UnsupportedValue)
