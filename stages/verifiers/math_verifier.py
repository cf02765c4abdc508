"""The math verifier: extract the one final answer the response commits to (`math_extract`), read
it with the whitelist grammar, decide in pure Python when the comparison is numeric, and send only
symbolic comparisons to worker processes that are killed at `timeout_s`. Reward is 1.0 for a pass,
0.0 otherwise; no response makes it raise (an unexpected error is a failed verdict naming it)."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any

from stages.verifiers.config import MathVerifierConfig
from stages.verifiers.math_chains import symbols_of
from stages.verifiers.math_choice import CHOICE, choice_with_value, letter
from stages.verifiers.math_compare import CompareOptions, fast_compare, is_percent
from stages.verifiers.math_confusables import mixed_script_word
from stages.verifiers.math_context import unescaped
from stages.verifiers.math_decimal_comma import ambiguous_comma, comma_may_be_decimal
from stages.verifiers.math_extract import boxed_spans, extract_answer, math_envs, reference_final
from stages.verifiers.math_labels import labelled
from stages.verifiers.math_nouns import noun_conflict
from stages.verifiers.math_parse import COLLECTIONS, UNORDERED, MathParseError, Node
from stages.verifiers.math_read import OR_WORD, Read, read
from stages.verifiers.math_reference_words import counted_reference
from stages.verifiers.math_sets import conditions_union
from stages.verifiers.math_unit_convert import converted, factor
from stages.verifiers.math_unit_rules import added_unit_problem, pounds_sterling
from stages.verifiers.math_units import units_conflict
from stages.verifiers.pool import HardTimeoutPool
from stages.verifiers.types import Verdict, fail

_SYMPY_TARGET = "stages.verifiers.math_symbolic:sympy_compare"
_LIST_GAP = re.compile(r"^[^A-Za-z]*$|\band\b")
_OR = re.compile(r"\s*\bor\b\s*")
_CHAIN_EQUALS = re.compile(r"(?<![<>!:=\\])=(?!=)")
_NOT_ONE_CHAIN = re.compile(r"[,;]|\\(?:text|mbox|mathrm|q?quad)|(?<![\\A-Za-z])[A-Za-z]{2,}")
_EXTRACTION_STATUS = {"no_answer": "parse_error", "too_long": "parse_error"}
_Prepared = tuple[Node, Node, dict[str, Any]]


def reference_text(reference: str) -> str:
    """A reference may be written as the answer ("\\frac{1}{2}"), in math delimiters
    ("$\\frac{1}{2}$") or as a solution with boxed answers; several boxes or environments form a
    list ("\\boxed{1} and \\boxed{2}", "$1$ and $2$")."""
    reference = _repaired(reference)
    spans = boxed_spans(reference)
    if spans:
        # "\\boxed{1} papers and \\boxed{2} bins" lists two; "\\boxed{1} no no \\boxed{2}" corrects
        joined = all(
            _LIST_GAP.search(reference[a[1] : b[0]]) for a, b in zip(spans, spans[1:], strict=False)
        )
        texts = [text for _, _, text in spans]
        return ", ".join(dict.fromkeys(texts)) if joined else texts[-1]
    if (
        "\n" in reference.strip() or len(reference) > 200
    ):  # a worked solution: read its final answer
        found = reference_final(reference)
        if found is not None:
            return found
    envs = [text for _, text in math_envs(reference)]
    if len(envs) > 1 and sum(len(e) for e in envs) + 12 * len(envs) >= len(reference.strip()):
        return ", ".join(envs)
    if len(envs) == 1:
        return envs[0]
    return reference


def _repaired(reference: str) -> str:
    """A trusted reference stored as an escaped string ("\\\\boxed{...}") is read unescaped, and a box
    it opens last and never closes, its braces inside balanced, closes at its end."""
    text = unescaped(reference)
    start = text.rfind("\\boxed{")
    if start < 0 or any(s[0] == start for s in boxed_spans(text)):
        return text
    inside = text[start + len("\\boxed{") :]
    return text + "}" if inside.count("{") == inside.count("}") else text


def read_reference(reference: str) -> Read:
    """Read a task's reference answer (the same unicode and unit reading as a response's);
    raises MathParseError when it is outside the grammar."""
    # a reference may list alternatives with "or" ("(11,7) or (7,11)"); answers may not (a hedge)
    text = _OR.sub(", ", reference_text(reference))
    choice = CHOICE.fullmatch(text)  # an AMC choice and its value: the letter is asked, even
    if choice is not None:  # where the grammar reads the whole ("\\textbf{(C) }\\frac{3}{10}")
        return read("\\text{" + letter(choice) + "}")
    try:
        return read(text)
    except MathParseError as error:
        return _lenient_reference(text, error)


def _lenient_reference(text: str, error: MathParseError) -> Read:
    """A reference outside the grammar read the way its author meant it, or `error`."""
    # A reference is trusted: words after its number name what is counted ("18 apples",
    # "5 \\text{ eggs}"). An answer must still state the number alone or with a listed unit.
    counted = counted_reference(text)  # raises where a word changes the value unreadably
    if counted is not None:
        return counted
    # A chain of equalities ("1 = \\zzz = x = 0") ends in the value it derives: a reference whose
    # earlier sides are outside the grammar is read by its final side.
    # One chain only: no list, words or text in it ("x = 1 \\text{ and } y = 2" is two answers).
    sides = _CHAIN_EQUALS.split(text)
    if (
        len(sides) < 3
        or _NOT_ONE_CHAIN.search(text)
        or any(side.count("{") != side.count("}") for side in sides)
    ):
        raise error
    return read(sides[-1])


def _choice_verdict(
    answer: str, reference: str, details: dict[str, Any]
) -> Verdict | tuple[Node, Node] | None:
    """The verdict on an answer that states an AMC choice with its value, the two values left to
    compare (the letters agree, the values are written differently), or None for another answer."""
    chosen = choice_with_value(answer, reference_text(reference))
    if chosen is None or not isinstance(chosen[0], bool):
        return chosen
    passed, reason = chosen
    return _decided(passed, reason, details)


def _decided(passed: bool, reason: str, details: dict[str, Any]) -> Verdict:
    """The verdict of a comparison that reached an answer (the choice, fast or symbolic path)."""
    status = "ok" if passed else "failed"
    return Verdict(
        passed=passed, reward=float(passed), status=status, reason=reason, details=details
    )


def _labelled_boxes(found: Any, ref: Node) -> Node | None:
    """The labelled list that one box per labelled component states, where the reference is a
    labelled tuple and no "or" joins the boxes; None otherwise (`math_labels` matches by label)."""
    if not found.several or found.several_or or labelled(ref) is None:
        return None
    try:
        items = [read(t).node for t in found.several]
    except MathParseError:
        return None
    answer = ("list", items)
    return answer if labelled(answer) is not None else None


def parse_reference(reference: str) -> Node:
    """Parse a task's reference answer; raises MathParseError when it is outside the grammar."""
    return read_reference(reference).node


def _in_reference_units(
    answer: Node, answer_read: Read, ref_read: Read, found: Any, reference: str, details: dict
) -> Node | Verdict:
    """The answer in the reference's unit, or the failed verdict when the quantity or the unit it
    names is not the reference's (`details` gains the conversion made)."""
    ref_text = reference_text(reference)
    noun = noun_conflict(found.tail, ref_text)
    if noun:  # "\\boxed{18} oranges" for "18 apples": another quantity (round 15)
        return fail("failed", noun, **details)
    unit, ref_unit = _unit(answer_read), _unit(ref_read)
    unit = pounds_sterling(found.text, unit, ref_unit)  # "20 pounds" for "£20"
    added = added_unit_problem(unit, ref_unit, ref_text, ref_read.node)
    if added:  # "18 kg" for "18 apples", "\\frac{\\pi}{6}°" for "\\frac{\\pi}{6}"
        return fail("failed", added, **details)
    conflict = units_conflict(unit, ref_unit)
    by = factor(unit, ref_unit) if conflict else None
    scaled = converted(answer, by) if by is not None else None
    if conflict and scaled is None:
        return fail("failed", conflict, **details)
    if scaled is not None:
        answer, details["converted"] = scaled, f"{unit} -> {ref_unit}"
    return answer


def _unit(found: Read) -> str | None:
    return "%" if found.unit is None and is_percent(found.node) else found.unit


class MathVerifier:
    """Verifier[str]: the reference is the answer as text ("19", "\\frac{1}{2}", "(1, 2)")."""

    name = "math"

    def __init__(self, config: MathVerifierConfig | None = None) -> None:
        self.config = config or MathVerifierConfig()
        self.options = CompareOptions(
            rel_tolerance=self.config.rel_tolerance,
            decimal_rounding_places=self.config.decimal_rounding_places,
            percent_as_fraction=self.config.percent_as_fraction,
            round_exact_references=self.config.round_exact_references,
            inequality_answers_interval=self.config.inequality_answers_interval,
            rename_variables=self.config.rename_variables,
        )
        self._pool: HardTimeoutPool | None = None
        self._ref_cache: dict[str, Read | str] = {}

    def _reference(self, reference: str) -> Read | str:
        cached = self._ref_cache.get(reference)
        if cached is None:
            try:
                cached = read_reference(reference)
            except MathParseError as e:
                cached = f"reference {reference!r} is not parseable: {e}"
            if len(self._ref_cache) < 100_000:
                self._ref_cache[reference] = cached
        return cached

    def _prepare(self, response: str, reference: str) -> Verdict | _Prepared:
        """Everything up to the symbolic step; a verdict when no sympy is needed. An unexpected
        error on a hostile response is a failed verdict, never an exception."""
        try:
            return self._prepare_unguarded(response, reference)
        except Exception as e:  # noqa: BLE001 - the response is hostile; the verdict names the error
            return fail("failed", f"the response made the verifier fail: {type(e).__name__}: {e}")

    def _prepare_unguarded(self, response: str, reference: str) -> Verdict | _Prepared:
        ref_read = self._reference(reference)
        if isinstance(ref_read, str):
            return fail("parse_error", ref_read)
        ref = ref_read.node
        mixed = mixed_script_word(response)
        if mixed is not None:  # a doubt word spelled past the word lists (round 19)
            return fail("failed", f"a word mixes look-alike letters of other scripts: {mixed!r}")
        found = extract_answer(response, self.config.extraction, self.config.max_answer_chars)
        details: dict[str, Any] = {"extracted": found.text, "mode": found.mode}
        unsure = ambiguous_comma(found.text or "", response)
        if unsure is not None:  # French "2,500 kg" is 2.5 kg (round 23)
            return fail("failed", unsure, **details)
        # "The roots are 2,50": no 2.5 (round 27)
        decimal = comma_may_be_decimal(" ".join([found.text or "", *found.several]), response)
        if found.text is None and found.several and ref[0] in (*UNORDERED, "braces"):
            # one final per item ("\\boxed{1}, \\boxed{2}") answers a set or list reference
            try:
                items = [read(t, decimal_comma=decimal).node for t in found.several]
            except MathParseError as e:
                return fail("failed", f"{found.reason}; one is not parseable: {e}", **details)
            answer = ("list", items)
        elif found.text is None and _labelled_boxes(found, ref) is not None:
            # "$x = \\boxed{3}$ and $y = \\boxed{5}$": one box per labelled component (round 20)
            answer = _labelled_boxes(found, ref)
        elif found.text is None:
            status = _EXTRACTION_STATUS.get(found.problem, "failed")
            return fail(status, found.reason, **details)  # type: ignore[arg-type]
        elif CHOICE.fullmatch(found.text):  # a choice and its value, read as a choice even where
            # the grammar reads the whole ("\\textbf{(C) }\\frac{3}{10}")
            chosen = _choice_verdict(found.text, reference, details)
            if not isinstance(chosen, tuple):
                return chosen  # type: ignore[return-value]
            answer, ref = chosen  # the same letter: its two values are compared below
        else:
            try:
                # "12kg" for "12" or "5 cm": a glued abbreviation is the answer's unit where the
                # reference has no variables; for "2mg" its letters are variables (round 25)
                answer_read = read(found.text, not symbols_of(ref), decimal)
            except MathParseError as e:
                chosen = _choice_verdict(found.text, reference, details)
                if isinstance(chosen, Verdict):
                    return chosen
                return fail("failed", f"the answer is not one answer: {e}", **details)
            answer = answer_read.node
            if answer[0] == "set" and OR_WORD.search(found.text) and ref[0] not in COLLECTIONS:
                # "3 or 4" is the set {3, 4} only where a set is asked; for one value, a hedge.
                # "x<1 or x>2" against a union or interval is the union it states (round 18).
                union = conditions_union(answer) if ref[0] in ("union", "interval") else None
                if union is None:
                    return fail("failed", "hedged, a bound or a range ('or')", **details)
                answer = union
            measured = _in_reference_units(answer, answer_read, ref_read, found, reference, details)
            if isinstance(measured, Verdict):
                return measured
            answer = measured
        outcome = fast_compare(answer, ref, self.options)
        if outcome is None:
            return answer, ref, details
        details["path"] = "fast"
        return _decided(*outcome, details)

    def verify(self, response: str, reference: str) -> Verdict:
        return self.verify_batch([(response, reference)])[0]

    def verify_batch(self, items: Sequence[tuple[str, str]]) -> list[Verdict]:
        verdicts: list[Verdict | None] = []
        symbolic: list[tuple[int, dict[str, Any]]] = []
        jobs: list[tuple[Node, Node, CompareOptions]] = []
        for i, (response, reference) in enumerate(items):
            started = time.monotonic()
            prepared = self._prepare(response, reference)
            # Extraction and parsing are linear and run here, not in a killable worker; the
            # limit still applies to them, so a slow one is a timeout rather than a verdict.
            elapsed = time.monotonic() - started
            if elapsed > self.config.timeout_s:
                prepared = fail(
                    "timeout",
                    f"extraction and parsing took {elapsed:.1f}s > {self.config.timeout_s}s",
                )
            if isinstance(prepared, Verdict):
                verdicts.append(prepared)
                continue
            answer, ref, details = prepared
            verdicts.append(None)
            symbolic.append((i, details))
            jobs.append((answer, ref, self.options))
        if jobs:
            results = self._get_pool().run(jobs, self.config.timeout_s)
            for (i, details), (kind, value) in zip(symbolic, results, strict=True):
                details = {**details, "path": "sympy"}
                if kind == "timeout":
                    verdicts[i] = fail(
                        "timeout", f"symbolic check exceeded {self.config.timeout_s}s", **details
                    )
                elif kind == "error":
                    verdicts[i] = fail("parse_error", f"symbolic check failed: {value}", **details)
                else:
                    verdicts[i] = _decided(*value, details)
        return [v for v in verdicts if v is not None]

    def _get_pool(self) -> HardTimeoutPool:
        if self._pool is None:
            self._pool = HardTimeoutPool(_SYMPY_TARGET, self.config.workers)
        return self._pool

    def close(self) -> None:
        """Stop the worker processes (they are daemons, so exiting the parent also stops them)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None
