"""Start-up time of the real `rlvr` console script, as a person types it.

Times, each the median of --runs runs (after one untimed warm-up run that fills the OS file cache):
  help_s        `rlvr --help`
  check_math_s  `rlvr check --verifier math FILE` on a 3-line file (a boxed answer, an `Answer:` line,
                a LaTeX fraction)
  import_cli_s  `python -c "import orchestrator.cli"`
  python_s      `python -c pass` (the interpreter alone: the floor under every figure above)
and the import-time breakdown of `rlvr check --verifier math` (`python -X importtime`, self time
summed per top-level package), so a slow start-up names what it loads.

The issue's target is under 1 s for both commands on an idle 2-core machine; timings taken on a
loaded machine are inflated (compare ratios within one run only).

Run: .venv/bin/python tests/benchmarks/bench_startup.py [--runs 7]
The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THREE_LINES = (
    '{"response": "\\\\boxed{5}", "reference": "5"}\n'
    '{"response": "Answer: 3", "reference": "4"}\n'
    '{"response": "$\\\\frac{1}{2}$", "reference": "0.5"}\n'
)
TARGET_S = 1.0


def rlvr_script() -> str:
    """The installed console script beside this interpreter (what `rlvr` on PATH runs)."""
    beside = Path(sys.executable).parent / "rlvr"
    found = str(beside) if beside.is_file() else shutil.which("rlvr")
    if found is None:
        raise SystemExit("no `rlvr` console script: pip install -e . first")
    return found


def median_seconds(argv: list[str], runs: int) -> float:
    env = {**os.environ, "RLVR_LOG_LEVEL": "WARNING"}
    times = []
    for i in range(runs + 1):  # the first run warms the file cache and is not counted
        started = time.perf_counter()
        subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, check=True, timeout=120)
        if i:
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def import_breakdown(argv: list[str]) -> Counter[str]:
    """Self import time (seconds) per top-level package, from `python -X importtime`."""
    code = f"import sys\nfrom orchestrator.cli import main\nsys.argv = {argv!r}\nmain()\n"
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    per_package: Counter[str] = Counter()
    for line in result.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) != 3 or not parts[0].strip().isdigit():
            continue  # the header line
        per_package[parts[2].strip().split(".")[0]] += int(parts[0]) / 1e6
    return per_package


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    rlvr = rlvr_script()
    with tempfile.TemporaryDirectory() as tmp:
        answers = Path(tmp) / "answers.jsonl"
        answers.write_text(THREE_LINES, encoding="utf-8")
        check = ["check", "--verifier", "math", str(answers)]
        python_s = median_seconds([sys.executable, "-c", "pass"], args.runs)
        import_s = median_seconds([sys.executable, "-c", "import orchestrator.cli"], args.runs)
        help_s = median_seconds([rlvr, "--help"], args.runs)
        check_s = median_seconds([rlvr, *check], args.runs)
        breakdown = import_breakdown(["rlvr", *check])
    total = sum(breakdown.values())
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; median of {args.runs}")
    print(f"python -c pass             {python_s:6.3f} s")
    print(f"import orchestrator.cli    {import_s:6.3f} s")
    print(f"rlvr --help                {help_s:6.3f} s  (target < {TARGET_S} s idle)")
    print(f"rlvr check --verifier math {check_s:6.3f} s  (target < {TARGET_S} s idle)")
    print(f"imports of `rlvr check --verifier math`, self time per package (total {total:.3f} s):")
    for package, seconds in breakdown.most_common(12):
        print(f"  {package:28s} {seconds:6.3f} s  {seconds / total:6.1%}")
    print(
        json.dumps(
            {
                "runs": args.runs,
                "load_average": round(os.getloadavg()[0], 2),
                "python_s": round(python_s, 3),
                "import_cli_s": round(import_s, 3),
                "help_s": round(help_s, 3),
                "check_math_s": round(check_s, 3),
                "check_math_imports_s": round(total, 3),
                "under_target": help_s < TARGET_S and check_s < TARGET_S,
            }
        )
    )


if __name__ == "__main__":
    main()
