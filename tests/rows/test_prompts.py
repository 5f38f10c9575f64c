from __future__ import annotations

import pytest

from merabench.errors import DataError
from merabench.rows.prompts import MAX_HISTORY_TURNS, HistoryIndex, build_messages, render
from merabench.rows.row import Row


def test_render_is_literal_and_single_pass() -> None:
    template = 'Ответь JSON вида {"tool": "x"}.\nИнструменты:\n{tools}\nВопрос: {question}'
    inputs = {"tools": '[{"name": "table.mean", "args": {"path": "{question}"}}]', "question": "Сколько строк?"}
    text = render(template, inputs)
    assert text == ('Ответь JSON вида {"tool": "x"}.\nИнструменты:\n[{"name": "table.mean", "args": '
                    '{"path": "{question}"}}]\nВопрос: Сколько строк?')


def test_placeholder_without_input_is_an_error_naming_row_and_field() -> None:
    with pytest.raises(DataError) as info:
        render("Текст: {source}", {"text": "..."}, row_id=12)
    assert info.value.row_id == 12 and info.value.field == "inputs.source"


def gh_row(row_id: int, turn: int, *, dialog: str = "d1", wording: int = 2, outputs: str = "{}") -> Row:
    return Row(instruction="Полный промпт: {question}", inputs={"question": f"вопрос {turn}"}, outputs=outputs,
               meta={"id": row_id, "dialog_id": dialog, "turn_id": turn, "n_turns": turn + 1, "wording": wording})


def test_history_is_bare_questions_and_references_in_turn_order() -> None:
    shots = [gh_row(11, 1, outputs='{"tool": "b"}'), gh_row(10, 0, outputs='{"tool": "a"}'),
             gh_row(20, 0, wording=3, outputs='{"tool": "other wording"}')]
    row = gh_row(1, 2)
    messages = build_messages(row, HistoryIndex(shots).earlier_turns(row), system_prompt="Ты помощник.")
    assert messages == [
        {"role": "system", "content": "Ты помощник."},
        {"role": "user", "content": "вопрос 0"}, {"role": "assistant", "content": '{"tool": "a"}'},
        {"role": "user", "content": "вопрос 1"}, {"role": "assistant", "content": '{"tool": "b"}'},
        {"role": "user", "content": "Полный промпт: вопрос 2"},
    ]


def test_missing_history_turn_is_an_error_not_a_silent_single_turn() -> None:
    row = gh_row(1, 2)
    with pytest.raises(DataError, match=r"lacks earlier turn\(s\) \[1\]"):
        HistoryIndex([gh_row(10, 0)]).earlier_turns(row)


def test_history_is_capped_at_the_last_eight_turns() -> None:
    shots = [gh_row(100 + t, t, outputs=f"ответ {t}") for t in range(10)]
    row = gh_row(1, 10)
    messages = build_messages(row, HistoryIndex(shots).earlier_turns(row))
    assert len(messages) == 2 * MAX_HISTORY_TURNS + 1
    assert messages[0]["content"] == "вопрос 2" and messages[-2]["content"] == "ответ 9"


def test_single_turn_rows_have_no_history() -> None:
    row = Row("{source}", {"source": "текст"}, "текст", {"id": 3})
    assert build_messages(row, HistoryIndex([]).earlier_turns(row)) == [{"role": "user", "content": "текст"}]


def test_a_run_stops_at_the_first_row_whose_shape_does_not_render() -> None:
    """Rows are checked once per (instruction, input names): the row that lacks an input among
    500 of the same instruction is still the one named, with its field."""
    from merabench.pipeline import check_prompts
    from merabench.rows.row import TaskData
    from merabench.runner.work import TaskRun
    from merabench.tasks import TASKS

    rows = [Row("Исправь: {source}", {"source": f"Превет {i}"}, "", {"id": i}) for i in range(500)]
    rows[321] = Row("Исправь: {source}", {"text": "Превет"}, "", {"id": 321})
    check_prompts(TaskRun(TASKS["sage"], TaskData("rows.jsonl", tuple(rows[:321]))))  # all the same shape
    with pytest.raises(DataError) as info:
        check_prompts(TaskRun(TASKS["sage"], TaskData("rows.jsonl", tuple(rows))))
    assert info.value.row_id == 321 and info.value.field == "inputs.source" and info.value.file == "rows.jsonl"
