"""The noun a final answer counts against the one its reference counts. A trusted reference may
name what it counts ("18 apples", "3 \\text{ years}"); a response whose final answer is followed
by another noun ("\\boxed{18} oranges", "\\boxed{3} decades", "\\boxed{5} dimes") states another
quantity, even when the number is the same (round 15). Units the grammar knows are compared (and
converted) by `math_units`; this covers the nouns it does not know."""

from __future__ import annotations

import re

# A reference's number followed by the words that name what it counts, plain or in a text command.
_REFERENCE_NOUN = re.compile(
    r".{0,200}?[\d}]\s*(?:\\(?:text|mathrm|textnormal)\s*\{\s*(?P<tex>[A-Za-z][A-Za-z ]{0,60})"
    r"\}|(?P<plain>[A-Za-z][A-Za-z ]{0,60}))\s*\.?"
)
# The words after an answer that end its noun phrase ("apples in total", "decades in all").
_PHRASE_END = frozenset(
    ["in", "left", "over", "remaining", "altogether", "total", "all", "for", "of", "per", "a", "an"]
)
_WORDS = re.compile(r"[A-Za-z]{1,30}(?:-[A-Za-z]{1,30})*")
_LEADING = re.compile(r"[\s$*_]*(?:\\text\s*\{\s*)?(?P<run>[A-Za-z][A-Za-z -]{0,120})")


def reference_noun(reference: str) -> str | None:
    """The last word a reference names after its number ("apples" in "18 red apples"), or None."""
    m = _REFERENCE_NOUN.fullmatch(reference.strip())
    if m is None:
        return None
    words = _WORDS.findall(m.group("tex") or m.group("plain"))
    return words[-1].lower() if words else None


def noun_conflict(tail: str, reference: str) -> str | None:
    """Why the noun right after the final answer (`tail`, the rest of its sentence) is not the one
    the reference counts; None when the reference names none, or the answer names none or the
    same one (either number)."""
    wanted = reference_noun(reference)
    if wanted is None:
        return None
    m = _LEADING.match(tail)
    if m is None:
        return None
    run: list[str] = []
    for word in _WORDS.findall(m.group("run")):
        if word.lower() in _PHRASE_END:
            break
        run.append(word.lower())
    if not run or _same_noun(run[-1], wanted):
        return None
    return f"the answer counts {run[-1]!r}, the reference {wanted!r}"


def _same_noun(a: str, b: str) -> bool:
    """One noun in its singular and plural ("apple", "apples"; "box", "boxes"; "penny", "pennies")."""
    return (
        a == b
        or any(x + end == y for x, y in ((a, b), (b, a)) for end in ("s", "es"))
        or (a[:-1] + "ies" == b or b[:-1] + "ies" == a)
    )
