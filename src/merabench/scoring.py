"""Answers -> scores: per-sample metrics on every answered row, then the task's aggregate.

Rows whose request failed keep `status: "error"` and get no metrics: they are counted, never
scored as an empty answer. Sets without reference answers (the public test split) are left
unscored, and the result says so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from merabench.rows import Row
from merabench.samples import Record
from merabench.stats import bootstrap_ci
from merabench.tasks.base import Aggregate, SampleScore, Task


@dataclass(frozen=True)
class TaskResult:
    task: str
    source: str
    n_rows: int
    n_answered: int
    n_errors: int
    n_scored: int
    aggregate: Aggregate | None
    tokens: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    ci95: dict[str, list[float]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        agg = self.aggregate
        out: dict[str, Any] = {
            "source": self.source,
            "n": self.n_rows, "n_answered": self.n_answered, "n_errors": self.n_errors, "n_scored": self.n_scored,
            "metrics": dict(agg.metrics) if agg else {},
            "denominators": dict(agg.denominators) if agg else {},
            "tokens": self.tokens,
        }
        if self.ci95:
            out["ci95"] = self.ci95
        if agg and agg.breakdowns:
            out["breakdowns"] = agg.breakdowns
        notes = list(self.notes) + (list(agg.notes) if agg else [])
        if notes:
            out["notes"] = notes
        return out


def intervals(aggregate: Aggregate, scores: Sequence[SampleScore | None]) -> dict[str, list[float]]:
    """95 % bootstrap intervals for the aggregate metrics that are plain means of per-row values."""
    per_row: dict[str, list[float]] = {}
    for score in scores:
        if score is not None:
            for name, value in score.metrics.items():
                per_row.setdefault(name, []).append(value)
    out = {}
    for name, value in aggregate.metrics.items():
        values = per_row.get(name)
        if values and abs(sum(values) / len(values) - value) < 1e-12:
            bounds = bootstrap_ci(values)
            if bounds:
                out[name] = [round(bounds[0], 6), round(bounds[1], 6)]
    return out


def scored_text(task: Task, record: Record, *, strip: bool) -> str:
    return task.scored_answer(record.get("output") or "", strip_think=strip)


def score_task(task: Task, rows: Sequence[Row], records: Mapping[int, Record], *, source: str,
               strip: bool) -> tuple[list[Record], TaskResult]:
    """Score every answered row; return the final records (one per row) and the task result."""
    has_references = any(r.outputs.strip() for r in rows)
    final: list[Record] = []
    scores: list[SampleScore | None] = []
    tokens = {"prompt": 0, "completion": 0}
    n_errors = 0
    reasons: Counter[str] = Counter()
    for row in rows:
        record = dict(records.get(row.id) or {"id": row.id, "status": "error", "error": "no answer"})
        record.pop("metrics", None)
        record.pop("details", None)
        record.pop("answer", None)
        tokens["prompt"] += record.get("prompt_tokens") or 0
        tokens["completion"] += record.get("completion_tokens") or 0
        score = None
        if record.get("status") != "ok":
            n_errors += 1
            reasons[str(record.get("error") or "unknown")[:160]] += 1
        elif has_references:
            answer = scored_text(task, record, strip=strip)
            if answer != record.get("output"):
                record["answer"] = answer
            score = task.score(row, answer, record.get("judge"))
            record["metrics"] = score.metrics
            if score.details:
                record["details"] = score.details
        scores.append(score)
        final.append(record)
    notes = [f"{count} row(s) failed: {reason}" for reason, count in reasons.most_common(3)]
    if not has_references:
        notes.append("the set has no reference answers (public test split): predictions only, no scores")
    n_scored = sum(s is not None for s in scores)
    aggregate = task.aggregate(rows, scores) if n_scored else None
    ci95 = intervals(aggregate, scores) if aggregate else {}
    n_answered = len(rows) - n_errors
    result = TaskResult(task=task.name, source=source, n_rows=len(rows),
                        n_answered=n_answered, n_errors=n_errors, n_scored=n_scored, aggregate=aggregate,
                        tokens=tokens, notes=tuple(notes), ci95=ci95)
    return final, result
