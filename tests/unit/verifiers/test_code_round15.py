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


@pytest.mark.parametrize(
    "test",
    ["assert copy(grid)[0] is not grid[0]", "assert f()[1:] is g()", "assert f()[0][1] is g()"],
)
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


def test_a_part_passed_by_a_subscript_is_shared_alone_and_read_back() -> None:
    """kind: hack. `sorted_copy(grid[0])` receives the row itself: a later read of grid sees
    what the program did to it, and only that row goes into the sandbox."""
    tests = "grid = [[3, 1, 2], [9, 8]]\nassert sorted_copy(grid[0]) == [1, 2, 3]\n" \
        "assert grid == [[3, 1, 2], [9, 8]]"  # fmt: skip
    p = plan(tests, frozenset({"sorted_copy"}))
    assert p.bindings == [["grid__0", "[3, 1, 2]"]]
    assert p.calls == ["sorted_copy(grid__0)", "grid__0"]
    assert _asserts(p)[1] == "[_v1, [9, 8]] == [[3, 1, 2], [9, 8]]"


def test_a_table_of_inputs_and_expected_values_sends_only_the_inputs() -> None:
    """kind: hack. `f(CASES[0][0]) == CASES[0][1]`: the input row is shared, the expected value
    beside it stays out here as written."""
    tests = "CASES = [([3, 1, 2], [1, 2, 3])]\nassert f(CASES[0][0]) == CASES[0][1]"
    p = plan(tests, frozenset({"f"}))
    assert p.bindings == [["CASES__0", "[3, 1, 2]"]] and p.calls == ["f(CASES__0)"]
    assert _asserts(p) == ["_v0 == [1, 2, 3]"]


def test_a_part_reached_other_than_by_constants_is_unsupported() -> None:
    """kind: hack. Which row `grid[len(grid) - 1]` is cannot be told here: unverifiable."""
    with pytest.raises(UnsupportedTests, match="cannot be placed"):
        plan("grid = [[1], [2]]\nassert f(grid[len(grid) - 1]) == 1", frozenset({"f"}))


def test_a_part_with_nothing_to_change_goes_in_as_written() -> None:
    """kind: correct. A tuple of ints, or a slice of tuples, cannot be changed: folded as before."""
    p = plan("grid = [(1, 2), (3,)]\nassert f(grid[0]) == 1\nassert f(grid[1:]) == 2", {"f"})
    assert p.bindings == [] and p.calls == ["f((1, 2))", "f([(3,)])"]


def _calls(tests: str) -> list[str]:
    names = {"stats", "make_point", "Point", "tally", "make_adder", "sqrt2", "gen", "lookup"}
    return plan(tests, frozenset(names)).calls


@pytest.mark.parametrize(
    ("tests", "calls"),
    [
        ("assert stats([1]).count == 1", ["stats([1]).count"]),  # a namedtuple's field
        ("assert stats([1]).count(1) == 1", ["stats([1])"]),  # a method with an argument: out here
        ("assert isinstance(make_point(1, 2), Point)",
         ["__rlvr_isinstance__(make_point(1, 2), Point)"]),
        ("assert tally('aab')['z'] == 0", ["tally('aab')['z']"]),  # a dict subclass's __missing__
        ("assert tally('a')[0] == 1", ["tally('a')[0]"]),  # round 17: an index too
        ("assert make_adder(2)(3) == 5", ["make_adder(2)(3)"]),
        ("assert round(sqrt2(), 40) == 1", ["__rlvr_round__(sqrt2(), 40)"]),  # its Decimal context
    ],
)  # fmt: skip
def test_reads_only_the_sandbox_can_make_as_python_does_go_in_whole(
    tests: str, calls: list
) -> None:
    """kind: correct. A field, the program's own class, a missing key, a returned function or a
    Decimal context is read where the program runs; only inputs go in with it."""
    assert _calls(tests) == calls


def test_islice_of_a_generator_draws_only_what_it_takes() -> None:
    """kind: correct. `islice(gen(), 5)` draws five items, as itertools does, not ten thousand."""
    tests = "from itertools import islice\nimport itertools\nassert list(islice(gen(), 5)) == [1]\n" \
        "assert list(itertools.islice(gen(), 1, 3)) == [2]"  # fmt: skip
    assert plan(tests, frozenset({"gen"})).take == [[0, 5], [1, 3]]


def test_a_call_python_never_reaches_behind_and_or_is_never_made() -> None:
    """kind: correct. `'z' not in d or lookup(d, 'z') == 0`: decided out here, lookup not called."""
    p = plan("assert 'z' not in {'a': 1} or lookup({'a': 1}, 'z') == 0\n"
             "assert 1 > 2 or lookup({}, 'a') == 1", frozenset({"lookup"}))  # fmt: skip
    assert p.calls == ["lookup({}, 'a')"]
    assert _asserts(p) == ["'z' not in {'a': 1}", "_v0 == 1"]


def test_an_operand_calling_a_builtin_the_program_redefines_is_never_decided_out_here() -> None:
    """kind: hack. `sorted([3, 1]) == [1, 3] and ...` with the program's own sorted: each operand
    calls the program's, never the trusted builtin that would make it look decided."""
    p = plan("assert sorted([3, 1]) == [1, 3] and sorted([2, 1]) == [1, 2]", {"sorted"})
    assert p.calls == ["sorted([3, 1])", "sorted([2, 1])"]


def test_a_part_a_test_function_names_as_a_local_is_shared_too() -> None:
    """kind: hack. `row = grid[0]` then `f(row)`: the row f receives is grid's, as in Python."""
    tests = "grid = [[3, 1], [2]]\ndef test_a():\n    row = grid[0]\n    assert f(row) == [1, 3]\n" \
        "    assert grid == [[3, 1], [2]]"  # fmt: skip
    p = plan(tests, frozenset({"f"}))
    assert p.bindings == [["grid__0", "[3, 1]"]] and p.calls == ["f(grid__0)", "grid__0"]


def test_two_inputs_read_back_against_each_other_hold_as_written_too() -> None:
    """kind: hack. After `f(xs, expected)`, `xs == expected` compares two values the program may
    have rewritten alike: each must also hold as the tests wrote it."""
    tests = "xs = [3, 1]\nexpected = [1, 3]\nassert f(xs, expected) is None and xs == expected"
    [expr] = _asserts(plan(tests, frozenset({"f"})))
    assert expr.endswith("and (_v0 is None and [3, 1] == [1, 3])")
