"""itertools' combinatoric iterators as the trusted side offers them to the tests
(`list(combinations(xs, 2))`, `product(range(2), repeat=3)`): bounded, since a pool may be a value
the program returned (past the bounds the assert fails, never the worker's memory)."""

from __future__ import annotations

import functools
import itertools
from typing import Any

MAX_TUPLES = 10**6  # tuples one iterator may yield out here
MAX_SIZE_ARGUMENT = 10**4  # an `r` or a `repeat`
MAX_POOL = 10**7  # elements `product` holds (every pool `repeat` times) before it yields


class TooMany(ValueError):
    """A combinatoric iterator past its bounds: the assert fails."""


def _taken(fn: Any) -> Any:
    """`fn` run out here to at most MAX_TUPLES tuples (past that refused), handed back as an
    iterator, as itertools hands it."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        sizes = [x for x in (*args, *kwargs.values()) if isinstance(x, int)]
        if any(abs(x) > MAX_SIZE_ARGUMENT for x in sizes):
            raise TooMany(f"{fn.__name__}() past the size limit")
        if fn is itertools.product:
            args = tuple(tuple(a) for a in args)
            if sum(map(len, args)) * kwargs.get("repeat", 1) > MAX_POOL:
                raise TooMany("product() past the size limit")
        out = list(itertools.islice(fn(*args, **kwargs), MAX_TUPLES + 1))
        if len(out) > MAX_TUPLES:
            raise TooMany(f"{fn.__name__}() past the size limit")
        return iter(out)

    return call


def combinatorics() -> dict[str, Any]:
    names = "combinations combinations_with_replacement permutations product"
    return {n: _taken(getattr(itertools, n)) for n in names.split()}
