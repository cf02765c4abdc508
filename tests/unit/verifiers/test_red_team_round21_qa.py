"""Red team round 21: the shared half of the QA cases an outside attacker wrote (the held-out half
stays outside the project), then variants of each mechanism written here. Right answers refused:
a box read as a second answer (`The capital of France is \\boxed{Paris}.`), a fraction against
its decimal (`0.75` for `3/4`), a choice named by its label (`Option C` for `C`), a mixed number
(`12 1/2`, `one and a half` for `12.5`), an answer label in another language (`Réponse : Paris`,
`Antwort: Berlin`), a heading with the answer on the next line (`**Final Answer**` / `### Answer`).
The wrong answers each form could carry stay refused: hedges, lists of candidates, other numbers,
approximations (`0.33` is not `1/3`), a fraction not in lowest terms (`6/8` is not `0.75`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params, qa_paid

DATA = Path(__file__).parent / "data"
CASES = [c for c in load(DATA / "shared_round21_judge_reply_qa.jsonl") if c["target"] == "qa"]
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_shared_case(case: dict) -> None:
    check(case)


RIGHT = [
    ("**Answer:** $\\boxed{Paris}$", "Paris"),
    ("The answer is $\\boxed{\\text{Paris}}$.", "Paris"),
    ("Answer: 0.2", "1/5"),
    ("Answer: 3/4", ".75"),
    ("Answer: 1/2", "0.50"),
    ("The answer is option B.", "B"),
    ("Answer: (Option C)", "C"),
    ("Answer: C", "Option C"),
    ("Answer: 12 and 1/2", "12.5"),
    ("Answer: one and one half", "1.5"),
    ("### Final Answer:\nParis", "Paris"),
    ("### Answer: Paris", "Paris"),
    ("### Answer\nAnswer: Paris", "Paris"),
    ("Odpowiedź: Warszawa", "Warszawa"),
    ("Risposta finale: Roma", "Roma"),
    ("Svar: Oslo", "Oslo"),
    ("**Réponse :** Paris", "Paris"),
    ("Antwort: **Berlin**", "Berlin"),
    ("The capital of France is \\boxed{Paris}.", "Paris"),
    ("\\boxed{Paris}", "Paris"),
    ("Answer: \\boxed{Paris}", "Paris"),
    ("$\\boxed{\\text{Paris}}$", "Paris"),
    ("<answer>\\boxed{Paris}</answer>", "Paris"),
    ("The answer is \\boxed{Paris}.", "Paris"),
    ("Answer: 0.75", "3/4"),
    ("Answer: 3/4", "0.75"),
    ("Answer: 1/2", "0.5"),
    ("Answer: 0.5", "1/2"),
    ("Answer: .5", "1/2"),
    ("Answer: 1.25", "5/4"),
    ("Answer: 3/8", "0.375"),
    ("Answer: Option C", "C"),
    ("Answer: option (B)", "B"),
    ("Answer: Choice D", "D"),
    ("Option A", "A"),
    ("Answer: Option C.", "C"),
    ("Answer: option c", "C"),
    ("Answer: Option C", "(C)"),
    ("Answer: 12 1/2", "12.5"),
    ("Answer: one and a half", "1.5"),
    ("Answer: twelve and a half", "12.5"),
    ("Answer: 2 1/4", "2.25"),
    ("Answer: 12.5", "12 1/2"),
    ("Answer: two and three quarters", "2.75"),
    ("Réponse : Paris", "Paris"),
    ("Antwort: Berlin", "Berlin"),
    ("Respuesta: Madrid", "Madrid"),
    ("Risposta: Roma", "Roma"),
    ("Resposta: Lisboa", "Lisboa"),
    ("Ответ: Москва", "Москва"),
    ("答案：北京", "北京"),
    ("Réponse finale : Paris", "Paris"),
    ("Antwoord: Amsterdam", "Amsterdam"),
    ("The first passage places the Eiffel Tower in Paris.\n\n**Final Answer**\nParis", "Paris"),
    ("Reasoning here.\n\n### Answer\n\nParis", "Paris"),
    ("## Final answer\n**Paris**", "Paris"),
    ("Some text.\n\nFinal Answer\nParis", "Paris"),
    ("Notes.\n\n**Réponse**\nParis", "Paris"),
    ("### Answer\nParis [2]", "Paris"),
]

WRONG = [
    ("Answer: D", "Option C"),
    ("Answer: 12 and 1/2", "12"),
    ("### Answer: Lyon", "Paris"),
    ("### Answer\nAnswer: Lyon", "Paris"),
    ("### Answer\nParis\nAnswer: Lyon", "Paris"),
    ("Antwort: Berlin\n\n**Final Answer**\nMunich", "Berlin"),
    ("Answer: Paris, I think", "Paris"),
    ("Answer: 12 or 13", "12"),
    ("\\boxed{Lyon}", "Paris"),
    ("The capital is Paris, \\boxed{Lyon}.", "Paris"),
    ("Answer: Paris\n\\boxed{Lyon}", "Paris"),
    ("\\boxed{Paris} or \\boxed{Lyon}", "Paris"),
    ("\\boxed{Paris or Lyon}", "Paris"),
    ("Answer: 0.33", "1/3"),
    ("Answer: 0.333", "1/3"),
    ("Answer: 125", "12.5"),
    ("Answer: 12.5", "125"),
    ("Answer: 6/8", "0.75"),
    ("Answer: 0.75", "6/8"),
    ("Answer: 3/4", "0.7"),
    ("Answer: 0.8", "3/4"),
    ("Answer: 1/2", "12"),
    ("Answer: 12 1/2", "12"),
    ("Answer: 12 1/2", "121/2"),
    ("Answer: one and a half", "1"),
    ("Answer: 12 1/3", "12.3"),
    ("Answer: 12 1/2", "1/2"),
    ("Answer: about 0.75", "3/4"),
    ("Answer: ~0.75", "3/4"),
    ("Answer: 0.75 or 0.8", "3/4"),
    ("Answer: Option D", "C"),
    ("Answer: Option C or D", "C"),
    ("Answer: Vitamin C", "C"),
    ("Answer: Options B and C", "C"),
    ("Answer: Option C", "Paris"),
    ("Answer: Option C, I think", "C"),
    ("Answer: Option C?", "C"),
    ("Réponse : Lyon", "Paris"),
    ("Antwort: Berlin, glaube ich", "Berlin"),
    ("Antwort: vielleicht Berlin", "Berlin"),
    ("Réponse : Paris ou Lyon", "Paris"),
    ("Réponse : Paris\nRéponse : Lyon", "Paris"),
    ("Answer: Paris\nAntwort: Lyon", "Paris"),
    ("**Final Answer**\nParis\n\nActually, it might be Lyon.", "Paris"),
    ("### Answer\nLyon", "Paris"),
    ("**Final Answer**\nParis or Lyon", "Paris"),
    ("### Answer\nParis\nLyon", "Paris"),
    ("I'm not sure.\n\n**Final Answer**\nParis", "Paris"),
    ("**Final Answer**\nProbably Paris", "Paris"),
    ("The answer is Lyon.\n\n### Answer\nParis", "Paris"),
]


@pytest.mark.parametrize(("response", "gold"), RIGHT)
def test_right_answers_in_these_forms_are_paid(response: str, gold: str) -> None:
    assert qa_paid(response, gold)


@pytest.mark.parametrize(("response", "gold"), WRONG)
def test_wrong_or_hedged_answers_in_these_forms_stay_unpaid(response: str, gold: str) -> None:
    assert not qa_paid(response, gold)
