"""Layout between a doubt and the answer it doubts (red team round 20). A markdown heading
(`## Final Answer`), a bold-only line (`**Final Answer**`), a horizontal rule (`---`, `***`,
`<hr>`), a blank line or a run of bare marks carries no sentence of its own: the doubt check reads
through it to the last real sentence before it, and reads the heading's words too (`## Tentative
answer`). An answer label followed by question marks (`Answer???`, `Final answer?!`) asks whether
the answer is right."""

from __future__ import annotations

import re

from stages.verifiers.math_context import sentence_start

MAX_LINES = 32  # headings and rules read through before one answer
MAX_MARKS = 2000  # a longer run of bare marks before an answer is padding, not layout
# Marks that say nothing (rules, emphasis, closing punctuation); a symbol ("❌", "🤞") says something.
_MARKS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~—–―─━")
# A line that is a heading or starts with emphasis, once its trailing marks are skipped
# ("## Final Answer", "**Final Answer", "__Answer"): read for doubt, then read through.
_HEADING = re.compile(r"[ \t>]*(?:#{1,6}|\*\*|__|<h[1-6][^>\n]{0,40}>)[^\n]{0,200}")
# An answer label and a run of question marks (and exclamation marks) after it, up to the answer.
_LABEL_QUERY = re.compile(
    r"(?i)(?<![\w])(?:final[ \t]+)?(?:answer|result|solution)s?[ \t*_#:()\[\]]*"
    r"[?？‽][?!？！‽ \t()\[\]*_:]*[$\s]*(?:\\\(|\\\[)?[ \t]*\Z"
)


def _skip_marks(body: str, before: int) -> int | None:
    """Where the run of blank characters and `_MARKS` (rules, closing marks) ending at `before`
    starts; None when it is longer than `MAX_MARKS` (padding)."""
    stop = max(0, before - MAX_MARKS)
    while before > stop and (body[before - 1].isspace() or body[before - 1] in _MARKS):
        before -= 1
    return None if before == stop and stop > 0 else before


def previous_sentences(body: str, own: int) -> str | None:
    """The last real sentence before the sentence starting at `own`, with the words of every
    heading between them; None when padding stands there instead."""
    before: int | None = own
    headings: list[str] = []
    for _ in range(MAX_LINES):
        before = _skip_marks(body, before)
        if before is None:
            return None
        line_start = body.rfind("\n", 0, before) + 1
        if before == 0 or not _HEADING.fullmatch(body, line_start, before):
            break
        headings.append(body[line_start:before])
        before = line_start
    sentence = body[sentence_start(body, before - 1) : before] if before else ""
    return " ".join([sentence, *headings])


def label_query(body: str, start: int) -> str | None:
    """The answer label with question marks right before `start` ("Answer??? \\boxed{5}")."""
    found = _LABEL_QUERY.search(body, max(0, start - 80), start)
    return found.group().strip() if found else None
