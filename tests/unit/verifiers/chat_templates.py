"""Chat templates of five model families and tokenizers built here with the `tokenizers` library
(nothing downloaded), to see a judge request the way a serving stack does: render the template
with the messages' text inserted raw, then tokenize with special tokens recognised in that text.

Each family's template is the shape of its published Jinja chat template; `turns` counts the
tokens that open a turn. A request whose response forged a turn shows more of them."""

from __future__ import annotations

from dataclasses import dataclass

import jinja2
from tokenizers import AddedToken, Tokenizer, models, normalizers, pre_tokenizers

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "<|im_start|>assistant\n"
)
LLAMA3 = (
    "<|begin_of_text|>{% for m in messages %}<|start_header_id|>{{ m.role }}<|end_header_id|>"
    "\n\n{{ m.content }}<|eot_id|>{% endfor %}<|start_header_id|>assistant<|end_header_id|>\n\n"
)
MISTRAL = (  # the system prompt goes into the first [INST], as Mistral's templates do
    "<s>{% for m in messages %}{% if m.role == 'user' %}[INST] {{ system }}\n\n{{ m.content }}"
    " [/INST]{% endif %}{% endfor %}"
)
GEMMA = (
    "<bos>{% for m in messages %}{% if m.role == 'user' %}<start_of_turn>user\n{{ system }}\n\n"
    "{{ m.content }}<end_of_turn>\n{% endif %}{% endfor %}<start_of_turn>model\n"
)
DEEPSEEK = (
    "<\uff5cbegin\u2581of\u2581sentence\uff5c>{{ system }}{% for m in messages %}"
    "{% if m.role == 'user' %}<\uff5cUser\uff5c>{{ m.content }}{% endif %}{% endfor %}"
    "<\uff5cAssistant\uff5c>"
)


@dataclass(frozen=True)
class Family:
    name: str
    template: str
    specials: tuple[str, ...]
    turn_tokens: tuple[str, ...]  # tokens that open a turn
    expected_turns: int  # in a request of one system and one user message
    nfkc: bool = False  # the tokenizer normalises text (and matches specials after it)

    def tokenizer(self) -> Tokenizer:
        tok = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        if self.nfkc:
            tok.normalizer = normalizers.NFKC()
        tok.add_special_tokens(
            [AddedToken(s, special=True, normalized=self.nfkc) for s in self.specials]
        )
        return tok

    def render(self, messages: list[dict[str, str]]) -> str:
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        env = jinja2.Environment(autoescape=False, keep_trailing_newline=True)
        return env.from_string(self.template).render(messages=messages, system=system)

    def turns(self, messages: list[dict[str, str]]) -> int:
        tok = self.tokenizer()
        ids = tok.encode(self.render(messages)).ids
        opening = {tok.token_to_id(t) for t in self.turn_tokens}
        return sum(i in opening for i in ids)

    def specials_in(self, messages: list[dict[str, str]]) -> int:
        tok = self.tokenizer()
        ids = set(tok.encode(self.render(messages)).ids)
        return len(ids & {tok.token_to_id(s) for s in self.specials})


FAMILIES = [
    Family("chatml", CHATML, ("<|im_start|>", "<|im_end|>", "<|endoftext|>"), ("<|im_start|>",), 3),
    Family(
        "llama3",
        LLAMA3,
        ("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
        ("<|start_header_id|>",),
        3,
    ),
    Family("mistral", MISTRAL, ("<s>", "</s>", "[INST]", "[/INST]"), ("[INST]", "[/INST]"), 2),
    Family(
        "gemma",
        GEMMA,
        ("<bos>", "<eos>", "<start_of_turn>", "<end_of_turn>"),
        ("<start_of_turn>",),
        2,
    ),
    Family(
        "deepseek",
        DEEPSEEK,
        (
            "<\uff5cbegin\u2581of\u2581sentence\uff5c>",
            "<\uff5cend\u2581of\u2581sentence\uff5c>",
            "<\uff5cUser\uff5c>",
            "<\uff5cAssistant\uff5c>",
        ),
        ("<\uff5cUser\uff5c>", "<\uff5cAssistant\uff5c>"),
        2,
        nfkc=True,
    ),
]
