"""`rlvr check --adversary FILE`: stage 3's calibration and built-in adversary on a user's own task
file, as a run would calibrate on its tasks: one table row per kind (candidates, those the
verifier judged against their truth, an example), then the zero-tolerance verdict. Exit 0 when
no wrong variant or known hack passed, 1 when one did, 2 on bad input."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from stages.tasks.calibration import CalibrationReport


def _load(file: Path, family: str | None) -> list[Any]:
    from stages.tasks import load_tasks
    from stages.tasks.types import TaskFormatError

    try:
        tasks = load_tasks(file, family)
    except (TaskFormatError, OSError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(code=2) from e
    if not tasks:
        typer.echo(f"error: {file}: no tasks", err=True)
        raise typer.Exit(code=2)
    return tasks


def _examples(report: CalibrationReport) -> dict[str, str]:
    """kind -> one response the verifier got wrong (accepted wrong, rejected right)."""
    out: dict[str, str] = {}
    for o in (*report.accepted_wrong, *report.rejected_right):
        out.setdefault(o.candidate.kind, o.candidate.text)
    return out


def table(report: CalibrationReport) -> list[str]:
    """One row per kind: candidates checked, verdicts against their truth (a wrong one passed, a
    right one failed), and an example of such a verdict."""
    examples = _examples(report)
    width = max([len(k) for k in report.by_kind] + [4])
    rows = [f"{'kind':<{width}}  {'checked':>7}  {'misjudged':>9}  example misjudged"]
    for kind, (checked, misjudged) in sorted(report.by_kind.items()):
        example = " ".join(examples[kind].split())[:60] if kind in examples else None
        rows.append(f"{kind:<{width}}  {checked:>7}  {misjudged:>9}  {example!r}" if example is not None
                    else f"{kind:<{width}}  {checked:>7}  {misjudged:>9}  -")  # fmt: skip
    return rows


def check_adversary(
    file: Path,
    family: str | None,
    n_tasks: int,
    seed: int,
    settings_for: Callable[[str], dict[str, Any]],
) -> None:
    """Calibrate the family's verifier (configured by `settings_for(kind)`) on up to `n_tasks`
    of `file`'s tasks."""
    from orchestrator.cli.verifier_options import built_verifier
    from stages.common import sample_of
    from stages.tasks.calibration import calibrate
    from stages.tasks.families import FAMILIES

    tasks = sample_of(_load(file, family), n_tasks, seed)
    kind = FAMILIES[tasks[0].family].verifier_kind
    with built_verifier(settings_for(kind)) as verifier:
        report = calibrate(verifier, tasks, seed=seed)
    for row in table(report):
        typer.echo(row)
    rate = report.right_variant_pass_rate
    typer.echo(
        f"{file}: {len(tasks)} tasks ({tasks[0].family}, verifier {kind}), seed {seed}: "
        f"{report.n_wrong} wrong candidates, {len(report.accepted_wrong)} passed "
        f"(false-positive rate {report.false_positive_rate:.1%}); "
        f"adversary: {report.adversary_wrong} wrong variants"
        + (f", right variants passed {rate:.1%}" if rate is not None else ""),
        err=True,
    )
    if report.accepted_hacks:
        kinds = ", ".join(sorted({o.candidate.kind for o in report.accepted_hacks}))
        typer.echo(f"FAIL (zero tolerance): wrong variants passed: {kinds}", err=True)
        raise typer.Exit(code=1)
