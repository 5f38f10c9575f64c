from __future__ import annotations

from collections import Counter

import pytest

from merabench.records import Judgement
from merabench.rows.row import Row, read_bundled
from merabench.tasks import TASKS
from merabench.tasks.aggregation import all_or_nothing
from merabench.tasks.russianregions.judge import parse_verdict
from merabench.tasks.russianregions.metrics import judge_outcome

TASK = TASKS["russianregions"]
ROWS = read_bundled("russianregions")["test"]


def rows_in_groups(*group_ids: int) -> list[Row]:
    return [Row("{x}", {"x": "?"}, "Б", {"id": i, "group_id": g, "task_type": 1}) for i, g in enumerate(group_ids)]


def test_groups_are_all_or_nothing_and_unknown_groups_are_left_out() -> None:
    rows = rows_in_groups(0, 0, 1, 1, 2, 2, 3)
    values = [1.0, 1.0, 1.0, 0.5, None, 0.0, None]
    groups: dict[int, list] = {}
    for row, value in zip(rows, values, strict=True):
        groups.setdefault(row.meta["group_id"], []).append(value)
    assert all_or_nothing(groups) == (pytest.approx(1 / 3), 3, 1)


@pytest.mark.parametrize(("replies", "errors", "expected"), [
    (["2"], [None], (1.0, None)),
    (["0", "2"], [None, None], (1.0, None)),
    ([None, "2"], ["timeout", None], (1.0, None)),          # a full mark is already the best
    ([None, "0"], ["timeout", None], (None, "judge request failed: timeout")),
    (["не знаю"], [None], (0.0, None)),                     # a reply without a number scores 0
    (["не знаю", "1"], [None, None], (0.5, None)),           # ... and the row keeps its best reading
    (["не знаю", None], [None, "timeout"], (None, "judge request failed: timeout")),
    ([None], ["HTTP 500"], (None, "judge request failed: HTTP 500")),
    ([], [], (None, "no judge request was made")),
])
def test_judge_outcome_takes_the_best_reading(replies, errors, expected) -> None:
    scores = tuple(None if r is None else parse_verdict(r) for r in replies)
    assert judge_outcome(Judgement(0, "openai:judge", "sha", tuple(replies), scores, tuple(errors))) == expected


def test_reference_answers_score_one_and_copy_scores_zero() -> None:
    ref = [TASK.score(r, r.outputs) for r in ROWS]
    agg = TASK.aggregate(ROWS, ref)
    assert agg.metrics["exact_match"] == agg.metrics["group_exact_match"] == agg.metrics["letter_accuracy"] == 1.0
    assert agg.metrics["format_error_rate"] == 0.0 and agg.denominators["group_exact_match"] == 12
    copy = TASK.aggregate(ROWS, [TASK.score(r, TASK.copy_answer(r)) for r in ROWS])
    assert copy.metrics["exact_match"] == copy.metrics["letter_accuracy"] == 0.0
    assert set(copy.breakdowns["by_task_type"].rows) == {"task_type_1", "task_type_2", "task_type_3"}


def test_unscored_rows_shrink_denominators() -> None:
    scores = [TASK.score(r, r.outputs) for r in ROWS]
    scores[0] = None
    agg = TASK.aggregate(ROWS, scores)
    assert agg.denominators["exact_match"] == 35
    assert agg.denominators["group_exact_match"] == 11 and agg.breakdowns["groups_left_out"]["group_exact_match"] == 1


def test_bundled_set_shape() -> None:
    assert len(ROWS) >= 36
    assert Counter(r.meta["task_type"] for r in ROWS) == {1: 12, 2: 12, 3: 12}
    variants = Counter((r.meta["task_type"], r.instruction, r.inputs["introduction"], r.inputs["task_formulation"])
                       for r in ROWS)
    assert len(variants) == 15 and min(variants.values()) >= 2
    assert Counter(variant[0] for variant in variants) == {1: 5, 2: 5, 3: 5}
    groups: dict[int, set] = {}
    for r in ROWS:
        groups.setdefault(r.meta["group_id"], set()).add(r.meta["task_type"])
        options = [r.inputs[f"option_{k}"] for k in "abcd"]
        assert len(set(options)) == 4
        if r.meta["task_type"] in (2, 3):
            letter, unit = (part.strip() for part in r.outputs.split(";"))
            chosen = options["АБВГ".index(letter)]
            assert unit[:4].lower() in chosen.lower(), (r.id, unit, chosen)
    assert all(types == {1, 2, 3} for types in groups.values())
