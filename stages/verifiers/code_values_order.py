"""Program values whose Python meaning rests on the program's own object, not on its items: a
set's iteration order and a builtin function's identity (red team round 18).

A set comes back as its items in the program's iteration order and is rebuilt out here by
insertion, which may lay out its table otherwise (a large table the program shrank by removals,
string hashes under another seed): then a join, an f-string, a `list()` or a `pop()` over it
would read another order than Python. So a rebuilt set that iterates otherwise than the
program's is unverifiable, and `pop()` of a set of two items or more is (which item it takes
depends on where the program's own set last popped). Both sides hash strings under one fixed
seed (`sandbox`, `pool`), so a set of strings rebuilt out here iterates as the program's did."""

from __future__ import annotations

from typing import Any

from stages.verifiers.code_verdict_errors import UnsupportedValue


def in_program_order(made: Any, items: list[Any]) -> Any:
    """`made` (a set or frozenset of `items`) when it iterates as the program's did, else an
    UnsupportedValue."""
    if len(made) > 1 and any(a is not b for a, b in zip(made, items, strict=False)):
        return UnsupportedValue("set whose iteration order out here differs from the program's")
    return made


def builtin_function(module: Any, name: Any) -> Any:
    """A builtin function the program returned (`len`, `operator.add`), as the trusted side binds
    that name, so `is` and `==` against the tests' own name hold as in Python; a name the trusted
    side does not offer is unverifiable."""
    from stages.verifiers.code_trusted import TRUSTED_BUILTINS, TRUSTED_MODULES

    owners = {"builtins": TRUSTED_BUILTINS, "math": vars(TRUSTED_MODULES["math"]),
              "cmath": vars(TRUSTED_MODULES["cmath"]),
              "_operator": vars(TRUSTED_MODULES["operator"])}  # fmt: skip
    found = owners.get(str(module), {}).get(name) if isinstance(name, str) else None
    if found is None:
        return UnsupportedValue(f"builtin {str(module)[:20]}.{str(name)[:40]} the trusted side "
                                "does not offer")  # fmt: skip
    return found
