"""Per-sample scoring and aggregation for RussianRegions (pure functions).

Group metrics follow the public harness: rows grouped by `meta.group_id`, a group scores 1 only
if every row in it scores exactly 1 (a judge 0.5 fails it), averaged over groups (declared as
ALL_OR_NOTHING in task.py). A group with an unscored row (failed request or judge) counts only if
another of its rows already failed it; otherwise it is left out, and the count is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from merabench.records import Judgement
from merabench.rows import Row
from merabench.tasks.aggregation import aggregate_metrics
from merabench.tasks.base import Aggregate, MetricSpec, SampleScore, Table
from merabench.tasks.russianregions.extract import exact_match, extract_letters, readings, reference_letter

JUDGE_ABSENT_NOTE = "judge metrics absent: no judge configured (--judge-model or LM_EVAL_JUDGE_MODEL)"


def judge_outcome(judgement: Judgement) -> tuple[float | None, str | None]:
    """(best score over the readings, None) or (None, why there is no score)."""
    known = [v for v in judgement.scores if v is not None]
    if known and (max(known) == 1.0 or len(known) == len(judgement.scores)):
        return max(known), None  # a full mark cannot be beaten by a reading that failed
    failures = [e for e in judgement.errors if e]
    if failures:
        return None, f"judge request failed: {failures[0]}"
    if not judgement.scores:
        return None, "no judge request was made"
    return None, "judge reply has no number"


def score_answer(row: Row, answer: str, judgement: Judgement | None) -> SampleScore:
    letters = extract_letters(answer)
    target = reference_letter(row.outputs)
    exact = exact_match(answer, row.outputs)
    metrics = {
        "exact_match": exact,
        "group_exact_match": exact,
        "letter_accuracy": float(target in letters),
        "format_error_rate": float(not letters),
    }
    details: dict[str, Any] = {"readings": readings(answer), "letters": letters}
    if judgement is not None:
        value, problem = judge_outcome(judgement)
        details["judge_status"] = "ok" if problem is None else "error"
        if problem is None:
            metrics["judge_score"] = metrics["group_judge_score"] = value
        else:
            details["judge_error"] = problem
    return SampleScore(metrics, details)


def group_of(row: Row) -> Any:
    return row.meta.get("group_id")


def aggregate(specs: Sequence[MetricSpec], rows: Sequence[Row], scores: Sequence[SampleScore | None]) -> Aggregate:
    base = aggregate_metrics(specs, rows, scores)
    by_type: dict[str, dict[str, float | int]] = {}
    for task_type in sorted({r.meta.get("task_type") for r in rows if "task_type" in r.meta}, key=str):
        pairs = [(r, s) for r, s in zip(rows, scores, strict=True) if r.meta.get("task_type") == task_type]
        sub = aggregate_metrics(specs, [p[0] for p in pairs], [p[1] for p in pairs])
        by_type[f"task_type_{task_type}"] = {"n": sub.denominators.get("exact_match", 0), **sub.metrics}
    notes = list(base.notes)
    judged = [s for s in scores if s is not None and "judge_status" in s.details]
    if not judged:
        notes.append(JUDGE_ABSENT_NOTE)
    judge_errors = sum(s.details["judge_status"] == "error" for s in judged)
    if judge_errors:
        notes.append(f"{judge_errors} row(s) have no judge score (judge failed or gave no number); "
                     "left out of judge_score and group_judge_score")
    columns = ("n", *(spec.name for spec in specs if any(spec.name in cell for cell in by_type.values())))
    breakdowns: dict[str, Any] = {**base.breakdowns, "by_task_type": Table("by task type", columns, by_type,
                                                                          bar="exact_match")}
    if judge_errors:
        breakdowns["counts"] = {"judge_errors": judge_errors}
    return Aggregate(dict(base.metrics), dict(base.denominators), breakdowns, tuple(notes))
