import json
from pathlib import Path

import pytest

from stages.tasks import TaskFormatError, load_jsonl, load_rubric_json, load_tasks

FIXTURES = Path(__file__).parents[2] / "fixtures" / "verifiers"


def test_rubric_json_with_raw_tabs_inside_strings_loads():
    path = FIXTURES / "rubric_tabs.json"
    assert "\t" in path.read_text()
    with pytest.raises(json.JSONDecodeError):
        json.loads(path.read_text())  # strict JSON refuses it: the loader must not
    tasks = load_rubric_json(path)
    assert [t.task_id for t in tasks] == ["if-001", "if-002"]
    assert tasks[0].rubrics[0] == "The response should list council types\tresponsible for housing."
    assert tasks[1].rubrics == [
        "Mentions whitespace.",
        "Has three lines.",
    ]  # ordered by N, not text
    assert load_tasks(path)[0].family == "rubric"


def test_math_qa_and_code_jsonl_load_with_their_fields():
    math = load_tasks(FIXTURES / "math_tasks.jsonl")
    assert [(t.task_id, t.answer) for t in math] == [
        ("m1", "85"),
        ("m2", "2\\sqrt{3}"),
        ("m3", "3"),
    ]
    qa = load_tasks(FIXTURES / "qa_tasks.jsonl")
    assert qa[0].aliases == ["Steven Paul Jobs"] and qa[0].num_hops == 2
    assert [p.idx for p in qa[0].paragraphs if p.is_supporting] == [0, 1]
    assert qa[1].num_hops == 3 and qa[1].category == "3hop"
    code = load_tasks(FIXTURES / "code_tasks.jsonl")
    assert "def test_zero" in code[1].tests


@pytest.mark.parametrize(
    ("family", "lines", "line_no", "field"),
    [
        ("math", ['{"prompt": "p", "answer": "1"}', '{"prompt": "q"}'], 2, "answer"),
        ("math", ['{"prompt": "", "answer": "1"}'], 1, "prompt"),
        ("qa", ['{"question": "q", "answer": "a", "answer_aliases": "a"}'], 1, "answer_aliases"),
        (
            "qa",
            ['{"question": "q", "answer": "a", "paragraphs": [{"idx": 0}]}'],
            1,
            "paragraphs[0].paragraph_text",
        ),
        ("code", ['{"prompt": "p", "tests": 3}'], 1, "tests"),
        ("math", ['{"prompt": "p", "answer": "1"}', "{not json"], 2, None),
    ],
)
def test_bad_jsonl_names_file_line_and_field(tmp_path, family, lines, line_no, field):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TaskFormatError) as info:
        load_jsonl(path, family)
    assert info.value.line == line_no and info.value.field == field
    assert str(info.value).startswith(f"{path}:{line_no}:")


def test_bad_rubric_item_names_the_line_it_starts_on(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(
        '[\n {"task_id": "a", "prompt": "p", "rubric - 1. criterion": "c"},\n {"task_id": "b", "prompt": "p"}\n]'
    )
    with pytest.raises(TaskFormatError, match=r"r.json:3: field 'rubric - N. criterion'"):
        load_rubric_json(path)


def test_duplicate_ids_and_empty_files_are_rejected(tmp_path):
    path = tmp_path / "dup.jsonl"
    path.write_text('{"task_id": "x", "prompt": "p", "answer": "1"}\n' * 2)
    with pytest.raises(TaskFormatError, match="duplicate id"):
        load_jsonl(path, "math")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(TaskFormatError, match="no tasks"):
        load_jsonl(empty, "math")
