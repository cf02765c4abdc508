"""Round 12's QA forms (`qa_forms`) and identifiers, against the wrong answers each could open."""

from __future__ import annotations

import pytest

from stages.verifiers.qa_verifier import QAVerifier

RIGHT = [
    ("Answer: Mercury", "Mercury (element)"),
    ("The element is\nAnswer: Mercury", "Mercury (element)"),
    ("Answer: Henry VIII", "Henry the Eighth"),
    ("Answer: 3 pm", "3:00 p.m."),
    ("Answer: two dozen", "24"),
    ("Answer: 10^6", "1,000,000"),
    ("Answer: USD 3.50", "$3.5"),
    ("Answer: 5 km", "5 kilometres"),
    ("Answer: Sir Isaac Newton", "Isaac Newton"),
    ("Answer: Mt Everest", "Mount Everest"),
    ("Answer: 01/02/2010", "1/2/2010"),
    ("Answer: 09:05", "9:05"),
    ("Answer: 02-10-1990", "2-10-1990"),
    ("Answer: 1-800-555-0100", "1-800-555-0100"),
    ("Answer: Henry the Fifth", "Henry V"),
    ("Answer: 5 AUD", "A$5"),
    ("Answer: Malcolm X", "Malcolm X"),
    # round 13's open cases: a numeral after a series head counts, Indian grouping, a scale word
    ("Answer: Type I diabetes", "type 1 diabetes"),
    ("Answer: Apollo 11", "Apollo XI"),
    ("Answer: stage 4", "Stage IV"),
    ("Answer: World War 2", "World War II"),
    ("Answer: 1,00,000", "100,000"),
    ("Answer: 5 million USD", "$5 million"),
]
WRONG = [
    ("Mercury is a planet.\nAnswer: Mercury", "Mercury (element)"),
    ("Answer: Mercury (element)", "Mercury (planet)"),
    ("Mercury is a planet, not an element.\nAnswer: Mercury", "Mercury (element)"),
    ("Answer: 7-8-10", "07-08-10"),
    ("Answer: Henry VII", "Henry VIII"),
    ("Answer: Henry 8", "Henry VIII"),
    ("Answer: Elizabeth I", "Elizabeth II"),
    ("Answer: Vitamin C", "Vitamin D"),
    ("Answer: 3 am", "15:00"),
    ("Answer: 3:00", "15:00"),
    ("Answer: dozens", "12"),
    ("Answer: 10⁷", "1,000,000"),
    ("Answer: 5 EUR", "$5"),
    ("Answer: 5 Canadian dollars", "$5"),
    ("Answer: 5 miles", "5 km"),
    ("Answer: Mr. Martin Luther King Jr.", "Martin Luther King Jr."),
    ("Answer: Dr. King", "King"),
    ("Answer: Mt. Rainier", "Mount Everest"),
    ("Answer: ٢٠٢١", "2020"),
    ("Answer: 0800-001-0002", "800-1-2"),
    ("Answer: 555-100", "555-0100"),
    ("Answer: numpy 1.1", "numpy 1.10"),
    ("Answer: kubernetes 1.1", "kubernetes 1.10"),
    # round 13: a lone X or L is a name's letter, an initial is no numeral, A$ is not US$
    ("Answer: Malcolm the Tenth", "Malcolm X"),
    ("Answer: Samuel 50th Jackson", "Samuel L. Jackson"),
    ("Answer: A$5", "US$5"),
    ("Answer: A$5", "5 USD"),
    ("Answer: NZ$5", "$5"),
    ("Answer: Type II diabetes", "type 1 diabetes"),
    ("Answer: Apollo 12", "Apollo XI"),
    ("Answer: 1,00,000", "1,000,000"),
    ("Answer: 10,00,000", "100,000"),
    ("Answer: 5 million USD", "$5 billion"),
    ("Answer: 5 USD", "$5 million"),
]


@pytest.mark.parametrize(("response", "gold"), RIGHT)
def test_right_forms_pass(response: str, gold: str) -> None:
    assert QAVerifier().verify(response, gold).passed


@pytest.mark.parametrize(("response", "gold"), WRONG)
def test_wrong_answers_in_these_forms_fail(response: str, gold: str) -> None:
    verdict = QAVerifier().verify(response, gold)
    assert not verdict.passed and verdict.reward < 1.0, verdict.reason
