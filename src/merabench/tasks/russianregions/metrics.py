"""Per-sample scoring and aggregation for RussianRegions (pure functions).

Group metrics follow the public harness: rows grouped by `meta.group_id`, a group scores 1 only
if every row in it scores exactly 1 (a judge 0.5 fails it), averaged over groups. A group with
an unscored row (failed request or judge) counts only if another of its rows already failed it;
otherwise its result is unknown and it is left out, and the count is reported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from merabench.rows import Row
from merabench.tasks.base import Aggregate, SampleScore
from merabench.tasks.grouping import group_all_or_nothing
from merabench.tasks.russianregions.extract import exact_match, extract_letters, readings, reference_letter
from merabench.tasks.russianregions.judge import parse_verdict

JUDGE_ABSENT_NOTE = "judge metrics absent: no judge configured (--judge-model or LM_EVAL_JUDGE_MODEL)"


def judge_outcome(judgement: Mapping[str, Any]) -> tuple[float | None, str | None]:
    """(best score over the readings, None) or (None, why there is no score)."""
    replies, errors = judgement.get("replies") or [], judgement.get("errors") or []
    values = [parse_verdict(r) if r is not None else None for r in replies]
    known = [v for v in values if v is not None]
    if known and (max(known) == 1.0 or len(known) == len(values)):
        return max(known), None  # a full mark cannot be beaten by a reading that failed
    failures = [e for e in errors if e]
    if failures:
        return None, f"judge request failed: {failures[0]}"
    if not values:
        return None, "no judge request was made"
    return None, "judge reply has no number"


def score_answer(row: Row, answer: str, judgement: Mapping[str, Any] | None) -> SampleScore:
    letters = extract_letters(answer)
    target = reference_letter(row.outputs)
    metrics = {
        "exact_match": exact_match(answer, row.outputs),
        "letter_accuracy": float(target in letters),
        "format_error": float(not letters),
    }
    details: dict[str, Any] = {"readings": readings(answer), "letters": letters}
    if judgement is not None:
        value, problem = judge_outcome(judgement)
        details["judge_status"] = "ok" if problem is None else "error"
        if problem is None:
            metrics["judge_score"] = value
        else:
            details["judge_error"] = problem
    return SampleScore(metrics, details)


def _group_id(row: Row) -> Any:
    return row.meta.get("group_id")


def summarize(rows: Sequence[Row], scores: Sequence[SampleScore | None]) -> tuple[dict[str, float], dict[str, int], dict[str, int]]:
    """(metrics, denominators, counts of unscored things) over one set of rows."""
    metrics: dict[str, float] = {}
    denominators: dict[str, int] = {}
    counts: dict[str, int] = {}
    scored = [s for s in scores if s is not None]
    if not scored:
        return metrics, denominators, counts
    for name, source in (("exact_match", "exact_match"), ("letter_accuracy", "letter_accuracy"),
                         ("format_error_rate", "format_error")):
        metrics[name] = sum(s.metrics[source] for s in scored) / len(scored)
        denominators[name] = len(scored)
    em_values = [s.metrics["exact_match"] if s else None for s in scores]
    value, n_groups, unknown = group_all_or_nothing(rows, em_values, _group_id)
    if value is not None:
        metrics["group_exact_match"], denominators["group_exact_match"] = value, n_groups
        counts["groups_unknown_exact_match"] = unknown
    judged = [s for s in scored if "judge_status" in s.details]
    if judged:
        ok = [s.metrics["judge_score"] for s in judged if "judge_score" in s.metrics]
        counts["judge_errors"] = len(judged) - len(ok)
        if ok:
            metrics["judge_score"], denominators["judge_score"] = sum(ok) / len(ok), len(ok)
        judge_values = [s.metrics.get("judge_score") if s else None for s in scores]
        value, n_groups, unknown = group_all_or_nothing(rows, judge_values, _group_id)
        if value is not None:
            metrics["group_judge_score"], denominators["group_judge_score"] = value, n_groups
            counts["groups_unknown_judge_score"] = unknown
    return metrics, denominators, counts


def aggregate(rows: Sequence[Row], scores: Sequence[SampleScore | None]) -> Aggregate:
    metrics, denominators, counts = summarize(rows, scores)
    by_type: dict[str, Any] = {}
    for task_type in sorted({r.meta.get("task_type") for r in rows if "task_type" in r.meta}):
        pairs = [(r, s) for r, s in zip(rows, scores, strict=True) if r.meta.get("task_type") == task_type]
        sub_metrics, sub_denominators, _ = summarize([p[0] for p in pairs], [p[1] for p in pairs])
        by_type[f"task_type_{task_type}"] = {"metrics": sub_metrics, "denominators": sub_denominators}
    notes = []
    if not any(s is not None and "judge_status" in s.details for s in scores):
        notes.append(JUDGE_ABSENT_NOTE)
    if counts.get("judge_errors"):
        notes.append(f"{counts['judge_errors']} row(s) have no judge score (judge failed or gave no number); "
                     "left out of judge_score and group_judge_score")
    for key in ("groups_unknown_exact_match", "groups_unknown_judge_score"):
        if counts.get(key):
            notes.append(f"{counts[key]} group(s) left out of {key.removeprefix('groups_unknown_')} "
                         "group metric: a member row has no score")
    breakdowns: dict[str, Any] = {"by_task_type": by_type}
    if counts:
        breakdowns["counts"] = counts
    return Aggregate(metrics, denominators, breakdowns, tuple(notes))
