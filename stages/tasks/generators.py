"""Built-in task generators, deterministic for a given seed, and the train/held-out split.

The quickstart families: `a+b=` / `a-b=` with a in 0..99 and
b in 0..9 (2,000 problems, flagged by carry/borrow), and reversing a 3-digit string (1,000 problems),
the capability benchmark that RL never trains on. Prompts are short plain strings: "12+7=" -> "19".
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from stages.tasks.types import Task

# difficulty -> (a range, b range, operators); level 2 is the quickstart family.
ARITHMETIC_LEVELS: dict[int, tuple[range, range, str]] = {
    1: (range(0, 10), range(0, 10), "+-"),
    2: (range(0, 100), range(0, 10), "+-"),
    3: (range(0, 100), range(0, 100), "+-"),
    4: (range(0, 1000), range(0, 100), "+-*"),
    5: (range(0, 1000), range(0, 1000), "+-*"),
}


def has_carry(a: int, b: int, op: str) -> bool:
    """True when column arithmetic needs a carry (+) or a borrow (-): the step a model can forget."""
    if op == "+":
        while a or b:
            if a % 10 + b % 10 >= 10:
                return True
            a, b = a // 10, b // 10
        return False
    if op == "-":
        hi, lo = max(a, b), min(a, b)
        while lo:
            if hi % 10 < lo % 10:
                return True
            hi, lo = hi // 10, lo // 10
        return False
    return False


def _arith_task(a: int, b: int, op: str, difficulty: int) -> Task:
    value = a + b if op == "+" else a - b if op == "-" else a * b
    carry = has_carry(a, b, op)
    return Task(
        task_id=f"arith-{a}{op}{b}",
        family="arithmetic",
        prompt=f"{a}{op}{b}=",
        answer=str(value),
        category=("carry" if carry else "no_carry") if op in "+-" else "multiply",
        difficulty=difficulty,
        metadata={"a": a, "b": b, "op": op, "has_carry": carry},
    )


def generate_arithmetic(difficulty: int = 2, n: int | None = None, seed: int = 0) -> list[Task]:
    """Arithmetic tasks of one difficulty level. With `n=None` every problem of the level is listed
    (level 2: all 2,000 `a+b=` / `a-b=` problems); otherwise `n` distinct ones drawn with `seed`."""
    if difficulty not in ARITHMETIC_LEVELS:
        raise ValueError(f"difficulty must be one of {sorted(ARITHMETIC_LEVELS)}, got {difficulty}")
    a_range, b_range, ops = ARITHMETIC_LEVELS[difficulty]
    space = len(a_range) * len(b_range) * len(ops)
    if n is None:
        if space > 50_000:
            raise ValueError(f"difficulty {difficulty} has {space} problems: pass n to sample")
        indices: Sequence[int] = range(space)
    else:
        if not 0 < n <= space:
            raise ValueError(f"n must be in 1..{space} for difficulty {difficulty}, got {n}")
        indices = sorted(random.Random(seed).sample(range(space), n))
    tasks = []
    for i in indices:
        op_i, rest = divmod(i, len(a_range) * len(b_range))
        a_i, b_i = divmod(rest, len(b_range))
        tasks.append(_arith_task(a_range[a_i], b_range[b_i], ops[op_i], difficulty))
    return tasks


def generate_reversal(template: str = "rev {s}=") -> list[Task]:
    """All 1,000 three-digit strings "000".."999"; the answer is the string reversed (exact match)."""
    if "{s}" not in template:
        raise ValueError(f"template must contain {{s}}, got {template!r}")
    return [
        Task(
            task_id=f"rev-{s}",
            family="reverse",
            prompt=template.format(s=s),
            answer=s[::-1],
            category="reverse",
            difficulty=1,
        )
        for s in (f"{i:03d}" for i in range(1000))
    ]


def split_tasks(
    tasks: Sequence[Task], train_ratio: float = 0.8, data_seed: int = 42
) -> tuple[list[Task], list[Task]]:
    """Disjoint (train, held_out) split, stratified by category so both halves keep the same mix
    (e.g. carry vs no-carry). Depends only on the task ids, the ratio and the seed."""
    if not 0.0 < train_ratio < 1.0:
        raise ValueError(f"train_ratio must be in (0, 1), got {train_ratio}")
    ids = [t.task_id for t in tasks]
    if len(set(ids)) != len(ids):
        raise ValueError("task ids must be unique to split")
    by_category: dict[str, list[Task]] = {}
    for task in sorted(tasks, key=lambda t: t.task_id):
        by_category.setdefault(task.category, []).append(task)
    rng = random.Random(data_seed)
    train, held_out = [], []
    for category in sorted(by_category):
        group = by_category[category]
        rng.shuffle(group)
        cut = round(len(group) * train_ratio)
        train.extend(group[:cut])
        held_out.extend(group[cut:])
    return train, held_out
