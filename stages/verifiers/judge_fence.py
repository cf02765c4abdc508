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
# A grades object, or the judge's grade entry, in any quoting: "grades": / 'grades': / {grades:
GRADE_JSON = re.compile(
    r"""[{,"'\\`]\s*grades\s*["'\\`]*\s*[:=]"""
    r"""|\bpassed\s*["'\\`]*\s*[:=]\s*["'`]?(?:true|false)\b""",
    re.IGNORECASE,
)
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_PASSES = 8  # a rewrite never makes a new sequence; the bound is a guard


def visible_form(text: str) -> str:
    """`text` as a tokenizer or a judge may read it: NFKC, without format characters (zero-width
    spaces, joiners), with HTML entities and \\uXXXX escapes decoded."""
    text = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), html.unescape(text))
    text = unicodedata.normalize("NFKC", text)
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def injection_kinds(response: str) -> list[str]:
    """Which injections `response` attempts: "control_tokens", "grade_json" (empty: none)."""
    seen = (response, visible_form(response))
    kinds = []
    if any(CONTROL.search(t) for t in seen):
        kinds.append("control_tokens")
    if any(GRADE_JSON.search(t) for t in seen):
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
    sent = _rewrite(response)
    if CONTROL.search(visible_form(sent)):
        sent = _rewrite(visible_form(sent))
    return sent
