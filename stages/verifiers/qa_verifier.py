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
from collections import Counter
from collections.abc import Sequence

from stages.verifiers.config import ExactMatchConfig, QAVerifierConfig
from stages.verifiers.judge_fence import CONTROL, visible_form
from stages.verifiers.qa_strict import (
    END_MARKERS,
    QUOTES,
    normalize_answer,
    strict_tokens,
    without_gloss,
)
from stages.verifiers.types import QAReference, Verdict, fail

_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.DOTALL | re.IGNORECASE)
_ANSWER_LINE = re.compile(r"(?im)^\s*[*_]*(?:final answer|answer)[*_]*\s*[:：][*_]*\s*(.+)$")
_CITE_TAG = re.compile(
    r"<(?:cite|citations?|support)>(.*?)</(?:cite|citations?|support)>", re.DOTALL | re.I
)
_CITE_LINE = re.compile(r"(?im)^\s*(?:supporting paragraphs?|citations?|sources?)\s*[:：]\s*(.+)$")
_BRACKET_REF = re.compile(r"\[(?:paragraph\s*)?(\d+)\]", re.IGNORECASE)
_NEGATION = re.compile(r"(?i)(?<![\w'])(?:not|no|never|neither|nor|none)(?![\w'])|n't(?!\w)")


def token_f1(prediction: str, gold: str) -> float:
    pred_tokens, gold_tokens = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not pred_tokens or not gold_tokens:
        return float(pred_tokens == gold_tokens)
    common = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred_tokens), common / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def _as_written(text: str) -> str:
    """A gold that SQuAD normalises to nothing ("A", "The The") is compared as written."""
    return " ".join(text.translate(QUOTES).strip().rstrip(".!?").strip(" \"'").lower().split())


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
    return answer_and_rest(response)[0]


def answer_and_rest(response: str) -> tuple[str, str]:
    """The final answer (as `extract_qa_answer`) and the text that follows it."""
    tags = list(_ANSWER_TAG.finditer(response))
    if tags:
        return tags[-1].group(1).strip(), response[tags[-1].end() :]
    lines = list(_ANSWER_LINE.finditer(response))
    if lines:
        return lines[-1].group(1).strip().strip("*_").strip(), response[lines[-1].end() :]
    return next((line.strip() for line in reversed(response.splitlines()) if line.strip()), ""), ""


def after_answer(rest: str) -> str:
    """What follows the final answer besides citations and punctuation: an answer taken back
    (`<answer>Canberra</answer> Wait, no. It is Sydney.`) or explained away."""
    rest = _CITE_LINE.sub(" ", _CITE_TAG.sub(" ", rest))
    rest = END_MARKERS.sub(" ", _BRACKET_REF.sub(" ", rest))  # `</s>`, `<|im_end|>`
    return " ".join(re.sub(r"[^\w]+", " ", rest).split())


_TRAILING_END = re.compile(rf"(?:\s*(?:{END_MARKERS.pattern}))+\s*\Z")


def control_problem(response: str) -> str | None:
    """Chat-template control tokens end the turn where a chat would: what follows a forged
    `<|im_end|>` is no answer a reader sees, so such a response has none. End-of-text markers
    that only close the response (`<answer>Paris</answer></s>`) are how a turn ends, not a
    forged one."""
    seen = visible_form(response)
    seen = seen[: _TRAILING_END.search(seen).start()] if _TRAILING_END.search(seen) else seen
    return "the response carries chat-template control tokens" if CONTROL.search(seen) else None


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
        control = control_problem(response)
        if control:
            return fail("parse_error", control)
        answer, rest = answer_and_rest(response)
        if not _as_written(answer):
            return fail("parse_error", "no answer in the response")
        trailing = after_answer(rest)
        golds = [ref.answer, *ref.aliases]
        em = float(any(normalize_answer(answer) == normalize_answer(g) for g in golds))
        f1 = max(token_f1(answer, g) for g in golds)  # the metric, as MuSiQue's answer.py
        strict_em, hedge_proof, complete = strict_scores(answer, golds)
        negated = _NEGATION.search(answer.translate(QUOTES))
        if negated and not any(_NEGATION.search(g) for g in golds):
            strict_em = hedge_proof = complete = 0.0  # "not Kahar": the gold's tokens, not meaning
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
        # ... and no word besides (in any order: `2 October 1990`), but for a one-word gloss:
        # "anti Royal Society for the Prevention of Cruelty to Animals" scores 0.84 and says the
        # opposite.
        words = Counter(strict_tokens(without_gloss(answer)))
        same_words = any(words == Counter(strict_tokens(g)) for g in golds)
        passed = bool(strict_em) or (same_words and complete >= self.config.f1_threshold)
        refused = _refusal(answer, trailing, golds)
        if refused:
            passed, reward, reason = False, 0.0, refused
        elif strict_em:
            reason = "exact match"
        elif negated and not passed:
            reason = f"the answer negates the gold ({negated.group()!r})"
        elif hedge_proof >= self.config.f1_threshold and not passed:
            reason = f"token F1 x precision = {hedge_proof:.2f}, but " + (
                "a word of the gold is missing" if not complete else "the answer adds words"
            )
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


def _refusal(answer: str, trailing: str, golds: Sequence[str]) -> str | None:
    """Why the answer is not one whatever its words: text after it, or a question ("Steve
    Jobs?" asks: doubt) where no gold is one."""
    if trailing:
        return f"text follows the final answer: {trailing[:80]!r}"
    asked = answer.rstrip().rstrip("!.\u3002\uff01").endswith(("?", "\uff1f", "\u061f"))
    if asked and not any(g.rstrip().endswith("?") for g in golds):
        return "the answer is a question (doubt), not a statement"
    return None


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
