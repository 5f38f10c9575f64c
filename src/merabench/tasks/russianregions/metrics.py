"""Per-sample scoring and aggregation for RussianRegions (pure functions).

Group metrics follow the public harness: rows grouped by `meta.group_id`, a group scores 1 only
if every row in it scores exactly 1 (a judge 0.5 fails it), averaged over groups (declared as
ALL_OR_NOTHING in task.py). A group with an unscored row (failed request or judge) counts only if
another of its rows already failed it; otherwise it is left out, and the count is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from merabench.records import Judgement, commonest_error
from merabench.rows.row import Row
from merabench.tasks.aggregation import aggregate_metrics
from merabench.tasks.base import Aggregate, Aggregation, MetricSpec, SampleScore, Table
from merabench.tasks.russianregions.extract import exact_match, extract_letters, readings, reference_letter

JUDGE_ABSENT_NOTE = "judge metrics absent: no judge configured (--judge-model or LM_EVAL_JUDGE_MODEL)"


def reading_values(judgement: Judgement) -> list[float | None]:
    """Each reading's judge score: a reply without a number scores 0, as the public harness
    scores it (it is the judge's answer, not a failure); None only where no reply came."""
    return [None if reply is None else (0.0 if value is None else value)
            for reply, value in zip(judgement.replies, judgement.scores, strict=True)]


def judge_outcome(judgement: Judgement) -> tuple[float | None, str | None]:
    """(best score over the readings, None) or (None, why there is no score)."""
    values = reading_values(judgement)
    known = [v for v in values if v is not None]
    if known and (max(known) == 1.0 or len(known) == len(values)):
        return max(known), None  # a full mark cannot be beaten by a reading without a reply
    failures = [e for e in judgement.errors if e]
    if failures:
        return None, f"judge request failed: {failures[0]}"
    if not values:
        return None, "no judge request was made"
    return None, "judge gave no reply"


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
        details["judge_no_number"] = sum(r is not None and v is None for r, v in
                                         zip(judgement.replies, judgement.scores, strict=True))
        details["judge_failed_calls"] = sum(r is None for r in judgement.replies)
        failures = commonest_error(judgement.errors)
        if failures is not None:
            details["judge_call_error"] = failures[0]
        if value is not None:  # judge_outcome gives a value or a problem
            metrics["judge_score"] = metrics["group_judge_score"] = value
        else:
            details["judge_error"] = problem
    return SampleScore(metrics, details)


def group_of(row: Row) -> Any:
    return row.meta.get("group_id")


def aggregate(specs: Sequence[MetricSpec], rows: Sequence[Row], scores: Sequence[SampleScore | None]) -> Aggregate:
    grouped = {spec.name for spec in specs if spec.aggregation is Aggregation.ALL_OR_NOTHING}
    base = aggregate_metrics(specs, rows, scores)
    by_type: dict[str, dict[str, float | int]] = {}
    for task_type in sorted({r.meta.get("task_type") for r in rows if "task_type" in r.meta}, key=str):
        pairs = [(r, s) for r, s in zip(rows, scores, strict=True) if r.meta.get("task_type") == task_type]
        sub = aggregate_metrics(specs, [p[0] for p in pairs], [p[1] for p in pairs])
        # a group holds one row of each type, so a group metric within one type only repeats its row metric
        by_type[f"task_type_{task_type}"] = {"n": sub.denominators.get("exact_match", 0),
                                             **{k: v for k, v in sub.metrics.items() if k not in grouped}}
    notes = list(base.notes)
    judged = [s for s in scores if s is not None and "judge_status" in s.details]
    if not judged:
        notes.append(JUDGE_ABSENT_NOTE)
    judge_errors = sum(s.details["judge_status"] == "error" for s in judged)
    no_number = sum(s.details.get("judge_no_number", 0) for s in judged)
    failed_calls = sum(s.details.get("judge_failed_calls", 0) for s in judged)
    if no_number:
        notes.append(f"{no_number} judge reply(ies) held no number: that reading scores 0, as the harness "
                     "scores it (the row keeps its best reading)")
    if failed_calls:
        error, error_rows = commonest_error(s.details.get("judge_call_error") for s in judged) or ("not recorded", 0)
        notes.append(f"{failed_calls} judge call(s) failed after their retries; the commonest error "
                     f"({error_rows} row(s)): {error}")
    if judge_errors:
        notes.append(f"{judge_errors} row(s) have no judge score (no reply from the judge); "
                     "left out of judge_score and group_judge_score, not scored 0")
    columns = ("n", *(spec.name for spec in specs if any(spec.name in cell for cell in by_type.values())))
    breakdowns: dict[str, Any] = {**base.breakdowns, "by_task_type": Table("by task type", columns, by_type,
                                                                          bar="exact_match")}
    if judged:
        breakdowns["counts"] = {"judge_errors": judge_errors, "judge_replies_without_number": no_number,
                                "judge_failed_calls": failed_calls}
    return Aggregate(dict(base.metrics), dict(base.denominators), breakdowns, tuple(notes))
