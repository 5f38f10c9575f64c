from __future__ import annotations

import json
from pathlib import Path

import pytest

from merabench.tasks.russianregions.extract import exact_match, extract_letters, normalize, readings

CASES = json.loads((Path(__file__).parent / "cases_answers.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["why"] for c in CASES])
def test_answers(case: dict) -> None:
    assert exact_match(case["answer"], case["reference"]) == case["exact_match"]
    assert extract_letters(case["answer"]) == case["letters"]


def test_readings_are_whole_and_after_the_last_marker() -> None:
    assert readings("  Ответ: Б ") == ["Ответ: Б", "Б"]
    assert readings("Б") == ["Б"]
    assert readings("Ответ:") == ["Ответ:"]  # an empty tail is no reading (answer_candidates)


def test_normalisation_deletes_punctuation_without_spacing() -> None:
    assert normalize("«Б;вехотка»") == "бвехотка"
    assert normalize("  Б ;   вехотка … ") == "б вехотка"
