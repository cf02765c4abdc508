"""The labelled cases of HuggingFace Math-Verify's tests (data in data/math_verify_cases.json, with
source file, commit and test id per case) and how each case's flags map onto our verifier."""

from __future__ import annotations

import json
import re
from pathlib import Path

from stages.verifiers.config import MathVerifierConfig

DATA = Path(__file__).parent / "data" / "math_verify_cases.json"
README = Path(__file__).resolve().parents[3] / "README.md"

# Math-Verify's match_types: "latex" reads boxed answers and math environments, "expr" plain numbers.
MODES = {
    ("latex",): ["boxed", "answer_line", "latex"],
    ("expr",): ["answer_line", "last_number"],
    ("latex", "expr"): ["boxed", "answer_line", "latex", "last_number"],
}


def load_cases() -> list[dict]:
    return json.loads(DATA.read_text())["cases"]


def config_for(case: dict) -> MathVerifierConfig:
    """Each case's Math-Verify flags as our settings. float_rounding=p (precision) accepts answers
    rounded to p places for every reference, exact ones included (our default rounds only for
    decimal references and never to fewer than 3 places); allow_set_relation_comp accepts an
    inequality for an interval; strict=False renames variables one to one."""
    return MathVerifierConfig(
        extraction=MODES[tuple(case["match_types"])],
        decimal_rounding_places=min(case["precision"], 3),
        round_exact_references=True,
        inequality_answers_interval=case["allow_set_relation_comp"],
        rename_variables=not case["strict"],
    )


def deliberate_differences() -> dict[str, str]:
    """test id -> reason, from the README table under 'Where we differ from Math-Verify'."""
    text = README.read_text()
    section = text.split("### Where we differ from Math-Verify", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \|.*\| ([^|]+?) \|$", section, re.MULTILINE)
    return dict(rows)
