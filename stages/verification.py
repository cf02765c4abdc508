"""Stage 3, automated verification: calibrate the verifier on known-right and known-wrong answers
(near misses, wrong sign, other tasks' answers, hedges, conflicting finals, echoed expressions),
and run the built-in adversary on the run's own tasks (`stages.tasks.adversary`): wrong variants
of each sampled reference that must all fail, right ones in other formats whose pass rate is
recorded. The event names every wrong answer that was accepted, and an example of every accepted
hack kind, so a failed gate can be explained."""

from __future__ import annotations

from collections import Counter

from stages.common import sample_of
from stages.services import verifier_config
from stages.types import StageContext
from store.events import VerifierCalibrated


class Verification:
    name = "verification"

    def run(self, ctx: StageContext) -> None:
        if "VerifierCalibrated" in ctx.state().stage_results:
            return
        from stages.tasks.calibration import calibrate

        suite = ctx.services.tasks
        tasks = sample_of(suite.train, ctx.config.pipeline.calibration_tasks, ctx.config.seed)
        report = calibrate(ctx.services.verifier(), tasks, seed=ctx.config.seed)

        def outcome(o) -> dict:
            return {"task_id": o.candidate.task_id, "kind": o.candidate.kind, "response": o.candidate.text,
                    "status": o.status, "reason": o.reason}  # fmt: skip

        ctx.emit(
            [
                VerifierCalibrated(
                    verifier=verifier_config(ctx.config).kind,
                    n_right=report.n_right,
                    n_wrong=report.n_wrong,
                    false_positive_rate=report.false_positive_rate,
                    false_negative_rate=report.false_negative_rate,
                    accepted_wrong=[outcome(o) for o in report.accepted_wrong],
                    rejected_right=[outcome(o) for o in report.rejected_right],
                    accepted_hack_kinds=dict(
                        Counter(o.candidate.kind for o in report.accepted_hacks)
                    ),
                    accepted_hack_examples=report.hack_examples(),
                    adversary_variants=report.adversary_wrong,
                    right_variant_pass_rate=report.right_variant_pass_rate,
                    by_kind=report.by_kind,
                )
            ]
        )
