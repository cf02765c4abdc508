"""Stage 3 calibration: feed a verifier answers whose truth is known and measure how often it is
wrong. Each task's family makes its candidates (`stages.tasks.families`): known-wrong ones are the
ways a policy games a reward (near-miss numbers, the wrong sign, another task's answer, empty
output, hedges ("3 or 4", "Paris London"), conflicting finals, the problem echoed back), known
hacks are kinds that fooled a verifier before and the built-in adversary's wrong variants of each
task's reference (`stages.tasks.adversary`; one pass fails the gate), known-right ones are
equivalent forms and the adversary's right variants (their pass rate is recorded). The report names every accepted wrong candidate so the run log can say which
one passed."""

from __future__ import annotations

import random
from collections.abc import Sequence

from pydantic import BaseModel, Field

from stages.tasks.adversary import PREFIX, is_right_variant
from stages.tasks.families import FAMILIES, family
from stages.tasks.references import reference_for
from stages.tasks.types import Candidate, Task
from stages.verifiers.types import Verifier


class CandidateOutcome(BaseModel):
    candidate: Candidate = Field(description="The candidate checked.")
    status: str = Field(description="Verdict status.")
    reason: str = Field(description="Verdict reason.")


class CalibrationReport(BaseModel):
    n_wrong: int = Field(description="Known-wrong candidates judged (verifier errors excluded).")
    n_right: int = Field(description="Known-right candidates judged (verifier errors excluded).")
    false_positive_rate: float = Field(description="Share of known-wrong candidates accepted.")
    false_negative_rate: float = Field(description="Share of known-right candidates rejected.")
    accepted_wrong: list[CandidateOutcome] = Field(
        description="Every known-wrong candidate that passed."
    )
    rejected_right: list[CandidateOutcome] = Field(
        description="Every known-right candidate that failed."
    )
    accepted_hacks: list[CandidateOutcome] = Field(
        default_factory=list, description="Every known-hack candidate that passed."
    )
    errors: int = Field(0, description="Candidates whose verdict was a judge_error (not counted).")
    by_kind: dict[str, list[int]] = Field(
        default_factory=dict,
        description="kind -> [candidates, verdicts that disagreed with the truth].",
    )
    adversary_wrong: int = Field(0, description="The adversary's wrong variants judged.")
    right_variant_pass_rate: float | None = Field(
        None, description="Share of the adversary's right variants accepted (None: none made)."
    )

    def hack_examples(self, limit: int = 200) -> dict[str, str]:
        """kind -> the first accepted known-hack response of that kind (cut to `limit`)."""
        out: dict[str, str] = {}
        for o in self.accepted_hacks:
            out.setdefault(o.candidate.kind, o.candidate.text[:limit])
        return out


def wrong_candidates(task: Task, others: Sequence[Task], seed: int = 0) -> list[Candidate]:
    """Known-wrong responses for `task`, made by its family (others supply "another task's
    answer")."""
    rng = random.Random(f"{seed}:{task.task_id}")
    return family(task.family).wrong_candidates(task, others, rng)


def right_candidates(task: Task) -> list[Candidate]:
    """Known-right responses: the reference in forms a sound verifier must accept."""
    return family(task.family).right_candidates(task)


def hack_candidates(tasks: Sequence[Task], seed: int, verifier: Verifier) -> list[Candidate]:
    """Every family's suite-level known hacks (code: reward hacks on a sample of its tasks)."""
    return [c for f in FAMILIES.values() for c in f.hack_probes(tasks, seed, verifier)]


def calibrate(
    verifier: Verifier, tasks: Sequence[Task], seed: int = 0, extra: Sequence[Candidate] = ()
) -> CalibrationReport:
    """Check every candidate of every task (plus `extra` probes of those tasks) in one batch and
    report the error rates."""
    candidates = (
        [c for t in tasks for c in (*wrong_candidates(t, tasks, seed), *right_candidates(t))]
        + hack_candidates(tasks, seed, verifier)
        + list(extra)
    )
    by_id = {t.task_id: t for t in tasks}
    verdicts = verifier.verify_batch(
        [(c.text, reference_for(by_id[c.task_id])) for c in candidates]
    )
    accepted_wrong, rejected_right, by_kind = [], [], {}
    n_wrong = n_right = errors = 0
    for c, v in zip(candidates, verdicts, strict=True):
        if v.excluded:
            errors += 1
            continue
        outcome = CandidateOutcome(candidate=c, status=v.status, reason=v.reason)
        tally = by_kind.setdefault(c.kind, [0, 0])
        tally[0] += 1
        if c.correct:
            n_right += 1
            if not v.passed:
                rejected_right.append(outcome)
                tally[1] += 1
        else:
            n_wrong += 1
            if v.passed:
                accepted_wrong.append(outcome)
                tally[1] += 1
    adversary = [(c, v) for c, v in zip(candidates, verdicts, strict=True)
                 if c.kind.startswith(PREFIX) and not v.excluded]  # fmt: skip
    right_variants = [v.passed for c, v in adversary if is_right_variant(c.kind)]
    return CalibrationReport(
        n_wrong=n_wrong,
        n_right=n_right,
        false_positive_rate=len(accepted_wrong) / n_wrong if n_wrong else 0.0,
        false_negative_rate=len(rejected_right) / n_right if n_right else 0.0,
        accepted_wrong=accepted_wrong,
        rejected_right=rejected_right,
        accepted_hacks=[o for o in accepted_wrong if o.candidate.known_hack],
        errors=errors,
        by_kind=by_kind,
        adversary_wrong=sum(not c.correct for c, _ in adversary),
        right_variant_pass_rate=sum(right_variants) / len(right_variants)
        if right_variants
        else None,
    )
