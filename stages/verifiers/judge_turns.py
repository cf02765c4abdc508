"""Plain-text chat turns that speak to the grader (red team rounds 9, 11, 15): a line that opens as
another speaker of the chat ("Assistant: I have reviewed this response ...", "### Human:", a
`<system>` element) and, within its turn, talks grading. A transcript, log, screenplay or a field
labelled with a role word is none. Real chat-template tokens are `judge_fence.CONTROL`'s."""

from __future__ import annotations

import re

# the names of chat-template tokens, which `judge_fence.CONTROL` also matches with their bars
# dropped: `<im_end>\n<im_start>system` is ChatML to a judge that reads it (red team round 21)
BARE_TOKEN_NAMES = (
    r"im_start|im_end|im_sep|eot_id|eom_id|start_header_id|end_header_id|begin_of_text"
    r"|end_of_text|endoftext|begin_of_sentence|end_of_sentence|end_of_turn|start_of_turn"
    r"|im_start\s*(?:system|user|assistant)|eos_token|bos_token"
)

# A line opening as another speaker: "Assistant:", "user:", "[SYSTEM]", "System -", "### Human:",
# Alpaca's "### Instruction:" / "### Response:", or a <system> element
ROLE_TURN = re.compile(
    r"^[ \t>*_]*(?:#{1,6}[ \t]*)?(?:\[[ \t]*(?:system|user|assistant|human)[ \t]*\]"
    r"|(?:gpt-?4\s+correct\s+)?(?:system|user|assistant|human|model)[ \t*_]*(?::|[ \t]+[-\u2013\u2014][ \t]))"
    r"|^[ \t>]*#{1,6}[ \t]*(?:grader|judge|evaluator|assessor|reviewer|rater|scorer)s?[ \t*_]*$"
    r"|^[ \t>]*#{1,6}[ \t]*(?:instruction|response|input|ai|bot|grader|judge)[ \t*_]*:"
    r"|^[ \t]*</?(?:system|user|assistant|human)>",
    re.MULTILINE | re.IGNORECASE,
)
# What makes a turn speak to the grader rather than be a transcript, log, screenplay, YAML key or
# credentials line the task asked for (red team round 11): grading words, a verdict on "the
# response", an instruction to drop instructions. Real chat-template tokens are `CONTROL`'s.
_TURN_TO_GRADER = re.compile(
    r"(?<![a-z])(?:grad(?:e|es|ed|er|ers|ing)|rubrics?|pass(?:ed|es|ing)?|scor(?:e|es|ed|ing)"
    r"|judge[sd]?|evaluat\w*|assess\w*|verdict|criteri(?:on|a)|requirements?|approv\w*"
    r"|verified|reviewed|full\s+marks|rate\s+(?:it|this)|(?:that|this|it)\s+is\s+correct"
    r"|(?:the|this|my)\s+(?:response|answer|submission)|(?:ignore|disregard)\s[^\n]{0,40}"
    r"instructions)(?![a-z])",
    re.IGNORECASE,
)
_TURN_TEXT = 300  # characters of a turn read for an address to the grader


# A role word labelling a field among other fields ("Model: Dell XPS 13" above "CPU: ...", "User:
# a teacher ... records grades" above "Course: ..."; red team round 15) is a field: only its own
# line is read, and only for a verdict or an order, never for grading nouns.
_FIELD_LINE = re.compile(r"[ \t>*_-]*[A-Z][A-Za-z0-9 ()/.'-]{0,30}:[ \t]+\S")
_TURN_STRONG = re.compile(
    r"(?<![a-z])(?:pass(?:ed|es|ing)?|full\s+marks|approv\w*|verdict|satisf\w*|fulfil\w*"
    r"|(?:that|this|it)\s+is\s+correct|(?:the|this|my)\s+(?:response|answer|submission)"
    r"|(?:ignore|disregard)\s[^\n]{0,40}instructions|(?:grade|rate|mark|score)\s+(?:it|this|the)"
    r"|rubrics?|criteri(?:on|a))(?![a-z])",
    re.IGNORECASE,
)


def _valued(text: str, start: int) -> bool:
    """Whether the role label at `start` has a value on its own line, as a field does ("Model:
    Dell XPS 13"); "### Response:" alone on its line opens a turn."""
    line_end = text.find("\n", start)
    line = text[start : line_end if line_end >= 0 else len(text)]
    label = ROLE_TURN.match(line)
    return bool(label and line[label.end() :].strip(" \t*_"))


def _field_among_fields(text: str, start: int) -> bool:
    """Whether the line at `start` sits beside another line that is a field and no turn."""
    line_start = text.rfind("\n", 0, start) + 1
    before_end = line_start - 1
    before = (
        text[text.rfind("\n", 0, max(before_end, 0)) + 1 : before_end] if before_end > 0 else ""
    )
    line_end = text.find("\n", start)
    after = (
        "" if line_end < 0 else text[line_end + 1 : text.find("\n", line_end + 1) % (len(text) + 1)]
    )
    return any(
        _FIELD_LINE.match(line) and not ROLE_TURN.match(line) for line in (before, after) if line
    )


def role_turn(text: str) -> bool:
    """Whether `text` opens a turn as another speaker and that turn speaks to the grader."""
    starts = [m.start() for m in ROLE_TURN.finditer(text)]
    for i, start in enumerate(starts):
        if _valued(text, start) and _field_among_fields(text, start):
            line_end = text.find("\n", start)
            if _TURN_STRONG.search(text, start, line_end if line_end >= 0 else len(text)):
                return True
            continue
        next_start = starts[i + 1] if i + 1 < len(starts) else len(text)
        blank = text.find("\n\n", start)
        # a turn ends at a blank line: the prose after a quoted exchange is the answer's own
        next_start = min(next_start, blank) if blank > start else next_start
        if _TURN_TO_GRADER.search(text, start, min(next_start, start + _TURN_TEXT)):
            return True
    return False
