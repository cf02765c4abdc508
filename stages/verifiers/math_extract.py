"""Finding the one final answer a response commits to. Strict by construction: an answer counts only
where the response commits to it in a recognised form (`\\boxed{}`, `####`, an `Answer:` line, "the
answer is ...", or a response that is itself one answer or ends in a sentence stating one) and the
parser consumes that answer whole, a unit from the closed list aside. Extra words, operators,
hedges, negations, ranges, bounds, several different finals, or any other value stated after the
final answer leave no answer, with the reason. Only text after the last `</think>` is read.

Every pattern here is bounded (no unbounded lazy scans, no nested quantifiers), braces are matched
in one pass and each answer text is read within `max_chars`, so a megabyte is read in linear time."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from stages.verifiers.math_box_nouns import counted_in_box, scaled_in_box
from stages.verifiers.math_choice import choice_key, restated_choice, restates_choice
from stages.verifiers.math_commit import (
    WINDOW,
    doubt_before,
    named_count,
    tail_problem,
)
from stages.verifiers.math_competing import competing_value
from stages.verifiers.math_confusables import compact_blank, drop_invisible
from stages.verifiers.math_context import (
    has_value,
    sentence_end,
    sentence_start,
    strip_filler,
    unescaped,
    visible_text,
)
from stages.verifiers.math_exact import factorial_after
from stages.verifiers.math_explain import same_value
from stages.verifiers.math_prefix import EQUIV_GAP, LIST_GAP, Final, check_prefix, grammar_problem
from stages.verifiers.math_prose import bare_answer, final_sentence_answer, stated_in_sentence
from stages.verifiers.math_read import ReadError, answer_key, read
from stages.verifiers.math_spans import (  # noqa: F401 - boxed_spans, math_envs: public here too
    MAX_FINALS,
    bounded_boxes,
    boxed_contents,
    boxed_spans,
    matching_braces,
    math_env_spans,
    math_envs,
    unboxed,
)
from stages.verifiers.math_weak import weak_finals

_MARKER = re.compile(
    r"(?im)(?P<line>^[ \t>*_#-]*(?:final[ \t]+)?answer(?:[ \t*_]*[:：]|[ \t]+(?=\$|\\\(|\\\[)"
    # a label alone on its line ("**Final Answer**", "## Answer"): the value is on the next
    # line, a final like any other (round 20)
    r"|(?P<alone>[ \t*_#]*(?=\r?\n))))"
    r"[ \t*_]*"
    r"|(?P<hash>^[ \t]*####)[ \t]*"
    r"|(?P<phrase>\b(?:final[ \t]+|correct[ \t]+)?answers?[ \t]+(?:is|are|would[ \t]+be"
    r"|will[ \t]+be|should[ \t]+be|=)(?![\w])"
    # an adverb the commitment grammar admits after its verb ("the answer is now 45")
    r"(?:[ \t]+(?:now|still|therefore|thus|then|simply|just|exactly|precisely|indeed|clearly"
    r"|hence)(?![\w]))?(?:[ \t]+(?:option|choice|letter)"
    # "the answer is option B", "option $\boxed{(C)}$": only before a choice's letter (round 21)
    r"(?=[ \t]*[$(\\]*(?:boxed\{)?[ \t]*\(?[A-E]\)?[ \t]*\}?(?![\w{])))?)[ \t]*:?[ \t]*"
)
# a full stop is trimmed, never an ellipsis: "2.7..." goes on (`math_normalise` refuses it)
_WRAPPERS = re.compile(r"^(?:\s|\$|\\\(|\\\[|\*\*)+|(?:\s|\$|\\\)|\\\]|\*\*|(?<!\.\.)\.(?!\.))+$")
# A unit may follow a box and is read with it ("\\boxed{5} cm", "$\\boxed{28}$ pct", across a
# spacing command "\\boxed{6}\\,\\text{m}"); the rest of the sentence is checked like any text
# after a final answer (`math_commit.tail_problem`).
_AFTER_BOX = re.compile(r"[ \t]*(?:\$|\\\)|\\\])?[ \t]*(?:\\[,;: ][ \t]*){0,2}(?P<word>\\?%|°|\\text\s*\{[^{}\n]{0,40}\}"
                        r"|\\mathrm\s*\{[^{}\n]{0,40}\}|[A-Za-z][A-Za-z/]{0,30}(?:\^\{?\d\}?)?"
                        r"(?:[ \t]+[A-Za-z]{1,30}){0,2})?")  # fmt: skip
_BOX_LABEL = re.compile(
    r"(?:(?<=[\s$(])|^)(?P<name>[A-Za-z](?:_\{?[A-Za-z0-9]{1,4}\}?)?)[ \t]*=[ \t]*$"
)
_OPERATORS = frozenset("+-*/^_=<>|")
_OR_GAP = re.compile(r"(?<![a-z])or(?![a-z])")
_CLOSE = re.compile(r"[ \t]*(?:\$\$?|\\\)|\\\])?")
MAX_BARE_CHARS = 400


@dataclass(frozen=True)
class Extraction:
    """The answer text found (None when extraction failed) and why."""

    text: str | None
    mode: str
    # "no_answer" | "hedge" | "conflicting" | "not_one_answer" | "retracted" | "too_long" | "think"
    problem: str = ""
    reason: str = ""
    several: tuple[str, ...] = ()  # distinct boxed finals, kept for a set/list reference to match
    several_or: bool = False  # an "or" joins two of them ("x = 3 or y = 5" labels no tuple)
    position: int = -1  # where in the response the answer starts
    tail: str = ""  # the rest of the answer's sentence ("oranges."): what a count names


def _box_final(body: str, start: int, end: int, inner: str) -> Final:
    """The final a box states, with a unit that follows it read as part of it and a label before
    it ("$y_1 = \\boxed{3}$" states y_1 = 3)."""
    label = _BOX_LABEL.search(body, max(0, start - 40), start)
    if label and body[: label.start()].rstrip()[-1:] in _OPERATORS:
        label = None  # "$a + b = \\boxed{7}$": b is an operand, not the answer's label
    if label:
        start, inner = label.start(), f"{label.group('name')} = {inner}"
    m = _AFTER_BOX.match(body, end)
    words = ((m.group("word") or "") if m else "").split()
    for n in range(len(words), 0, -1):  # "square feet" before "square"
        candidate = " ".join(words[:n])
        try:
            with_unit = read(f"{inner} {candidate}")
        except ReadError:
            continue
        if with_unit.unit is not None or with_unit.node[0] == "pct":
            stop = body.index(words[n - 1], end) + len(words[n - 1])
            return Final(start, stop, f"{inner} {candidate}", "boxed")
    return Final(start, end, inner, "boxed")


def _markers(body: str) -> list[re.Match[str]] | str:
    """Every answer marker, found by running `_MARKER` only around the words it needs ("answer",
    "####"): a case-insensitive scan of a whole megabyte would take most of the time budget."""
    low = body.lower()
    if len(low) != len(body):  # a letter whose lower case is longer ("İ"): scan it all
        found = list(_MARKER.finditer(body))
        return found if len(found) <= MAX_FINALS else f"more than {MAX_FINALS} final answers"
    windows: list[tuple[int, int]] = []
    for word in ("answer", "####"):
        i = low.find(word)
        while i >= 0:
            windows.append((max(0, i - 40), i + 60))
            if len(windows) > 4 * MAX_FINALS:
                return f"more than {MAX_FINALS} final answers"
            i = low.find(word, i + len(word))
    found: dict[int, re.Match[str]] = {}
    for lo, hi in sorted(windows):
        for m in _MARKER.finditer(body, lo, hi):
            found.setdefault(m.start(), m)
    if len(found) > MAX_FINALS:
        return f"more than {MAX_FINALS} final answers"
    return [found[k] for k in sorted(found)]


def _marked_finals(body: str, max_chars: int) -> list[Final] | str:
    markers = _markers(body)
    if isinstance(markers, str):
        return markers
    finals: list[Final] = []
    for k, m in enumerate(markers):
        kind = "####" if m.group("hash") else "answer_line"
        text_start = m.end()
        if kind == "answer_line" and body[text_start : text_start + 1] in ("\n", ""):
            text_start = len(body) - len(body[text_start:].lstrip())  # "Answer:\n\n5"
        if kind == "####":
            line_end = body.find("\n", text_start, text_start + max_chars + 2)
            text_end = len(body) if line_end < 0 else line_end
            if line_end < 0 and len(body) - text_start > max_chars + 1:
                return f"answer longer than {max_chars} chars"
        else:
            found_end = sentence_end(body, text_start, max_chars)
            if found_end is None:
                return f"answer longer than {max_chars} chars"
            text_end = found_end
        if k + 1 < len(markers) and markers[k + 1].start() == text_start:
            continue  # "Final Answer: The final answer is 34": the inner one states it
        text = body[text_start:text_end]
        alone = m.group("alone") is not None
        if alone and (not has_value(text) or boxed_spans(text)):
            continue  # "## Answer\n\nWe first ...": a section heading, its finals read below
        if not text.strip():
            return "an answer marker with nothing after it"
        inner = _math_with_unit(text, body[: m.start()]) or _WRAPPERS.sub("", text)
        spans = boxed_spans(inner)
        # "The answer is \boxed{\frac12} or equivalently \boxed{0.5}": boxes restating one
        # value are read as boxes, whose gap and values are checked there (round 15)
        restated = all(
            EQUIV_GAP.match(inner[a[1] : b[0]]) for a, b in zip(spans, spans[1:], strict=False)
        )
        rest = inner[spans[-1][1] :] if spans and spans[0][0] == 0 and restated else None
        if rest is not None and _unit_only(rest, spans[-1][2], body[: m.start()]):
            continue  # "The answer is $\boxed{5}$ meters.": the box (and its unit) is the final
        if rest is not None and restates_choice(spans[-1][2], rest):
            continue  # "is $\boxed{\textbf{(C)}}$, i.e. 12.": the box, its value read in `_agree`
        own = sentence_start(body, m.start())
        cue = (
            doubt_before(body, m.end())
            or (None if alone else grammar_problem(body, own, body[own : m.end()]))
            or competing_value(body, m.end(), unboxed(inner))
        )
        if cue:
            return cue
        finals.append(Final(m.start(), text_end, unboxed(inner), kind))
    return finals


def _math_with_unit(text: str, earlier: str) -> str | None:
    """ "$5$ hours": an answer line's one inline formula, then a unit of the closed list outside
    it, read as "5 hours" (as "5 hours" is); None for any other text (red team round 19). A word
    problem's own noun spoken of before (`named_count`) reads the same way: "$12$ apples" is "12
    apples", whose noun is then checked as in plain text (round 21's m21-027)."""
    stripped = text.strip()
    spans = math_env_spans(stripped)
    if len(spans) != 1 or spans[0][0] != 0:
        return None
    rest = stripped[spans[0][1] :].rstrip(" \t.")
    if not rest or any(c in rest for c in "$\\"):
        return None
    if named_count(rest.strip(), earlier):
        return f"{spans[0][2]} {rest.strip()}"
    try:
        return f"{spans[0][2]} {rest}" if read(f"{spans[0][2]} {rest}").unit is not None else None
    except ReadError:
        return None


def _unit_only(rest: str, inner: str, earlier: str) -> bool:
    """What follows a box inside an answer line is nothing, a unit read with it ("meters"), or a
    word problem's own noun spoken of before (`math_commit.named_count`: "apples")."""
    rest = rest.strip(" \t$")
    if not rest or named_count(rest, earlier):
        return True
    try:
        return read(f"{inner} {rest}").unit is not None
    except ReadError:
        return False


def _finals(body: str, modes: Sequence[str], max_chars: int) -> list[Final] | str:
    found: list[Final] = []
    if "answer_line" in modes:
        marked = _marked_finals(body, max_chars)
        if isinstance(marked, str):
            return marked
        found += marked
        weak = weak_finals(body)
        if isinstance(weak, str):
            return weak
        found += [
            Final(start, end, text, "answer_line", weak=True)
            for start, end, text in weak
            if not any(f.start <= start < f.end for f in found)
        ]
    if "boxed" in modes:
        boxes = bounded_boxes(body, max_chars)
        if isinstance(boxes, str):
            return boxes
        for start, end, inner in boxes:
            if any(f.start <= start < f.end for f in found):
                continue  # a box inside an answer line is read with it
            found.append(_box_final(body, start, end, inner))
    if not found:
        return found
    found.sort(key=lambda f: f.start)
    # The last commitment decides: "approximately $\boxed{16386.16}$ ... Final Answer: The final
    # answer is 16386.16" is a clean final; the boxes of the last list are checked together.
    k = len(found) - 1
    while k > 0 and found[k].kind == found[k - 1].kind == "boxed":
        gap = body[found[k - 1].end : found[k].start]
        if not (LIST_GAP.match(gap) or EQUIV_GAP.match(gap)):
            break
        k -= 1
    for j in range(k, len(found)):
        if found[j].kind == "boxed" or found[j].weak:
            problem = check_prefix(body, found[j], found[j - 1] if j > k else None)
            if problem:
                return problem
    return found


def _sentence_line(final: Final, body: str) -> Final:
    """ "Final Answer: The largest $n$ is 34": an answer line that is a sentence stating one
    answer in a closed form (`math_prose`) states that answer."""
    if final.kind != "answer_line":
        return final
    try:
        read(final.text)
        return final
    except ReadError:
        stated = stated_in_sentence(
            final.text.strip(), ("latex",), marked=True, earlier=body[: final.start]
        )
        return final if stated is None else Final(final.start, final.end, stated[0], final.kind)


def _agree(body: str, finals: list[Final]) -> Extraction:
    mode = "+".join(sorted({f.kind for f in finals}))
    written = finals[-1].text
    finals = [_sentence_line(scaled_in_box(counted_in_box(f, body)), body) for f in finals]
    restated = restated_choice(finals[-1].text, body[finals[-1].end :])
    if restated is not None:  # "\\boxed{\\textbf{(C)}}, i.e. 12.": the choice and its value
        last = finals[-1]
        finals[-1] = Final(last.start, last.end + restated[1], restated[0], last.kind, last.weak)
    keys: dict[object, str] = {}
    for final in finals:
        try:
            keys.setdefault(answer_key(final.text), final.text)
        except ReadError as e:
            chosen = choice_key(final.text)  # "\\textbf{(C)}\\ 12": `math_choice` judges it
            if chosen is not None:
                keys.setdefault(chosen, final.text)
                continue
            return Extraction(
                None, mode, "not_one_answer", f"the {final.kind} answer is not one answer: {e}"
            )
    for final in finals:  # "$\boxed{5}!$", "$\boxed{5}\,!$", "is 5!": 120, not 5
        if factorial_after(body, final.end, final.kind == "boxed"):
            return Extraction(None, mode, "not_one_answer", "a '!' (factorial) follows the answer")
    last = finals[-1]
    after = _CLOSE.match(body, last.end).end()  # type: ignore[union-attr]
    end = sentence_end(body, after, WINDOW)
    end = min(len(body), after + WINDOW) if end is None else min(len(body), end + 1)
    one = len(keys) == 1 or same_value(list(keys.values()))
    problem = tail_problem(
        body[after:end], body[end:], last.text if one else None, body[: last.start]
    )
    if problem:
        return Extraction(None, mode, "retracted", problem)
    if len(keys) == 1 or same_value(list(keys.values())):  # "\\boxed{\\frac12} or \\boxed{0.5}"
        tail = _after_value(written, last.text) + body[after:end]
        return Extraction(last.text.strip(), mode, position=last.start, tail=tail)
    texts = tuple(keys.values())
    several = ()
    gaps = [body[a.end : b.start] for a, b in zip(finals, finals[1:], strict=False)]
    if all(f.kind == "boxed" for f in finals) and all(LIST_GAP.match(gap) for gap in gaps):
        several = texts  # "\boxed{2} and \boxed{3}", "\boxed{5} or \boxed{-5}": a set reference
    return Extraction(
        None,
        mode,
        "conflicting",
        f"several different final answers in {mode}: {list(texts[:3])}",
        several=several,
        several_or=any(_OR_GAP.search(gap) for gap in gaps),
    )


def _after_value(text: str, value: str) -> str:
    """What follows the stated `value` in an answer's own `text` ("Final Answer: 18 oranges" states
    18; "oranges" is what it counts); nothing when the text is the value."""
    i = text.rfind(value.strip()) if value.strip() else -1
    return "" if i < 0 else text[i + len(value.strip()) :]


def reference_final(text: str) -> str | None:
    """The final answer a trusted worked solution states last ("... Final Answer: The final answer
    is $28\\%$. I hope it is correct. Note: ..."), read leniently; None when it states none."""
    last = None
    for last in _MARKER.finditer(text):  # noqa: B007 - the last one is wanted
        pass
    if last is None:
        return None
    end = sentence_end(text, last.end(), len(text)) or len(text)
    answer = _WRAPPERS.sub("", unboxed(text[last.end() : end]))
    return answer or None


def extract_answer(response: str, modes: Sequence[str], max_chars: int = 400) -> Extraction:
    """Finals (boxed, answer lines, ####) first, read together; otherwise a response that is one
    answer, or whose last sentence states one ('latex', 'last_number'), or the whole ('whole')."""
    unknown = set(modes) - {"boxed", "answer_line", "latex", "last_number", "whole"}
    if unknown:
        raise ValueError(f"unknown extraction mode {sorted(unknown)[0]!r}")
    # One normalisation up front: every window and position below is measured on what a reader
    # sees, so invisible characters or blank padding cannot push a doubt out of it (round 20).
    body, why = visible_text(compact_blank(drop_invisible(unescaped(response))))
    if body is None:
        return Extraction(None, "none", "think", why)
    finals = _finals(body, modes, max_chars)
    if isinstance(finals, str):
        problem = "too_long" if "longer than" in finals else "not_one_answer"
        return Extraction(None, "finals", problem, finals)
    if finals:
        return _agree(body, finals)
    if "whole" in modes:
        text = body.strip()
        if not text:
            return Extraction(None, "whole", "no_answer", "empty response")
        if len(text) > max_chars:
            return Extraction(None, "whole", "too_long", f"answer longer than {max_chars} chars")
        return Extraction(text, "whole")
    text = strip_filler(body).strip()
    if not text:
        return Extraction(None, "none", "no_answer", "no final answer found")
    if "latex" not in modes and "last_number" not in modes:
        return Extraction(None, "none", "no_answer", "no final answer found")
    limit = min(max_chars, MAX_BARE_CHARS)
    found = bare_answer(text, modes, limit) or final_sentence_answer(text, modes, limit)
    if found is not None:
        answer, mode = found
        tail = _after_value(text, answer)  # "He has 18 oranges.": the count's noun follows
        return Extraction(answer, mode, position=len(body) - len(answer), tail=tail)
    if len(text) <= limit and "\n" not in text:
        try:  # a one-line response that is not one answer: say why ("3 or 4", "84 85")
            read(text)
        except ReadError as e:
            if has_value(text):
                return Extraction(None, "none", "not_one_answer", f"not one answer: {e}")
    return Extraction(None, "none", "no_answer", "no final answer found")
