"""`merabench score TASK --explain ID` for GorillaHard and RussianRegions reads like SAGE's: the
answer (and the text the scorer read), the reference, each check's verdict and each metric's,
not the raw details JSON."""

from __future__ import annotations

from merabench.report.views import explained as explanation
from merabench.rows.row import read_bundled
from merabench.tasks import TASKS


def explained(task: str, answer: str, n: int = 1) -> tuple[str, object]:
    row = read_bundled(task)["test"][n]
    the_task = TASKS[task]
    return explanation(the_task, row, the_task.scored_answer(answer, strip_think=False)), row


def test_russianregions_shows_answer_reference_and_verdicts() -> None:
    text, row = explained("russianregions", "Ответ: Б")
    assert row.outputs == "В; поребрик"
    assert "answer:      'Ответ: Б'" in text and "reference:   'В; поребрик'" in text
    assert "✗ letter read: Б: the reference's letter is В" in text
    assert "✗ exact_match: no reading equals the reference" in text
    assert "✗ exact_match        0.0000" in text and "✓ format_error_rate  0.0000" in text
    assert '"details"' not in text and '"metrics"' not in text


def test_russianregions_right_answer_passes_every_verdict() -> None:
    text, _ = explained("russianregions", "Ответ: В; поребрик")
    assert "✓ exact_match: a reading equals the reference after normalisation" in text
    assert "✗" not in text


def test_gorillahard_shows_the_scored_text_the_reference_and_each_check() -> None:
    answer = '<think>ищу</think>{"tool": "wrong", "args": {"a": 1}}'
    text, row = explained("gorillahard", answer)
    assert f"answer:      {answer!r}" in text
    assert "scored text: '{\"tool\": \"wrong\", \"args\": {\"a\": 1}}'  (what the scorer read)" in text
    assert f"reference:   {row.outputs!r}" in text
    assert "✗ tool_not_in_catalog: named a tool the catalog does not hold" in text
    assert "✓ json_parsable: the answer parses as JSON" in text
    assert "✗ tool_match_rate" in text and "✓ false_abstention_rate" in text  # lower is better there
    assert '"checks"' not in text


def test_gorillahard_garbage_names_the_failed_checks_once() -> None:
    text, _ = explained("gorillahard", "не json")
    assert "✗ envelope kind: none: the reference's kind: call" in text
    assert "✗ exactly_one_object: exactly one JSON object" in text
    assert "format:" not in text  # the failed checks are listed by themselves, not again as reasons
