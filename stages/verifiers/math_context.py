"""The text around a final answer: the visible part of a response (after the last `</think>`, before
the end of the turn), where sentences start and end, closing formulae that state nothing, and
whether a text states a value. Every scan here is a regular expression over the text or a loop over
a bounded window, so a megabyte stays linear."""

from __future__ import annotations

import re

from stages.verifiers.math_unicode import repeating_dots

_THINK_OPEN = "<think>"
_THINK_CLOSE = "</think>"
# Chat-template control tokens (ChatML and Qwen, Llama 3 and 4, Gemma, Mistral, DeepSeek, Phi,
# gpt-oss, plain </s>): the turn ends at the first one; what follows is not the response.
_TURN_END = re.compile(
    r"<\|(?:im_end|im_start|eot_id|eom_id|endoftext|end|start_header_id|end_header_id|user"
    r"|assistant|system|return|call|end_of_text|begin_of_text|eot|eom|header_start|header_end"
    r"|end▁of▁sentence)\|>|<(?:end|start)_of_turn>|<eos>|</s>|\[/?INST\]|<｜[^｜\n]{1,40}｜>"
)
# gpt-oss's harmony format: reasoning in the analysis channel, the reply in the final one. Only the
# final channel's message is the response (as text after </think> is); two final messages are two
# replies, and a harmony response without one has given none.
_FINAL_CHANNEL = "<|channel|>final<|message|>"


def _harmony_final(response: str) -> tuple[str | None, str]:
    count = response.count(_FINAL_CHANNEL)
    if count == 0:
        return None, "harmony output without a final channel: no answer"
    if count > 1:
        return None, "harmony output with several final channels"
    return response[response.index(_FINAL_CHANNEL) + len(_FINAL_CHANNEL) :], ""


# A macro (re)definition changes what the answer renders to (`\\renewcommand{\\pi}{3}`); a comment
# environment or `\\iffalse` hides text from the page, and verbatim shows it as characters, unread.
# Found by name (str.find), not by a regular expression tried at every backslash: a megabyte of
# "\\(" took 0.26 s that way.
_HIDDEN_COMMANDS = (
    "newcommand", "renewcommand", "providecommand", "DeclareRobustCommand", "DeclareMathOperator",
    "NewDocumentCommand", "RenewDocumentCommand", "ProvideDocumentCommand",
    "DeclareDocumentCommand", "newenvironment", "renewenvironment", "def", "gdef", "edef", "xdef",
    "let", "futurelet", "catcode", "mathcode", "mathchardef", "chardef", "csname", "expandafter",
    "iffalse", "begin{comment}",
    # literal text typesets nothing: a box inside verbatim is characters on the page, not an answer
    "verb", "begin{verbatim", "begin{Verbatim", "begin{lstlisting", "begin{minted", "lstinline",
)  # fmt: skip
MAX_NAME_HITS = 1000  # "let" and "def" occur in prose; a megabyte of them is not a response


def _hidden(text: str) -> str | None:
    """The first macro definition or hiding command in `text` (a whole command name), or None."""
    for name in _HIDDEN_COMMANDS:
        i, hits = text.find(name), 0
        while i >= 0:
            end = i + len(name)
            if text[i - 1 : i] == "\\" and not text[end : end + 1].isalpha():
                return "\\" + name  # "\\let", never "\\left" or "let x be"
            hits += 1
            if hits > MAX_NAME_HITS:
                return f"more than {MAX_NAME_HITS} {name!r}"
            i = text.find(name, end)
    return None


NUMBER_WORDS = re.compile(
    r"(?i)(?<![\w])(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty"
    r"|sixty|seventy|eighty|ninety|hundreds?|thousands?|millions?|billions?|dozens?|half|halves"
    r"|thirds?|quarters?|fourths?|fifths?|tenths?|hundredths?|once|twice|thrice|double|triple"
    r")(?![\w])"
)
# Values in text: digit runs, LaTeX that makes a value, and their unicode forms.
_VALUE = re.compile(r"\d+|\\(?:[a-zA-Z]*box|frac|dfrac|tfrac|sqrt|pi|infty)(?![a-zA-Z])|[π√∞]")
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")
# Closing formulae that state nothing: the only sentences allowed after a final answer.
FILLER = re.compile(
    r"(?i)\s*\[?\s*(?:i hope (?:it|this|that) (?:is|was) (?:correct|right|helpful)|i hope (?:it|this)"
    r" helps|hope (?:it|this) helps|thank you|thanks"
    # the sign-offs of chat models: an offer to explain, a reminder to double-check
    r"|(?:if you have any (?:further |other |more )?questions(?: or need (?:any )?(?:further |more )?"
    r"clarification)?,? (?:please )?(?:feel free to ask|let me know|don't hesitate to ask)"
    r"|(?:please )?(?:feel free to ask|let me know) if you (?:have any (?:further |other |more )?"
    r"questions|need (?:any )?(?:further |more )?(?:help|clarification)))"
    r"|let me know if (?:anything|something|any (?:part|step))(?: (?:here|above))? (?:is|was|seems)"
    r" (?:unclear|confusing)"  # round 15
    r"|note: the solution (?:provided )?is correct, but it's always a good idea to double-check"
    r" the calculations(?: and (?:the )?reasoning)?(?:, especially for (?:more )?complex problems)?"
    r"|note:?)\s*[.!]?\s*\]?\s*$"  # "[Note" cut off at the end of a truncated response
)
MAX_FILLERS = 32


def visible_text(response: str) -> tuple[str | None, str]:
    """(the text an answer is read from, why there is none). Only text after the last `</think>`
    counts, a `<think>` never closed holds no answer, and text after the end of the turn (a
    chat-template control token) is dropped unless it states a value, which makes it no answer."""
    hidden = _hidden(response)
    if hidden:  # the answer may then render as another value, or not at all
        return None, f"a macro definition or text that is not typeset ({hidden!r})"
    hiding = _HIDING_HTML.search(response)
    if hiding:  # a browser would not show what it holds, or shows it otherwise (round 15)
        return None, f"HTML that may hide or restyle text ({hiding.group()[:40]!r})"
    if "<|channel|>" in response:
        final, why = _harmony_final(response)
        if final is None:
            return None, why
        response = final
    folded = response.lower() if len(response.lower()) == len(response) else response
    close = folded.rfind(_THINK_CLOSE)  # <Think>, </THINK>: tags match in any case
    if close >= 0 and _between_thinking(response, folded, close):
        return (
            None,
            "a value or answer stated before the last thinking block (visible: another commitment)",
        )
    if close >= 0:
        response, folded = (
            response[close + len(_THINK_CLOSE) :],
            folded[close + len(_THINK_CLOSE) :],
        )
    if _THINK_OPEN in response.lower():  # never opened before, or opened again after the last close
        return None, "a <think> block is never closed: no answer"
    turn_end = _TURN_END.search(response)
    if turn_end:
        after = response[turn_end.end() :]
        if has_value(after):
            return None, "a value follows the end of the turn (a chat-template control token)"
        response = response[: turn_end.start()]
    if "<" in response or "`" in response:
        response = _MARKUP.sub("", response)
    if "..." in response or "\u2026" in response:  # "is 0.666...": before a trim eats the dots
        response = repeating_dots(response)
    return response, ""


# Markup a rendered page shows as its text: bold and code tags ("<strong>Answer:</strong> 5"),
# inline code ("Answer: `5`"), a code fence's lines (red team round 12)
_MARKUP = re.compile(
    r"</?(?:b|strong|i|em|u|mark|code|span|p|div|pre|kbd|samp|tt)[ \t]*/?>"
    r"|^[ \t]*```[\w+-]{0,20}[ \t]*$|`",
    re.IGNORECASE | re.MULTILINE,
)

# HTML that hides what it holds or restyles it: a comment, an element a page does not show as text,
# a tag with a hiding or styling attribute ("<p hidden>", "<div style=...>", "<span class=...>").
# The attribute must be a named one: "$a<b$ and $c>d$" is no tag. Bounded runs: linear in the text.
_HIDING_HTML = re.compile(
    r"<!--|<(?:details|template|script|style|noscript|textarea|iframe|object|embed|svg|select"
    r"|title|head|dialog)(?![\w-])"
    r"|<[a-z][\w-]{0,20}\s[^<>]{0,300}?(?<![\w-])(?:hidden(?![\w-])|(?:style|class|id)\s*=)",
    re.IGNORECASE,
)


def _between_thinking(response: str, folded: str, close: int) -> bool:
    """Text before the first `<think>` and between a `</think>` and the next `<think>` is visible: a
    value or an answer form there is a commitment made before the last block, so the response
    states more than its final part. One pass over the tags: each visible stretch is read once
    (3,000 stray `</think>` re-read the rest of the text per tag, quadratic, in round 17)."""
    first_open = folded.find(_THINK_OPEN)
    if 0 < first_open < close and _commits(response[:first_open]):
        return True  # "Answer: 45 <think>...</think> \boxed{46}": visible before the block too
    end = folded.find(_THINK_CLOSE)
    while 0 <= end < close:
        start = end + len(_THINK_CLOSE)
        reopen = folded.find(_THINK_OPEN, start, close)
        stop = reopen if reopen >= 0 else close
        if _commits(response[start:stop]):
            return True
        if reopen < 0:
            return False  # the rest up to the last close was read whole, stray closes included
        end = folded.find(_THINK_CLOSE, stop)
    return False


# An answer form commits whatever it holds: "Answer: XLV" states no digit a value test sees.
_ANSWER_FORM = re.compile(r"(?i)\\boxed|\\fbox|####|\banswer\b")


def _commits(visible: str) -> bool:
    return has_value(visible) or bool(_ANSWER_FORM.search(visible))


def has_value(text: str) -> bool:
    if _VALUE.search(text) or NUMBER_WORDS.search(text):
        return True
    return not text.isascii() and any(map(str.isnumeric, "".join(_NON_ASCII_RUN.findall(text))))


def _ends(text: str, i: int, math: str, depth: int) -> bool:
    ch = text[i]
    if ch == "\n":
        return math in ("", "$")
    followed = i + 1 == len(text) or text[i + 1] in " \t\r\n'\")]"
    return not math and depth == 0 and ch in ".!?。" and followed


def sentence_end(text: str, start: int, limit: int) -> int | None:
    """Index where the sentence starting at `start` ends (a newline, or . ! ? followed by a space
    or the end, outside math and braces; a newline may sit inside $$...$$ and \\[...\\] but not
    inside $...$); None when it runs past `limit` characters."""
    depth, math = 0, ""
    stop = min(len(text), start + limit + 1)
    i = start
    while i < stop:
        ch = text[i]
        if ch == "\\":
            pair = text[i : i + 2]
            if pair == "\\[" and not math:
                math = "\\["
            elif pair == "\\]" and math == "\\[":
                math = ""
            i += 2
            continue
        if ch == "$":
            double = text[i : i + 2] == "$$"
            if not math:
                math = "$$" if double else "$"
            elif math in ("$", "$$"):
                math = ""
            i += 2 if double else 1
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        elif _ends(text, i, math, depth):
            return i + 1 if text[i - 2 : i + 1] == "..." else i  # "2.7...": its ellipsis is kept
        i += 1
    return len(text) if stop == len(text) else None


# A sentence ends at a newline, or at . ! ? (then perhaps a closing $, $$, \] or \)) and a space.
_BOUNDARY = re.compile(r"[.!?](?:\$\$?|\\\]|\\\))?(?=\s)|\n|。")
_CONNECTIVE_START = re.compile(r"(?<=\s)(?:Therefore|Thus|Hence|So)(?![\w])")


def sentence_start(text: str, end: int, limit: int = 300) -> int:
    """Start of the sentence that `end` is in, looking back at most `limit` characters."""
    lo = max(0, end - limit)
    start = lo
    for m in _BOUNDARY.finditer(text, lo, end):
        start = m.end()
    # "... P(A) = 2/3 Therefore, the probability is 2/3": a capitalised connective starts a clause
    connectives = list(_CONNECTIVE_START.finditer(text, start, end))
    return connectives[-1].start() if connectives else start


def trimmed_end(text: str, at: int) -> int:
    """`len(text[:at].rstrip())` without copying the prefix: each final answer looks at the
    sentence before its own, and a megabyte response holds several."""
    while at > 0 and text[at - 1].isspace():
        at -= 1
    return at


def strip_filler(text: str) -> str:
    """The text without closing formulae that state nothing ("I hope it is correct.")."""
    end = len(text)
    for _ in range(MAX_FILLERS):  # bounded: a megabyte of "Thank you!" keeps most of its text
        lo = max(0, end - 240)  # a formula is short: search only the end of the text
        m = FILLER.search(text, lo, end)
        if not m or m.start() == end:
            break
        end = m.start()
    return text[:end]


# A response stored as an escaped string ("\\\\boxed{\\\\frac{\\\\pi}{2}}", newlines as "\\n"): every
# LaTeX command's backslash doubled and no single backslash but the string escapes \n \t \".
_ODD_RUN = re.compile(r"(?<!\\)(?:\\\\)*\\(?!\\)(.)", re.DOTALL)
_DOUBLED_COMMAND = re.compile(r"\\\\[A-Za-z]")
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_ESCAPED = {"n": "\n", "t": "\t", '"': '"'}


def unescaped(response: str) -> str:
    """The response with one level of string escaping undone where it is escaped throughout
    (commands written `\\\\frac`, no command written `\\frac`); otherwise the response as is. The
    text is the same answer in another encoding, so every rule still applies to what it says."""
    if not _DOUBLED_COMMAND.search(response):
        return response
    if any(m.group(1) not in _ESCAPED for m in _ODD_RUN.finditer(response)):
        return response  # a single-backslash command: LaTeX as written ("\\\\" ends a row)
    return _ESCAPE.sub(lambda m: _ESCAPED.get(m.group(1), m.group(1)), response)
