"""A `re.Match` the program returned, as plain data: its groups, their spans and its named groups,
read in the sandbox by the Match's own methods (a C type no program can fake). Out here it answers
what the tests ask a Match (its truth, `group`, `groups`, `span`, `start`, `end`, `groupdict`,
`m[i]`); anything else it is asked makes the task unverifiable. Like a Match it equals only
itself."""

from __future__ import annotations

from typing import Any

from stages.verifiers.code_trusted import Unverifiable


class MatchValue:
    """The stand-in: always true, as a Match is (`assert f('3abc')`; no match is None)."""

    def __init__(self, groups: list[Any], spans: list[tuple[int, int]], named: dict[str, int]):
        self._groups, self._spans, self._named = groups, spans, named

    def __bool__(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:  # m.lastindex, m.string, ...: never sent back
        if name.startswith("__"):
            raise AttributeError(name)
        raise Unverifiable(f"Match.{name} is not sent back from the sandbox")

    def _index(self, group: int | str) -> int:
        if isinstance(group, str) and group in self._named:
            return self._named[group]
        if type(group) is not int or not 0 <= group < len(self._groups):
            raise IndexError("no such group")
        return group

    def group(self, *groups: int | str) -> Any:
        if len(groups) > 1:
            return tuple(self.group(g) for g in groups)
        return self._groups[self._index(groups[0] if groups else 0)]

    def __getitem__(self, group: int | str) -> Any:
        return self.group(group)

    def groups(self, default: Any = None) -> tuple[Any, ...]:
        return tuple(default if g is None else g for g in self._groups[1:])

    def groupdict(self, default: Any = None) -> dict[str, Any]:
        return {k: self.group(k) if self.group(k) is not None else default for k in self._named}

    def span(self, group: int = 0) -> tuple[int, int]:
        return self._spans[self._index(group)]

    def start(self, group: int = 0) -> int:
        return self.span(group)[0]

    def end(self, group: int = 0) -> int:
        return self.span(group)[1]

    def __repr__(self) -> str:
        return f"<re.Match object; span={self._spans[0]!r}, match={self._groups[0]!r}>"


def decode_match(raw: Any, decode: Any) -> MatchValue:
    """`{"rm": [groups, spans, [[name, number]]]}` as the harness wrote it (ValueError when
    malformed)."""
    if not isinstance(raw, list) or len(raw) != 3 or not all(isinstance(x, list) for x in raw):
        raise ValueError("malformed match")
    groups = [decode(g) for g in raw[0]]
    spans = [tuple(s) for s in raw[1] if isinstance(s, list) and len(s) == 2]
    named = {str(p[0]): p[1] for p in raw[2] if isinstance(p, list) and len(p) == 2}
    ints = [n for s in spans for n in s] + list(named.values())
    if not groups or len(spans) != len(groups) or len(named) != len(raw[2]):
        raise ValueError("malformed match")
    if any(type(n) is not int for n in ints) or any(
        not 0 < n < len(groups) for n in named.values()
    ):
        raise ValueError("malformed match")
    if not all(g is None or isinstance(g, (str, bytes)) for g in groups):
        raise ValueError("malformed match")
    return MatchValue(groups, spans, named)  # type: ignore[arg-type]
