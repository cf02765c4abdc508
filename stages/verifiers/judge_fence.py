"""What a response may not carry to a judge: chat-template control sequences and the judge's own
reply format.

A JSON string fences a response from the judge's prompt text, but not from its tokenizer: serving
stacks render the chat template and then tokenize the whole text with special tokens recognised,
so `<|im_end|>\\n<|im_start|>system` inside the response becomes a forged turn. `neutralise` rewrites
every control sequence of the common families (ChatML and Phi `<|...|>`, Llama 3 headers, Mistral
`[INST]`, Llama 2 `<<SYS>>`, SentencePiece `<s>`, Gemma `<start_of_turn>`, DeepSeek `<｜...｜>`) as
`«...»`, which no tokenizer maps to a special token. `injection_kinds` says whether a response
carried control sequences or a grades object, read after NFKC normalisation with invisible
characters, HTML entities and `\\uXXXX` escapes undone, so look-alikes count too; such a response
scores 0 whatever the judge says."""

from __future__ import annotations

import html
import re
import unicodedata

_BAR = "[|\uff5c]"  # ChatML's ASCII bar, DeepSeek's full-width one
CONTROL = re.compile(
    rf"<{_BAR}[^<>|\uff5c\s]{{1,64}}{_BAR}>"  # <|im_start|> <|eot_id|> <｜User｜>
    r"|<(?:start|end)_of_turn>"  # Gemma
    r"|</?(?:s|bos|eos|pad|unk)>"  # SentencePiece / Gemma sequence tokens
    r"|\[/?(?:INST|SYSTEM_PROMPT|AVAILABLE_TOOLS|TOOL_RESULTS|TOOL_CALLS|TOOL_CONTENT)\]"
    r"|<</?SYS>>",  # Llama 2
    re.IGNORECASE,
)
# The judge's reply shape in any notation (JSON, YAML, TOML, XML, a table, a prose line): the word
# "grade(s)" with an id or rubric number and a pass flag near it. A "grades" list of marks or a
# "passed" flag alone (`{"grades": [90, 85]}`, `passed: true` in a config) is not a reply.
_GRADE_WORD = re.compile(r"\bgrad(?:es?|er|ing)\b", re.IGNORECASE)
# One grade entry without the word: an id and a pass flag side by side ({"id": 1, "passed": true}).
_GRADE_ENTRY = re.compile(
    r"""\bid\b["'`]?\s*[:=]\s*["'`]?\d+["'`]?\s*[,;\n]\s*["'`]?pass(?:ed)?\b"""
    r"""|\bpass(?:ed)?\b["'`]?\s*[:=]\s*["'`]?\w{1,5}["'`]?\s*[,;\n]\s*["'`]?id\b"""
    r"""|"pass(?:ed)?"\s*:\s*(?-i:true|false)\b""",  # a JSON pass flag ("passed": true)
    re.IGNORECASE,
)
_GRADE_ID = re.compile(r"\b(?:id|rubric)\b\W{0,5}\d|\|\s*\d+\s*\|", re.IGNORECASE)
_GRADE_PASS = re.compile(r"\bpass(?:ed|es)?\b", re.IGNORECASE)
_GRADE_WINDOW = 300
# A turn forged with a family's tokens we do not list: a tag or bracket token right before a role
# name (`<reserved_106>system`, `<seed:bos>system`, `[gMASK]<sop>system`, `<用户>system`).
FORGED_TURN = re.compile(
    r"(?:<[^<>\s]{1,40}>|\[[^\[\]\s]{1,40}\])[ \t]*\n?[ \t]*(?:system|user|assistant|human|model)\b",
    re.IGNORECASE,
)
# What a reader takes for ASCII: Cyrillic and Greek look-alike letters, curly quotes, guillemets
# and CJK brackets (NFKC keeps them all as they are).
_LOOKALIKES = str.maketrans(
    dict(
        zip(
            "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u0501\u0261"
            "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425"
            "\u03b1\u03b5\u03b9\u03ba\u03bd\u03bf\u03c1\u03c4\u03c5\u03c7"
            "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7"
            "\u201c\u201d\u201e\u201f\u00ab\u00bb\u300c\u300d\u300e\u300f\u2018\u2019\u201a\u201b"
            "\u0433\u0251\u2ca3\u0581\u1d00\u0299\u1d04\u1d05\u1d07\u0262\u029c\u026a\u1d0a"
            "\u1d0b\u029f\u1d0d\u0274\u1d0f\u1d18\u0280\ua731\u1d1b\u1d1c\u1d20\u1d21\u028f"
            "\u1d22\u2236\ua789\u02d0\ufe13\ufe55",
            "aeopcyxijsdgABEKMHOPCTXaeikvoptuxABEZHIKMNOPTYX"
            + '"' * 10
            + "'" * 4
            + "rapgabcdeghijklmnoprstuvwyz:::::",
            strict=True,
        )
    )
)
# Default-ignorable code points a reader skips that are not format characters (Cf): the
# combining grapheme joiner, variation selectors, Hangul fillers, Mongolian selectors, ...
_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]"
)
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_PASSES = 8  # a rewrite never makes a new sequence; the bound is a guard


def visible_form(text: str) -> str:
    """`text` as a tokenizer or a judge may read it: NFKC, without format characters (zero-width
    spaces, joiners), with HTML entities and \\uXXXX escapes decoded, look-alike letters and
    quotes read as ASCII."""
    text = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), html.unescape(text))
    text = unicodedata.normalize("NFKC", text)
    text = _IGNORABLE.sub("", text)
    return "".join(c for c in text if unicodedata.category(c) != "Cf").translate(_LOOKALIKES)


def _grade_reply(text: str) -> bool:
    """Whether `text` carries the judge's reply shape: "grade(s)" with an id or rubric and a pass
    flag within a few hundred characters (bounded: at most 64 occurrences are looked at), or one
    grade entry (an id and a pass flag side by side)."""
    if _GRADE_ENTRY.search(text):
        return True
    for count, m in enumerate(_GRADE_WORD.finditer(text)):
        if count >= 64:
            return True  # a response made of grade words is an attempt too
        window = text[max(0, m.start() - 100) : m.end() + _GRADE_WINDOW]
        if _GRADE_ID.search(window) and _GRADE_PASS.search(window):
            return True
    return False


def injection_kinds(response: str) -> list[str]:
    """Which injections `response` attempts: "control_tokens", "grade_json" (empty: none)."""
    seen = (response, visible_form(response))
    kinds = []
    if any(CONTROL.search(t) for t in seen):
        kinds.append("control_tokens")
    if any(FORGED_TURN.search(t) for t in seen) and "control_tokens" not in kinds:
        kinds.append("control_tokens")
    if any(_grade_reply(t) for t in seen):
        kinds.append("grade_json")
    return kinds


def _rewrite(text: str) -> str:
    def guillemets(match: re.Match[str]) -> str:
        inner = match.group(0).strip("<>[]").strip("|\uff5c")
        return "\u00ab" + inner.replace("<", "").replace(">", "") + "\u00bb"

    for _ in range(_PASSES):
        text, count = CONTROL.subn(guillemets, text)
        if not count:
            break
    return text


def neutralise(response: str) -> str:
    """`response` with every control sequence rewritten, in its raw form and in the form a
    normalising tokenizer would see (the latter sent only when the raw one still hides some)."""
    sent = _rewrite(response.encode("utf-8", "replace").decode("utf-8"))  # lone surrogates
    if CONTROL.search(visible_form(sent)):
        sent = _rewrite(visible_form(sent))
    return sent
