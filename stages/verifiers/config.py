"""Verifier configs: plain, serialisable pydantic models. Heavy objects (process pools, the OpenAI
client) are built from them inside the verifier, so a run config stays JSON."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

ExtractionMode = Literal["boxed", "answer_line", "latex", "last_number", "whole"]


class _Config(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class MathVerifierConfig(_Config):
    kind: Literal["math"] = Field("math", description="Selects the math verifier.")
    extraction: list[ExtractionMode] = Field(
        default_factory=lambda: ["boxed", "answer_line", "latex", "last_number"],
        description="Answer extraction modes. Finals (boxed, answer_line: 'Answer:', 'The answer "
        "is', '####') are read together and must agree, each read whole. Without a final, "
        "'latex' reads a response that is one answer or whose last sentence states one ('The "
        "probability is $2/3$.'), 'last_number' the same when that answer is a plain number, "
        "'whole' the entire response. Only text after the last </think> is read.",
    )
    timeout_s: float = Field(
        2.0,
        gt=0,
        le=3600.0,
        description="Hard wall-clock limit per symbolic check (the worker is killed).",
    )
    workers: int = Field(2, ge=1, le=256, description="Worker processes for symbolic checks.")
    rel_tolerance: float = Field(
        1e-9,
        ge=0,
        le=1.0,
        description="Relative tolerance for comparisons that need floating point.",
    )
    decimal_rounding_places: int | None = Field(
        3,
        ge=1,
        le=100,
        description="For a decimal reference, accept a decimal answer equal to it rounded to the "
        "answer's own places when it has at least this many places (3.142 for 3.14159); None "
        "disables.",
    )
    round_exact_references: bool = Field(
        False,
        description="Also round for exact references (0.333 for \\frac{1}{3}, 1.732 for "
        "\\sqrt{3}). Off: an approximation of an exact reference is a wrong answer.",
    )
    inequality_answers_interval: bool = Field(
        False,
        description="Accept an inequality of one variable for an interval reference "
        "(-2 \\le x \\le 7 for [-2, 7]). The reverse (an interval for an inequality reference) is "
        "always accepted.",
    )
    percent_as_fraction: bool = Field(
        True, description="Also accept p% when p/100 equals the reference (50% for 0.5)."
    )
    rename_variables: bool = Field(
        False,
        description="Accept an expression equal to the reference once its variables are renamed "
        "one to one (f(y) for f(x); Math-Verify's strict=False). Off: other variables are "
        "another answer.",
    )
    max_answer_chars: int = Field(
        400, ge=1, le=1_000_000, description="Longer extracted answers are rejected unparsed."
    )


class ExactMatchConfig(_Config):
    kind: Literal["exact"] = Field("exact", description="Selects the exact-match verifier.")
    strip: bool = Field(True, description="Strip surrounding whitespace before comparing.")
    case_sensitive: bool = Field(True, description="Compare letters case-sensitively.")


class CodeVerifierConfig(_Config):
    kind: Literal["code"] = Field("code", description="Selects the code-execution verifier.")
    sandbox: Literal["isolated", "unisolated"] = Field(
        "isolated",
        description="isolated: run each check under bubblewrap and refuse where it is missing; "
        "unisolated: run untrusted code as a plain subprocess (recorded as an event in the run).",
    )
    timeout_s: float = Field(
        5.0,
        gt=0,
        le=3600.0,
        description="Wall-clock limit per check, every process of it included.",
    )
    memory_mb: int = Field(
        512,
        ge=64,
        le=1_048_576,
        description="Resident memory of all the check's processes together, in MiB.",
    )
    max_processes: int = Field(
        16, ge=1, le=4096, description="Processes one check may run at once."
    )
    max_file_mb: int = Field(
        8,
        ge=1,
        le=1_048_576,
        description="Size of the check's private /tmp and /dev/shm (each), in MiB.",
    )
    max_output_bytes: int = Field(
        1 << 20,
        ge=1024,
        le=1_073_741_824,
        description="Stdout/stderr bytes read per check; the rest is dropped.",
    )
    max_output_chars: int = Field(
        2000, ge=0, le=10_000_000, description="Stdout/stderr kept in verdict details."
    )
    workers: int = Field(2, ge=1, le=256, description="Programs run concurrently in one batch.")


class QAVerifierConfig(_Config):
    kind: Literal["qa"] = Field("qa", description="Selects the QA exact-match/F1 verifier.")
    metric: Literal["em", "f1"] = Field(
        "f1",
        description="Answer score used as the reward: 'em' exact match; 'f1' token F1 times token "
        "precision (listing several guesses never pays). Verdict details keep plain EM and F1.",
    )
    f1_threshold: float = Field(
        0.8,
        ge=0,
        le=1,
        description="Reward at or above which an 'f1' answer holding every word of a gold, in its "
        "order, and no other word but a gloss restating it ('(RSPCA)') counts as passed.",
    )
    retrieval_weight: float = Field(
        0.0,
        ge=0,
        le=1,
        description="Share of the reward given to citation F1 against the gold supporting "
        "paragraphs (0 = answer only).",
    )
    hop_weighting: bool = Field(False, description="Scale the reward by the question's hop count.")
    hop_weight_per_extra_hop: float = Field(
        0.25,
        ge=0,
        le=10.0,
        description="Reward multiplier added per hop beyond two when hop_weighting.",
    )


class JudgeConfig(_Config):
    kind: Literal["rubric"] = Field("rubric", description="Selects the LLM rubric judge.")
    judge_model: str = Field("gpt-5-mini", description="Model name sent to the judge endpoint.")
    judge_max_retries: int = Field(
        3,
        ge=0,
        le=100,
        description="Retries per response on 429/5xx/timeouts and on unparseable output.",
    )
    judge_temperature: float | None = Field(
        None,
        ge=0,
        le=10.0,
        description="Judge sampling temperature; None sends none (gpt-5 models accept only their "
        "default, local servers usually take 0.0).",
    )
    base_url: str | None = Field(
        None,
        description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1; None = OpenAI.",
    )
    api_key_env: str = Field(
        "OPENAI_API_KEY", description="Name of the environment variable holding the API key."
    )
    max_concurrency: int = Field(16, ge=1, le=1024, description="Judge calls in flight at once.")
    timeout_s: float = Field(60.0, gt=0, le=3600.0, description="Per-request timeout in seconds.")
    json_mode: bool = Field(
        True, description="Ask for response_format=json_object (turn off for servers without it)."
    )
    pass_threshold: float = Field(
        1.0, ge=0, le=1, description="Rubric pass rate at or above which the response is passed."
    )


VerifierConfig = Annotated[
    MathVerifierConfig | ExactMatchConfig | CodeVerifierConfig | QAVerifierConfig | JudgeConfig,
    Field(discriminator="kind"),
]
