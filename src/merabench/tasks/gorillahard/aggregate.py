"""Task-level GorillaHard results: every metric over its own rows, balance, dialogues, breakdowns.

`balance_score` is the geometric mean over the sixteen levers of each lever's pass rate, floored
at 0.01; a lever with no scored rows is left out of the mean and named in a note.
`dialog_pass_rate` groups the rows with `n_turns > 1` by dialogue and wording, all-or-nothing.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from merabench.rows import Row
from merabench.tasks.base import Aggregate, SampleScore, mean_aggregate
from merabench.tasks.gorillahard.metrics import categories
from merabench.tasks.grouping import group_all_or_nothing

LEVERS = ("scan", "catalog", "grounding", "schema", "constraint", "plan", "parallel", "clarify", "dialog",
          "recovery", "injection", "approx", "optional", "policy", "no_tool", "near_miss")
BALANCE_FLOOR = 0.01
TOP_REASONS = 15


def _dialog_key(row: Row) -> tuple | None:
    if int(row.meta.get("n_turns") or 1) <= 1:
        return None
    return (row.meta.get("dialog_id"), row.meta.get("wording"))


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
    "lever": lambda r: [str(categories(r).get("lever", "unknown"))],
    "family": lambda r: [str(categories(r).get("family", "unknown"))],
    "answer_kind": lambda r: [str(categories(r).get("answer_kind", "unknown"))],
    "wording": lambda r: [str(r.meta.get("wording", "unknown"))],
    "corpus_format": lambda r: [f.strip() for f in str(categories(r).get("corpus_format") or "none").split(",")],
    "n_tools": lambda r: [n_tools_bucket(r)],
    "turns": lambda r: ["dialogue" if _dialog_key(r) else "single_turn"],
}


def breakdown(rows: Sequence[Row], scores: Sequence[SampleScore | None], labels: Callable[[Row], list[str]]) -> dict:
    cells: dict[str, list[SampleScore]] = {}
    for row, score in zip(rows, scores, strict=True):
        if score is not None and "sample_pass_rate" in score.metrics:
            for label in labels(row):
                cells.setdefault(label, []).append(score)
    return {label: {"n": len(members),
                    "sample_pass_rate": sum(s.metrics["sample_pass_rate"] for s in members) / len(members),
                    "format_pass_rate": sum(s.metrics["format_pass_rate"] for s in members) / len(members)}
            for label, members in sorted(cells.items())}


def balance(by_lever: dict[str, dict]) -> tuple[float | None, list[str]]:
    present = [lever for lever in LEVERS if lever in by_lever]
    missing = [lever for lever in LEVERS if lever not in by_lever]
    if not present:
        return None, missing
    logs = [math.log(max(BALANCE_FLOOR, by_lever[lever]["sample_pass_rate"])) for lever in present]
    return math.exp(sum(logs) / len(logs)), missing


def aggregate(rows: Sequence[Row], scores: Sequence[SampleScore | None]) -> Aggregate:
    base = mean_aggregate(scores)
    metrics, denominators = dict(base.metrics), dict(base.denominators)
    notes: list[str] = []
    breakdowns: dict[str, Any] = {name: breakdown(rows, scores, labels) for name, labels in DIMENSIONS.items()}

    value, missing = balance(breakdowns["lever"])
    if value is not None:
        metrics["balance_score"] = value
        denominators["balance_score"] = len(LEVERS) - len(missing)
    if missing and value is not None:
        notes.append(f"balance_score over {len(LEVERS) - len(missing)} of 16 levers; no rows for: {', '.join(missing)}")

    passes = [s.metrics.get("sample_pass_rate") if s is not None else None for s in scores]
    dialog, n_dialogs, unknown = group_all_or_nothing(rows, passes, _dialog_key)
    if dialog is not None:
        metrics["dialog_pass_rate"], denominators["dialog_pass_rate"] = dialog, n_dialogs
    if unknown:
        notes.append(f"{unknown} dialogue(s) left out of dialog_pass_rate: their evaluated turn has no score")

    wordings = [cell["sample_pass_rate"] for cell in breakdowns["wording"].values()]
    if len(wordings) > 1:
        breakdowns["wording_spread"] = max(wordings) - min(wordings)

    reasons: Counter[str] = Counter()
    for score in scores:
        if score is not None:
            reasons.update(score.details.get("reasons", []))
    if reasons:
        breakdowns["failure_reasons"] = dict(reasons.most_common(TOP_REASONS))
        top = ", ".join(f"{r} ({n})" for r, n in reasons.most_common(5))
        notes.append(f"most frequent failure reasons: {top}")
    unscorable = sum(1 for s in scores if s is not None and "error" in s.details)
    if unscorable:
        notes.append(f"{unscorable} row(s) not scored: their reference is not a JSON envelope")
    return Aggregate(metrics, denominators, breakdowns, tuple(notes))
