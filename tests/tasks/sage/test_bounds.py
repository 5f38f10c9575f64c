"""Answers no correction looks like: looping, hostile, huge. Each is scored (never an error), and
the row's details say which bound changed how (timings are in benchmarks/, not here)."""

from __future__ import annotations

import pytest

from merabench.tasks.sage import align
from merabench.tasks.sage.metrics import answer_limit, score_example

SOURCE = "Я заказала размер 35, себя замерив, почитая отзывы. Ну, ооочень большой, одела с застегнутым замком."
REFERENCE = "Я заказала размер 35, себя замерив, прочитав отзывы. Ну ооочень большой, надела с застёгнутым замком."


def test_a_looping_answer_is_cut_and_its_tail_is_one_false_positive() -> None:
    looping = (REFERENCE + " ") * 20_000  # ~2 MB, as a model repeating itself until max_tokens
    result = score_example(SOURCE, REFERENCE, looping)
    bounded = result.details["bounded"]
    assert any("more than" in note and "one inserted edit" in note for note in bounded)
    tail = result.details["hypothesis_edits"][-1]
    assert tail["verdict"] == "FP" and tail["span"][0] == tail["span"][1]  # an insertion at the end
    # the repetitions cost precision, not the corrections they repeat
    assert result.metrics["spell_f1"] > 0.5 and result.metrics["punct_f1"] < 1
    assert len(looping) > answer_limit(SOURCE, REFERENCE)


@pytest.mark.parametrize("answer", ["[" * 100_000, "." * 500_000, "а" * 1_000_000, "\x00" * 10_000,
                                    "слово \ud800 \udfff" * 1000, "😀" * 50_000])
def test_hostile_answers_score_without_error(answer: str) -> None:
    result = score_example(SOURCE, REFERENCE, answer)
    assert 0.0 <= result.metrics["errant_f1"] <= 1.0
    assert result.details["bounded"]


def test_lone_surrogates_and_nul_in_a_normal_answer() -> None:
    answer = REFERENCE[:30] + "\ud800" + REFERENCE[30:] + "\x00"
    result = score_example(SOURCE, REFERENCE, answer)
    assert 0.0 < result.metrics["errant_f1"] < 1.0 and "bounded" not in result.details


def test_a_run_longer_than_the_merge_window_is_noted() -> None:
    source = " ".join(f"слово{i}" for i in range(450))
    answer = " ".join(f"другое{i}" for i in range(450))
    result = score_example(source, source, answer)
    assert any("merged in windows" in note for note in result.details["bounded"])


def test_past_the_matrix_bound_the_alignment_is_approximate_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(align, "MATRIX_CELLS", 100)
    monkeypatch.setattr(align, "BAND_CELLS", 10)
    monkeypatch.setattr(align, "PLAIN_CELLS", 10)  # no exact route left for a sentence
    answer = "Совсем другой текст без единого общего слова с исходным, длинный и бессвязный, про погоду."
    result = score_example(SOURCE + "x", REFERENCE, answer)
    assert any("too long to align exactly" in note for note in result.details["bounded"])
    assert result.metrics["errant_f1"] == 0.0
