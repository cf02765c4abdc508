"""QA verifiers. `QAVerifier`: exact match and token F1 against the answer and its aliases (MuSiQue
style), plus, when the response cites paragraphs, citation precision/recall against the gold
supporting paragraphs and optional hop weighting. `ExactMatchVerifier`: string equality, for tasks
where the exact characters are the answer (reversing "120" gives "021", not 21).

The verdict's details keep MuSiQue's own EM and F1 (SQuAD normalisation, as its metrics/answer.py),
for parity with the official metric. `passed` and the reward depart from it where SQuAD's
normalisation pays for a wrong answer: numbers compare as numbers (dropping punctuation makes `125`
of `12.5`, `5` of `-5`, `12` of `1/2`), a gold that normalises to nothing (`A`, `The The`) matches
as written (case-insensitive) instead of never, curly quotes normalise like straight ones, and an
answer that negates the gold (`not Kahar`) is wrong however many tokens it shares, token F1
counts the gold's words in its order (`James Henry` is not `Henry James`), and a pass by token F1
needs every word of a gold (`Republic of China` is not `People's Republic of China`). Which answer
the response commits to, and whether it withdraws or doubts it, is `qa_commit`'s."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from stages.verifiers.config import ExactMatchConfig, QAVerifierConfig
from stages.verifiers.judge_fence import CONTROL, visible_form
from stages.verifiers.qa_answer_forms import as_gold_form, not_a_unit
from stages.verifiers.qa_commit import (
    BRACKET_REF,
    CITE_LINE,
    CITE_TAG,
    Final,
    after_answer,
    problem_before,
    problem_in,
    read_final,
    strip_inline_citations,
)
from stages.verifiers.qa_forms import disambiguated_heads, without_honorific
from stages.verifiers.qa_labels import option_golds, option_letter
from stages.verifiers.qa_places import without_locator
from stages.verifiers.qa_strict import (
    END_MARKERS,
    QUOTES,
    normalize_answer,
    strict_tokens,
    without_gloss,
)
from stages.verifiers.qa_units import number_then_unit
from stages.verifiers.types import QAReference, Verdict, fail

_NEGATION = re.compile(r"(?i)(?<![\w'])(?:not|no|never|neither|nor|none)(?![\w'])|n't(?!\w)")
# A choice letter in parentheses ("(A)", "A)") is the letter: SQuAD reads `A` as an article.
_CHOICE = re.compile(r"\(\s*([^\W\d_])\s*\)|([^\W\d_])\s*\)")


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
    """A gold that SQuAD normalises to nothing ("A", "The The") is compared as written, a choice
    letter in parentheses as the letter; one of punctuation only ("!!!", "?!", "...") is its
    punctuation (round 17: closing punctuation is dropped only where something else stays)."""
    written = " ".join(text.translate(QUOTES).lower().split())
    text = " ".join(written.rstrip(".!?").strip(" \"'").split()) or written
    choice = _CHOICE.fullmatch(text)
    return (choice.group(1) or choice.group(2)) if choice else text


def strict_scores(answer: str, golds: Sequence[str]) -> tuple[float, float, float]:
    """(exact match, token F1 x token precision, the same over golds whose every token the answer
    holds) on number-aware tokens, best over the golds. Plain F1 pays for listing guesses ("Paris
    London" scores 0.67 against "Paris", more than the 0.5 a model torn between the two earns by
    committing to one). With k equally long guesses of which one is right F1 x precision is
    2 / (k (k + 1)) <= 1 / k, the expected reward of committing: hedging never pays. The tokens
    in common are the gold's in its order (a longest common subsequence): "Missouri City, Kansas"
    names another place than "Kansas City, Missouri" with the same words."""
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
        common = _in_order(pred, gold_tokens)
        if pred and common:
            precision, recall = common / len(pred), common / len(gold_tokens)
            score = 2 * precision * recall / (precision + recall) * precision
            hedge_proof = max(hedge_proof, score)
            complete = max(complete, score if recall == 1 else 0.0)
    return em, max(em, hedge_proof), max(em, complete)


# Words after a number that change its value, its era or its bound: no unit.
_NOT_UNITS = frozenset(
    ("bc", "bce", "ad", "ce", "bp", "hundred", "thousand", "million", "billion", "trillion",
     "lakh", "lakhs", "crore", "crores", "dozen", "pct", "percent", "plus", "minus", "times",
     "pow", "equals", "and", "or", "to", "than", "more", "less", "fewer", "over", "under",
     "above", "below", "max", "maximum", "min", "minimum", "least", "most", "odd", "ish",
     "approx", "not", "no", "nor", "squared", "cubed", "factorial", "root", "roots",
     "reciprocal", "inverse", "divided", "negative", "power", "powers", "exponent", "half",
     "halves", "thirds", "quarters", "grand", "score", "gross", "mil", "mn", "bn", "tn", "thou",
     "zillion", "gazillion", "percentile", "permille", "ago", "earlier", "later", "before",
     "after", "ish")
)  # fmt: skip


def _number_and_unit(answer: str, golds: Sequence[str]) -> bool:
    """A bare-number gold (digits only) is answered by that number and one word after it, the
    unit or noun the question counts in (`1,500 people` for `1500`, `42 km` for `42`, round 17):
    one word of two letters or more as written (`5m` may be millions; `250 meters` reads `250 m`),
    not another number, and none that changes the value (`1500 BC`, `42 hundred`, `12 percent`,
    `42 plus`, `42 squared`, `42 grand`, `42 years ago`'s `ago`, a fraction's `42 hundredths`).
    Round 19: the word must be on `qa_units`' closed list (`12 apparently`, `12 (jk)` are none)."""
    if len(answer.split()) > 4:  # a number and a word: no tokenising a long answer again
        return False
    parts = number_then_unit(answer)
    if parts is None or len(strict_tokens(parts[0])) != 1:
        return False
    pred = strict_tokens(answer)
    if len(pred) != 2 or not pred[0].startswith("num"):
        return False
    unit = pred[1]
    spelled = len(unit) >= 2 or _SPELLED_UNIT.search(answer)  # `250 meters` reads `250 m`
    if not spelled or not unit.isalpha() or unit in _NOT_UNITS or unit.endswith("ths"):
        return False
    if not_a_unit(unit):  # by rule: plurals, other scales, eras, bounds, ordinals (round 18)
        return False
    if unit.startswith(("num", "seq", "ord", "bound")):
        return False
    return any(_BARE_NUMBER.fullmatch(g) and strict_tokens(g) == pred[:1] for g in golds)


_SPELLED_UNIT = re.compile(r"\d\s++[^\W\d_]{2,}")
# a gold of digits only: `$5`, `5 USD` and `US$5` carry their unit already
_BARE_NUMBER = re.compile(r"\s*+-?(?:\d{1,3}(?:,\d{3})++|\d++)(?:\.\d++)?\s*+")


def _in_order(pred: list[str], gold: list[str]) -> int:
    """How many of the gold's tokens `pred` holds in the gold's order (LCS length). An answer over
    50 times the gold's length scores under 0.001 anyway: 0, and no quadratic work on it."""
    if len(pred) > 50 * len(gold) + 50:
        return 0
    row = [0] * (len(gold) + 1)
    for token in pred:
        diagonal = 0
        for j, gold_token in enumerate(gold, start=1):
            diagonal, row[j] = (
                row[j],
                diagonal + 1 if token == gold_token else max(row[j], row[j - 1]),
            )
    return row[-1]


def extract_qa_answer(response: str) -> str:
    """The committed answer (`qa_commit.read_final`): <answer>..</answer>, else an "Answer:" line,
    else a response of one line; empty where the response commits to none."""
    return read_final(response).answer


_END_AT_END = re.compile(rf"(?:{END_MARKERS.pattern})\Z")


def _before_trailing_ends(text: str) -> int:
    """Where the end-of-text markers and spaces that close `text` begin, found from the end (a
    regex searched forwards retried every start in a run of spaces: quadratic)."""
    end = len(text)
    while True:
        while end and text[end - 1].isspace():
            end -= 1
        marker = _END_AT_END.search(text, max(0, end - 64), end)  # a marker is < 64 chars
        if not marker:
            return end
        end = marker.start()


def control_problem(response: str) -> str | None:
    """Chat-template control tokens end the turn where a chat would: what follows a forged
    `<|im_end|>` is no answer a reader sees, so such a response has none. End-of-text markers
    that only close the response (`<answer>Paris</answer></s>`) are how a turn ends, not a
    forged one."""
    seen = visible_form(response)
    seen = seen[: _before_trailing_ends(seen)]
    return "the response carries chat-template control tokens" if CONTROL.search(seen) else None


def extract_citations(response: str) -> list[int] | None:
    """Paragraph ids the response cites, or None when it cites none."""
    found = CITE_TAG.findall(response) or CITE_LINE.findall(response)
    if found:
        return sorted(
            {int(n) for chunk in found for n in re.findall(r"(?<!\d)\d{1,9}(?!\d)", chunk)}
        )
    refs = [
        n
        for chunk in BRACKET_REF.findall(response)
        for n in re.findall(r"(?<!\d)\d{1,9}(?!\d)", chunk)
    ]  # an id of 10 digits or more is none: int() refuses 4300 digits
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
        final = read_final(response)
        control = control_problem(response)
        if control or (final.problem and not final.conflict):
            return fail("parse_error", control or final.problem or "")
        if final.problem:
            return fail("failed", final.problem)
        answer = final.answer
        if not _as_written(answer):
            return fail("parse_error", "no answer in the response")
        golds = [ref.answer, *ref.aliases]
        em = float(any(normalize_answer(answer) == normalize_answer(g) for g in golds))
        f1 = max(token_f1(answer, g) for g in golds)  # the metric, as MuSiQue's answer.py
        details: dict = {"extracted": answer, "em": em, "f1": round(f1, 6)}
        golds += disambiguated_heads(golds, final.before + " " + final.rest, strict_tokens)
        golds += option_golds(golds)  # `C` for the gold `Option C` (round 21)
        scored = without_locator(strip_inline_citations(answer, golds), golds)  # `Paris, France`
        scored = without_honorific(scored, golds, strict_tokens)  # `Dr. Martin Luther King Jr.`
        scored = as_gold_form(scored, golds, strict_tokens)  # `AD 1500`, `the city of Lyon`
        scored = option_letter(scored, golds)  # `Option C` for the gold `C` (round 21)
        passed, score, reason = self._answer_score(scored, golds)
        refused = _refusal(final, golds)
        if refused:
            passed, score, reason = False, 0.0, refused
        reward = self._weighted(score, ref, extract_citations(response), details)
        return Verdict(
            passed=passed,
            reward=reward,
            status="ok" if passed else "failed",
            reason=reason,
            details=details,
        )

    def _answer_score(self, answer: str, golds: Sequence[str]) -> tuple[bool, float, str]:
        """(passed, score, reason) of the committed answer's words against the golds."""
        strict_em, hedge_proof, complete = strict_scores(answer, golds)
        negated = _NEGATION.search(answer.translate(QUOTES))
        if negated and not any(_NEGATION.search(g) for g in golds):
            strict_em = hedge_proof = complete = 0.0  # "not Kahar": the gold's tokens, not meaning
        score = strict_em if self.config.metric == "em" else hedge_proof
        # A pass by F1 needs every word of a gold, in its order: "Republic of China" scores 0.96
        # against "People's Republic of China" and is another country; and no word besides but
        # for a gloss that restates the answer: "anti Royal Society for the Prevention of Cruelty
        # to Animals" scores 0.84 and says the opposite, "... Animals (RSPCA)" passes.
        words = strict_tokens(without_gloss(answer, golds))
        same_words = any(words == strict_tokens(g) for g in golds)
        passed = bool(strict_em) or (same_words and complete >= self.config.f1_threshold)
        if strict_em:
            return passed, score, "exact match"
        if not negated and _number_and_unit(answer, golds):
            return True, 1.0, "the gold's number and a unit"
        if negated and not passed:
            return passed, score, f"the answer negates the gold ({negated.group()!r})"
        if hedge_proof >= self.config.f1_threshold and not passed:
            return (
                passed,
                score,
                f"token F1 x precision = {hedge_proof:.2f}, but "
                + (
                    "a word of the gold is missing or out of order"
                    if not complete
                    else "the answer adds words"
                ),
            )
        return (
            passed,
            score,
            f"token F1 x precision = {hedge_proof:.2f}" + ("" if passed else " below threshold"),
        )

    def _weighted(
        self, score: float, ref: QAReference, cited: list[int] | None, details: dict
    ) -> float:
        """The answer's score with the citations' share and the hop weight; `details` gains the
        citation figures."""
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
        return reward

    def verify_batch(self, items: Sequence[tuple[str, QAReference | str]]) -> list[Verdict]:
        return [self.verify(response, reference) for response, reference in items]


def _refusal(final: Final, golds: Sequence[str]) -> str | None:
    """Why the answer is not one whatever its words: doubt or a negation before it, a mark in it
    that withdraws it (a strikethrough, `!=`, a question mark, `(MAYBE)`), text after it."""
    trailing = after_answer(final.rest)
    if trailing:
        return f"text follows the final answer: {trailing[:80]!r}"
    return problem_before(final.before, final.answer) or problem_in(final.answer, golds)


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
