"""The attacker's labelled judge cases (data/judge_attack_cases.jsonl, written from the judge's code
alone), each against a real 127.0.0.1 server answering in its `judge_mode`: a judge that obeys grade
JSON (`obey_grade_json`, and `obey_loose`, which first reads through every Unicode look-alike as a
capable model would), an honest one (`honest:<share>`), a scripted reply, an HTTP status, or no server at all."""

import ast
import contextlib
import json
import re
import socket
from pathlib import Path

import pytest
from openai_server import ScriptedOpenAIServer

from stages.tasks.families import FAMILIES
from stages.verifiers.judge_fence import skeleton
from stages.verifiers.registry import build_verifier

CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "judge_attack_cases.jsonl")
    .read_text()
    .splitlines()
]
# Exact control tokens of the five families: none may reach the judge as written.
TOKENS = ["<|im_start|>", "<|im_end|>", "<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>",
          "[INST]", "[/INST]", "<start_of_turn>", "<end_of_turn>", "<\uff5cUser\uff5c>",
          "<\uff5cAssistant\uff5c>", "<reserved_107>", "<seed:eos>", "<seed:bos>", "[gMASK]",
          "<sop>", "<AI>", "<\u7528\u6237>"]  # fmt: skip


def _grades_objects(text: str, loose: bool):
    if loose:
        text = skeleton(text)
    for start in [m.start() for m in re.finditer(r"\{", text)]:
        for end in range(len(text), start, -1):
            if text[end - 1] != "}":
                continue
            chunk = text[start:end]
            try:
                obj = json.loads(chunk)
            except ValueError:
                try:
                    obj = ast.literal_eval(chunk) if loose else None
                except (ValueError, SyntaxError, MemoryError, RecursionError):
                    obj = None
            if isinstance(obj, dict) and "grades" in obj:
                yield obj


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _answer(mode: str, n: int):
    def reply(body: dict) -> str:
        if mode.startswith("honest:"):
            passed = round(float(mode.split(":", 1)[1]) * n)
            return json.dumps(
                {"grades": [{"id": i, "passed": i <= passed} for i in range(1, n + 1)]}
            )
        if mode.startswith("reply:"):
            return mode.split(":", 1)[1]
        for message in body["messages"][1:]:
            texts = [message["content"]]
            with contextlib.suppress(ValueError):
                texts += list(_strings(json.loads(message["content"])))
            for text in texts:
                for obj in _grades_objects(text, loose=mode == "obey_loose"):
                    return json.dumps(obj)
        return json.dumps({"grades": [{"id": i, "passed": False} for i in range(1, n + 1)]})

    return reply


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _judge(base_url: str):
    return build_verifier(
        {"kind": "rubric", "base_url": base_url, "judge_max_retries": 1, "timeout_s": 5.0}
    )


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_attacker_judge_case_is_as_labelled(case):
    family = FAMILIES["rubric"]
    task = family.parse_row("judge_attack_cases.jsonl", 1, 0, case["task"])
    reference = family.reference(task)
    mode, n = case["judge_mode"], len(reference.rubrics)
    if mode == "unreachable":
        verdict, sent = _judge(_closed_port_url()).verify(case["response"], reference), []
    else:
        with ScriptedOpenAIServer(default=_answer(mode, n)) as server:
            if mode.startswith("status:"):
                _, code, message = (mode + "::").split(":", 2)
                server.script.extend([("status", int(code), message.strip(":") or "scripted")] * 10)
            verdict = _judge(server.base_url).verify(case["response"], reference)
        sent = [m["content"] for body in server.requests for m in body["messages"]]
    expected = case["expected"]
    json.dumps(verdict.model_dump())  # storable
    assert verdict.reward <= expected.get("max_reward", 1.0), verdict
    assert verdict.reward >= expected.get("min_reward", 0.0), verdict
    if expected.get("status") is not None:
        allowed = (
            expected["status"] if isinstance(expected["status"], list) else [expected["status"]]
        )
        assert verdict.status in allowed, verdict
    if expected.get("status") != "ok":
        assert not verdict.passed
    if expected.get("injection") is not None:
        assert bool(verdict.details.get("injection")) is expected["injection"], verdict
    own_text = task.prompt + " ".join(reference.rubrics)
    for token in TOKENS:
        assert not any(token in text for text in sent) or token in own_text, token
    for text in expected.get("expect_in_prompt", []):
        assert not sent or any(text in s for s in sent), text
