import pytest

from stages.tasks import generate_arithmetic, generate_reversal, has_carry, load_tasks, split_tasks


def test_the_quickstart_family_lists_all_2000_add_and_subtract_problems():
    tasks = generate_arithmetic(2)
    assert len(tasks) == 2000
    assert {t.metadata["op"] for t in tasks} == {"+", "-"}
    assert all(0 <= t.metadata["a"] <= 99 and 0 <= t.metadata["b"] <= 9 for t in tasks)
    by_prompt = {t.prompt: t.answer for t in tasks}
    assert by_prompt["12+7="] == "19"
    assert by_prompt["3-7="] == "-4"


@pytest.mark.parametrize(
    ("a", "b", "op", "expected"),
    [
        (15, 7, "+", True),
        (12, 7, "+", False),
        (95, 5, "+", True),
        (23, 5, "-", True),
        (28, 5, "-", False),
        (3, 7, "-", False),
        (100, 1, "-", True),
    ],
)
def test_carry_and_borrow_flags_follow_column_arithmetic(a, b, op, expected):
    assert has_carry(a, b, op) is expected


def test_each_task_carries_its_carry_flag_as_category_and_metadata():
    for task in generate_arithmetic(2):
        assert task.category == ("carry" if task.metadata["has_carry"] else "no_carry")


def test_split_is_disjoint_deterministic_and_keeps_the_carry_mix():
    tasks = generate_arithmetic(2)
    train, held_out = split_tasks(tasks, train_ratio=0.8, data_seed=42)
    assert (len(train), len(held_out)) == (1600, 400)
    assert not {t.task_id for t in train} & {t.task_id for t in held_out}
    again = split_tasks(list(reversed(tasks)), train_ratio=0.8, data_seed=42)
    assert [t.task_id for t in again[0]] == [t.task_id for t in train]
    other = split_tasks(tasks, train_ratio=0.8, data_seed=7)
    assert {t.task_id for t in other[1]} != {t.task_id for t in held_out}
    share = lambda ts: sum(t.metadata["has_carry"] for t in ts) / len(ts)  # noqa: E731
    assert abs(share(train) - share(held_out)) < 0.01


def test_reversal_family_has_1000_three_digit_strings_split_800_200():
    tasks = generate_reversal()
    assert len(tasks) == 1000
    assert {t.prompt: t.answer for t in tasks}["rev 120="] == "021"
    train, held_out = split_tasks(tasks, 0.8, 42)
    assert (len(train), len(held_out)) == (800, 200)


def test_sampled_levels_are_seeded_and_distinct():
    a = generate_arithmetic(5, n=200, seed=3)
    assert [t.task_id for t in a] == [t.task_id for t in generate_arithmetic(5, n=200, seed=3)]
    assert len({t.task_id for t in a}) == 200
    with pytest.raises(ValueError, match="pass n"):
        generate_arithmetic(5)
    with pytest.raises(ValueError, match="difficulty"):
        generate_arithmetic(9)


def test_generate_specs_load_through_the_dispatcher():
    assert len(load_tasks("generate:arithmetic?difficulty=2")) == 2000
    assert len(load_tasks("generate:arithmetic?difficulty=3&n=50&seed=1")) == 50
    assert load_tasks("generate:reverse?template=r{s}=")[5].prompt == "r005="
