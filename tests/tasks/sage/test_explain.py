"""`score sage --explain` and the report show each edit whole: where it is, the whole source and
corrected spans, the type the scorer gave it and, where the reference's rules surprise, why. The
scores themselves are the reference scorer's (figures from /work/shared/peers/sage/score.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from merabench.pipeline import ScoreConfig, score_predictions
from merabench.report.html import render
from merabench.report.views import SageView
from merabench.rows.row import Row
from merabench.runner.cache import CacheSettings
from merabench.tasks.sage.metrics import score_example
from merabench.tasks.sage.task import SageTask

SOURCE = "Книга которую я читал была интересной"
REFERENCE = "Книга, которую я читал, была интересной"
THINK = "<think>Нужно поставить запятые.</think>"
PREAMBLE = "Вот исправленный текст: "


def row(n: int = 0) -> Row:
    return Row(instruction="Исправь: {source}", inputs={"source": SOURCE}, outputs=REFERENCE, meta={"id": n})


@pytest.mark.parametrize(("answer", "expected"), [
    # the reference scorer's figures: the whole inserted block is one PUNCT edit keyed by its first token
    (THINK + REFERENCE, (1.0, 0.8, 0.9)),
    (PREAMBLE + REFERENCE, (1.0, 0.8, 0.9)),
    ("Вот исправленный текст " + REFERENCE, (0.0, 1.0, 0.5)),  # no punctuation in it: a SPELL insertion
])
def test_scores_are_the_reference_scorers(answer: str, expected: tuple[float, float, float]) -> None:
    metrics = score_example(SOURCE, REFERENCE, answer).metrics
    assert (metrics["spell_f1"], metrics["punct_f1"], metrics["errant_f1"]) == pytest.approx(expected)


def test_an_inserted_think_block_is_shown_whole_with_why_it_is_punct() -> None:
    text = SageTask().explain(row(), THINK + REFERENCE)
    assert f"FP  PUNCT insert before source token 0: '' -> '{THINK}'" in text
    assert "'' -> '<'" not in text
    assert "matched by its first token only: '<'" in text
    assert "PUNCT when any of its tokens is punctuation or whitespace" in text
    assert "<think> block: it is scored as text" in text


def test_a_preamble_is_shown_whole_and_its_type_is_the_scorers() -> None:
    text = SageTask().explain(row(), PREAMBLE + REFERENCE)
    assert "FP  PUNCT insert before source token 0: '' -> 'Вот исправленный текст:'" in text
    assert "matched by its first token only: 'Вот'" in text
    plain = SageTask().explain(row(), "Вот исправленный текст " + REFERENCE)
    assert "FP  SPELL insert before source token 0: '' -> 'Вот исправленный текст'" in plain
    assert "PUNCT when" not in plain


def test_a_split_edit_names_the_part_each_type_is_matched_by() -> None:
    text = SageTask().explain(Row(instruction="{source}", inputs={"source": "карова"}, outputs="Корова",
                                  meta={"id": 0}), "Корова")
    assert "TP  CASE source token 0: 'карова' -> 'Корова'" in text and "matched as its CASE part: 'Карова'" in text
    assert "TP  SPELL source token 0: 'карова' -> 'Корова'" in text and "matched as its SPELL part: 'корова'" in text


def test_the_report_shows_the_whole_edit_and_the_source(tmp_path: Path) -> None:
    record = {"id": 0, "status": "ok", "output": THINK + REFERENCE,
              "details": score_example(SOURCE, REFERENCE, THINK + REFERENCE).details}
    lines = SageView(("type",)).verdicts(record, row())
    label, passed, why = lines[0]
    assert label == f"PUNCT insert before source token 0: '' -> '{THINK}'" and passed is False
    assert why.startswith("FP: ") and "first token only: '<'" in why

    out = tmp_path / "scored"
    score_predictions(ScoreConfig(task="sage", predictions={0: THINK + REFERENCE, 1: REFERENCE},
                                  predictions_source="test", data=str(_data(tmp_path)), split="test", out=out,
                                  cache=CacheSettings(enabled=False)))
    page = render(out)
    assert '"src":"Книга которую я читал была интересной"' in page
    assert "'' -\\u003e '\\u003cthink\\u003eНужно поставить запятые.\\u003c/think\\u003e'" in page


def _data(tmp_path: Path) -> Path:
    import json

    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps({"instruction": "Исправь: {source}", "inputs": {"source": SOURCE},
                                        "outputs": REFERENCE, "meta": {"id": n}}, ensure_ascii=False) + "\n"
                            for n in range(2)), encoding="utf-8")
    return path
