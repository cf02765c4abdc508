"""QA verifiers. `QAVerifier`: exact match and token F1 against the answer and its aliases (MuSiQue
style), plus, when the response cites paragraphs, citation precision/recall against the gold
supporting paragraphs and optional hop weighting. `ExactMatchVerifier`: string equality, for tasks
where the exact characters are the answer (reversing "120" gives "021", not 21).

The verdict's details keep MuSiQue's own EM and F1 (SQuAD normalisation, as its metrics/answer.py),
for parity with the official metric. `passed` and the reward depart from it where SQuAD's
normalisation pays for a wrong answer: numbers compare as numbers (dropping punctuation makes `125`
of `12.5`, `5` of `-5`, `12` of `1/2`), a gold that normalises to nothing (`A`, `The The`) matches
as written (case-insensitive) instead of never, curly quotes normalise like straight ones, and an
answer that negates the gold (`not Kahar`) is wrong however many tokens it shares, and a pass by
token F1 needs every word of a gold (`Republic of China` is not `People's Republic of China`)."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from stages.verifiers.config import ExactMatchConfig, QAVerifierConfig
from stages.verifiers.types import QAReference, Verdict, fail

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)
_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.DOTALL | re.IGNORECASE)
_ANSWER_LINE = re.compile(r"(?im)^\s*[*_]*(?:final answer|answer)[*_]*\s*[:：][*_]*\s*(.+)$")
_CITE_TAG = re.compile(
    r"<(?:cite|citations?|support)>(.*?)</(?:cite|citations?|support)>", re.DOTALL | re.I
)
_CITE_LINE = re.compile(r"(?im)^\s*(?:supporting paragraphs?|citations?|sources?)\s*[:：]\s*(.+)$")
_BRACKET_REF = re.compile(r"\[(?:paragraph\s*)?(\d+)\]", re.IGNORECASE)
_QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"',
     "\u2032": "'", "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2212": "-", "\uff0d": "-",
     "\u2013": "-", "\u2010": "-", "\u2011": "-", "\u207b": "-", "\ufe63": "-"}
)  # fmt: skip
# A number, read whole before punctuation is dropped: a sign only where no word precedes it ("-5",
# never the "-3" of "4-3"), thousands separators only in groups of three ("1,500" but "1,2" is two).
_NUMBER = re.compile(
    r"(?P<sign>(?<![\w.,/])-)?(?<![\w.,/])"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d+/\d+|\d+)(?![\w]|[.,/]\d)"
)
_NEGATION = re.compile(r"(?i)(?<![\w'])(?:not|no|never|neither|nor|none)(?![\w'])|n't(?!\w)")


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, drop punctuation and articles, squeeze whitespace."""
    text = text.lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(prediction: str, gold: str) -> float:
    pred_tokens, gold_tokens = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not pred_tokens or not gold_tokens:
        return float(pred_tokens == gold_tokens)
    common = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred_tokens), common / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def _number_token(m: re.Match[str]) -> str:
    text = m.group("num").replace(",", "")
    value = Fraction(*map(int, text.split("/"))) if "/" in text else Fraction(text)
    value = -value if m.group("sign") else value
    # letters and digits only, so SQuAD's punctuation removal leaves it whole
    return f" num{'m' if value < 0 else ''}{abs(value.numerator)}d{value.denominator} "


# Punctuation that carries meaning is kept as a token of its own: `C#` is not `C`, `B-` not `B+`,
# `11/2/2020` not `1/12/2020`, `3.11.0` not `3.1.10`. A hyphen between letters separates words
# (`Jean-Paul` is `Jean Paul`, and `re-sign` is not `resign`).
_WORD_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")
_MEANINGFUL = re.compile(r"[#+/&%-]|(?<=\d)\.(?=\d)")
_SYMBOLS = {"#": "sharp", "+": "plus", "/": "slash", "&": "and", "%": "percent", "-": "minus",
            ".": "dot"}  # fmt: skip
# Words that change what the rest names: "anti <gold>", "except <gold>", "<gold> or PETA".
_MODIFIERS = frozenset(
    ("anti", "except", "excluding", "non", "not", "no", "without", "or", "nor", "either",
     "neither", "ex", "former", "pseudo", "fake", "minus", "versus", "vs", "and", "but")
)  # fmt: skip
# After the final answer, words that take it back ("Wait, no. It is Sydney.").
_RETRACTION = re.compile(
    r"(?i)(?<![\w'])(?:wait|actually|correction|scratch|hmm|oops|instead|rather|mistake|wrong"
    r"|sorry|never\s*mind|second\s+thought|nope|typo|erratum|i\s+mean|make\s+that)(?![\w'])"
)


def strict_tokens(text: str) -> list[str]:
    """SQuAD's tokens with each number kept as its value (`12.5` and `12.50` are one token, `125`
    another) and meaningful punctuation kept as tokens."""
    text = _NUMBER.sub(_number_token, text.translate(_QUOTES))
    text = _MEANINGFUL.sub(lambda m: f" sym{_SYMBOLS[m.group()]} ", _WORD_HYPHEN.sub(" ", text))
    return normalize_answer(text).split()


def _answer_tail(response: str) -> str:
    """The text after the final answer (after the last answer tag or answer line)."""
    tags = list(_ANSWER_TAG.finditer(response))
    if tags:
        return response[tags[-1].end() :]
    lines = list(_ANSWER_LINE.finditer(response))
    return response[lines[-1].end() :] if lines else ""


def _as_written(text: str) -> str:
    """A gold that SQuAD normalises to nothing ("A", "The The") is compared as written."""
    return " ".join(text.translate(_QUOTES).strip().rstrip(".!?").strip(" \"'").lower().split())


def strict_scores(answer: str, golds: Sequence[str]) -> tuple[float, float, float]:
    """(exact match, token F1 x token precision, the same over golds whose every token the answer
    holds) on number-aware tokens, best over the golds. Plain F1 pays for listing guesses ("Paris
    London" scores 0.67 against "Paris", more than the 0.5 a model torn between the two earns by
    committing to one). With k equally long guesses of which one is right F1 x precision is
    2 / (k (k + 1)) <= 1 / k, the expected reward of committing: hedging never pays."""
    em, hedge_proof, complete = 0.0, 0.0, 0.0
    pred = strict_tokens(answer)
    for gold in golds:
        gold_tokens = strict_tokens(gold)
        if not gold_tokens:
            em = max(
                em, float(bool(_as_written(gold)) and _as_written(answer) == _as_written(gold))
            )
            continue
        em = max(em, float(pred == gold_tokens))
        common = sum((Counter(pred) & Counter(gold_tokens)).values())
        if pred and common:
            precision, recall = common / len(pred), common / len(gold_tokens)
            score = 2 * precision * recall / (precision + recall) * precision
            hedge_proof = max(hedge_proof, score)
            complete = max(complete, score if recall == 1 else 0.0)
    return em, max(em, hedge_proof), max(em, complete)


def extract_qa_answer(response: str) -> str:
    """<answer>..</answer>, else the last "Answer:" line, else the last non-empty line."""
    tags = _ANSWER_TAG.findall(response)
    if tags:
        return tags[-1].strip()
    lines = _ANSWER_LINE.findall(response)
    if lines:
        return lines[-1].strip().strip("*_").strip()
    return next((line.strip() for line in reversed(response.splitlines()) if line.strip()), "")


def extract_citations(response: str) -> list[int] | None:
    """Paragraph ids the response cites, or None when it cites none."""
    found = _CITE_TAG.findall(response) or _CITE_LINE.findall(response)
    if found:
        return sorted({int(n) for chunk in found for n in re.findall(r"\d+", chunk)})
    refs = _BRACKET_REF.findall(response)
    return sorted({int(n) for n in refs}) if refs else None


def retrieval_scores(cited: Sequence[int], gold: Sequence[int]) -> tuple[float, float, float]:
    """(precision, recall, f1) of cited paragraph ids against the gold supporting ids."""
    hits = len(set(cited) & set(gold))
    precision = hits / len(set(cited)) if cited else 0.0
    recall = hits / len(set(gold)) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


class QAVerifier:
    """Verifier[QAReference | str]."""

    name = "qa"

    def __init__(self, config: QAVerifierConfig | None = None) -> None:
        self.config = config or QAVerifierConfig()

    def verify(self, response: str, reference: QAReference | str) -> Verdict:
        ref = QAReference(answer=reference) if isinstance(reference, str) else reference
        answer = extract_qa_answer(response)
        if not _as_written(answer):
            return fail("parse_error", "no answer in the response")
        golds = [ref.answer, *ref.aliases]
        em = float(any(normalize_answer(answer) == normalize_answer(g) for g in golds))
        f1 = max(token_f1(answer, g) for g in golds)  # the metric, as MuSiQue's answer.py
        strict_em, hedge_proof, complete = strict_scores(answer, golds)
        negated = _NEGATION.search(answer.translate(_QUOTES))
        if negated and not any(_NEGATION.search(g) for g in golds):
            strict_em = hedge_proof = complete = 0.0  # "not Kahar": the gold's tokens, not meaning
        extras = set(strict_tokens(answer)) - {t for g in golds for t in strict_tokens(g)}
        modifier = sorted(extras & _MODIFIERS)
        retracted = _RETRACTION.search(_answer_tail(response))
        if modifier or retracted:
            strict_em = hedge_proof = complete = 0.0
        score = strict_em if self.config.metric == "em" else hedge_proof
        details: dict = {"extracted": answer, "em": em, "f1": round(f1, 6)}
        cited = extract_citations(response)
        if cited is not None and ref.supporting_ids:
            precision, recall, cite_f1 = retrieval_scores(cited, ref.supporting_ids)
            details.update(cited=cited, retrieval_precision=precision, retrieval_recall=recall)
        else:
            cite_f1 = 0.0
        reward = score
        if self.config.retrieval_weight and ref.supporting_ids:
            w = self.config.retrieval_weight
            reward = (1 - w) * score + w * cite_f1
        if self.config.hop_weighting and ref.num_hops and ref.num_hops > 2:
            reward *= 1 + self.config.hop_weight_per_extra_hop * (ref.num_hops - 2)
        # A pass by F1 needs every word of a gold: "Republic of China" scores 0.96 against
        # "People's Republic of China" and is another country.
        passed = bool(strict_em) or complete >= self.config.f1_threshold
        if strict_em:
            reason = "exact match"
        elif retracted:
            reason = f"text after the answer takes it back ({retracted.group()!r})"
        elif modifier:
            reason = f"a word that changes what the gold names ({modifier[0]!r})"
        elif negated and not passed:
            reason = f"the answer negates the gold ({negated.group()!r})"
        elif hedge_proof >= self.config.f1_threshold and not passed:
            reason = f"token F1 x precision = {hedge_proof:.2f}, but a word of the gold is missing"
        else:
            reason = f"token F1 x precision = {hedge_proof:.2f}" + (
                "" if passed else " below threshold"
            )
        return Verdict(
            passed=passed,
            reward=reward,
            status="ok" if passed else "failed",
            reason=reason,
            details=details,
        )

    def verify_batch(self, items: Sequence[tuple[str, QAReference | str]]) -> list[Verdict]:
        return [self.verify(response, reference) for response, reference in items]


class ExactMatchVerifier:
    """Verifier[str]: the response must equal the reference string."""

    name = "exact"

    def __init__(self, config: ExactMatchConfig | None = None) -> None:
        self.config = config or ExactMatchConfig()

    def _norm(self, text: str) -> str:
        text = text.strip() if self.config.strip else text
        return text if self.config.case_sensitive else text.lower()

    def verify(self, response: str, reference: str) -> Verdict:
        if not self._norm(response):
            return fail("parse_error", "empty response")
        if self._norm(response) == self._norm(reference):
            return Verdict(passed=True, reward=1.0, status="ok", reason="exact match")
        return fail("failed", "differs from the reference", extracted=response[:200])

    def verify_batch(self, items: Sequence[tuple[str, str]]) -> list[Verdict]:
        return [self.verify(response, reference) for response, reference in items]
