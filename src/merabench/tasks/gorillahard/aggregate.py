"""Task-level GorillaHard results: the declared metrics, then breakdowns, failure reasons and notes.

`balance_score` is the geometric mean over the levers present of each lever's pass rate, floored
at 0.01 (a row without a lever counts under "?"); `dialog_pass_rate` groups dialogue turns by
"<dialog_id>|<wording>", all-or-nothing: both as the public scorer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from merabench.rows.row import Row
from merabench.tasks.aggregation import aggregate_metrics
from merabench.tasks.base import Aggregate, MetricSpec, SampleScore, Table
from merabench.tasks.gorillahard.metrics import NO_REFERENCE, categories, dialog_of, lever_of

LEVERS = ("scan", "catalog", "grounding", "schema", "constraint", "plan", "parallel", "clarify", "dialog",
          "recovery", "injection", "approx", "optional", "policy", "no_tool", "near_miss")
BALANCE_FLOOR = 0.01
TOP_REASONS = 15


def n_tools_bucket(row: Row) -> str:
    n = categories(row).get("n_tools")
    if not isinstance(n, int):
        return "unknown"
    for low, high in ((0, 13), (14, 15), (16, 17), (18, 19), (20, 22)):
        if low <= n <= high:
            return f"{low}-{high}"
    return "23+"


DIMENSIONS: dict[str, Callable[[Row], list[str]]] = {
    "difficulty": lambda r: [str(categories(r).get("difficulty", "unknown"))],
    "lever": lambda r: [lever_of(r)],
    "family": lambda r: [str(categories(r).get("family", "unknown"))],
    "answer_kind": lambda r: [str(categories(r).get("answer_kind", "unknown"))],
    "wording": lambda r: [str(r.meta.get("wording", "unknown"))],
    "corpus_format": lambda r: [f.strip() for f in str(categories(r).get("corpus_format") or "none").split(",")],
    "n_tools": lambda r: [n_tools_bucket(r)],
    "turns": lambda r: ["dialogue" if dialog_of(r) else "single_turn"],
}


def breakdown(name: str, rows: Sequence[Row], scores: Sequence[SampleScore | None],
              labels: Callable[[Row], list[str]]) -> Table:
    cells: dict[str, list[SampleScore]] = {}
    for row, score in zip(rows, scores, strict=True):
        if score is not None and "sample_pass_rate" in score.metrics:
            for label in labels(row):
                cells.setdefault(label, []).append(score)
    return Table(f"sample_pass_rate by {name.replace('_', ' ')}", ("n", "sample_pass_rate", "format_pass_rate"),
                 {label: {"n": len(members), "sample_pass_rate": _mean("sample_pass_rate", members),
                          "format_pass_rate": _mean("format_pass_rate", members)}
                  for label, members in sorted(cells.items(), key=lambda kv: (-len(kv[1]), kv[0]))},
                 bar="sample_pass_rate")


def _mean(name: str, scores: Sequence[SampleScore]) -> float | None:
    """The metric's mean over the scores, None where they do not carry it (format_pass_rate with
    --tool-mode native)."""
    values = [s.metrics[name] for s in scores if name in s.metrics]
    return sum(values) / len(values) if values else None


def aggregate(specs: Sequence[MetricSpec], rows: Sequence[Row], scores: Sequence[SampleScore | None]) -> Aggregate:
    base = aggregate_metrics(specs, rows, scores)
    notes: list[str] = list(base.notes)
    breakdowns: dict[str, Any] = {name: breakdown(name, rows, scores, labels) for name, labels in DIMENSIONS.items()}
    missing = [lever for lever in LEVERS if lever not in breakdowns["lever"].rows]
    if missing and "balance_score" in base.metrics:
        notes.append(f"balance_score over {base.denominators['balance_score']} lever(s); "
                     f"no scored rows for: {', '.join(missing)}")

    wordings = [cell["sample_pass_rate"] for cell in breakdowns["wording"].rows.values()]
    if len(wordings) > 1:
        breakdowns["wording_spread"] = max(wordings) - min(wordings)

    reasons: Counter[str] = Counter()
    for score in scores:
        if score is not None:
            reasons.update(score.details.get("reasons", []))
    if reasons:
        breakdowns["failure_reasons"] = Table("most frequent failure reasons", ("rows",),
                                              {r: {"rows": n} for r, n in reasons.most_common(TOP_REASONS)})
        top = ", ".join(f"{r} ({n})" for r, n in reasons.most_common(5))
        notes.append(f"most frequent failure reasons: {top}")
    unreferenced = sum(1 for s in scores if s is not None and s.details.get("note") == NO_REFERENCE)
    if unreferenced:
        notes.append(f"{unreferenced} row(s) have no reference answer: only format_pass_rate and "
                     "constraint_pass_rate are computed for them")
    return Aggregate(dict(base.metrics), dict(base.denominators), {**base.breakdowns, **breakdowns}, tuple(notes))
