"""What a paired comparison of two runs could see (scoring/power.py), per headline metric: the
minimum detectable effect in the metric's unit, a sentence a person can act on, and, asked for a
target difference (`compare --target 0.01`), the rows or repeats it would take.

Repeats enter through the spread of the paired differences: for a per-row (mean) metric, each
run's within-row variance is read from its own repeats (a run of one draw has none to show), and
the rest of the differences' variance is the part between rows, which no repeat can shrink.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import fmean, variance
from typing import Any

from merabench.records import Draw
from merabench.scoring.power import (
    MDE_FACTOR,
    RepeatSpread,
    detection_rate,
    estimable,
    mde,
    repeats_needed,
    rows_needed,
    sentence,
)
from merabench.tasks.aggregation import values_of
from merabench.tasks.base import Aggregation, SampleScore, Task

DrawScores = Mapping[Draw, Sequence[SampleScore | None]] | None


def with_mde(metrics: dict[str, dict[str, Any]]) -> None:
    """Each difference's minimum detectable effect (`mde`, from its `se`), in place."""
    for result in metrics.values():
        se = result.get("se")
        result["mde"] = mde(se) if estimable(se) else None  # no spread: not estimable, never 0


def power(task: Task, metrics: Mapping[str, dict[str, Any]], draws: tuple[DrawScores, DrawScores],
          target: float | None = None) -> dict[str, dict[str, Any]]:
    """{headline metric: {se, mde, sentence, and with `target`: rows_needed, repeats_needed}}."""
    out: dict[str, dict[str, Any]] = {}
    for spec in task.metrics:
        result = metrics.get(spec.name)
        if not spec.headline or result is None or not isinstance(result.get("se"), float):
            continue
        se = result["se"]
        entry: dict[str, Any] = {key: result[key] for key in ("difference", "low", "high", "n", "unit")}
        entry |= {"se": se, "mde": mde(se) if estimable(se) else None}
        if target is not None and estimable(se):
            entry |= _needed(spec.name, spec.aggregation, result, draws, target)
        out[spec.name] = entry | said(entry)
    return out


def said(entry: Mapping[str, Any], digits: int = 3) -> dict[str, str]:
    """The entry's sentence and, with a target, its advice, figures to `digits` decimals."""
    out = {"sentence": sentence(entry["difference"], entry["low"], entry["high"], entry["se"], entry["n"],
                                entry["unit"], digits)}
    if "target" in entry:
        out["advice"] = _advice(entry, digits)
    elif entry["mde"] is None:
        out["advice"] = "with no spread in these runs, what more rows or repeats would buy cannot be said"
    return out


def _needed(name: str, aggregation: Aggregation, result: Mapping[str, Any], draws: tuple[DrawScores, DrawScores],
            target: float) -> dict[str, Any]:
    """Rows (or groups) for an MDE of `target` at this comparison's spread, and, for a per-row
    metric, the repeats in both runs it would take with these rows."""
    n, se = result["n"], result["se"]
    found: dict[str, Any] = {"target": target, "rows_needed": rows_needed(n, se, target)}
    spread = _spread(name, draws, n * se * se) if aggregation is Aggregation.MEAN else None
    if spread is not None and spread.within_first is not None and spread.within_second is not None:
        found["repeats_needed"] = repeats_needed(n, spread, target)
        found["spread"] = {"between_rows": spread.between, "within_first": spread.within_first,
                           "within_second": spread.within_second}
    return found


def _within(name: str, draws: DrawScores) -> tuple[float | None, int]:
    """A run's mean variance of a row's value over its repeats, and its repeats (None: one draw)."""
    if draws is None or len(draws) < 2:
        return None, 1
    columns = [values_of(name, scores) for scores in draws.values()]
    cells = [[v for v in values if v is not None] for values in zip(*columns, strict=True)]
    cells = [cell for cell in cells if len(cell) > 1]
    return (fmean(variance(cell) for cell in cells) if cells else None), len(draws)


def _spread(name: str, draws: tuple[DrawScores, DrawScores], per_row: float) -> RepeatSpread:
    """The differences' per-row variance `per_row` split into its part between rows and each run's
    within-row part (a run of one draw: unknown, None)."""
    (wa, ka), (wb, kb) = _within(name, draws[0]), _within(name, draws[1])
    between = per_row - (wa or 0.0) / ka - (wb or 0.0) / kb
    return RepeatSpread(max(0.0, between), wa, wb, ka, kb)


def _advice(entry: Mapping[str, Any], digits: int) -> str:
    """What a target difference would take, in words."""
    target, n, unit = entry["target"], entry["n"], entry["unit"]
    found = detection_rate(target, entry["se"])
    if entry["mde"] <= target:
        return (f"for {target:g}: within reach already (the smallest detectable difference is {entry['mde']:.{digits}f}; "
                f"a real difference of {target:g} is found {found:.0%} of the time)")
    now = f"for {target:g}: these runs find a real difference of that size {found:.0%} of the time"
    if unit == "levers":  # the task's levers are fixed by its design: there are no more of them to add
        return now + "; its levers are fixed by the task: more rows in each, or repeats, narrow it"
    line = f"{now}; it takes about {entry['rows_needed']:,} {unit} at these repeats (now {n:,})"
    if "repeats_needed" not in entry:
        return line + ("; how much repeats would help needs both runs made with --repeats 2 or more"
                       if unit == "rows" else "")
    k = entry["repeats_needed"]
    if k is None:
        floor = MDE_FACTOR * (entry["spread"]["between_rows"] / n) ** 0.5
        return line + (f"; no number of repeats reaches it with these {n:,} {unit}: the rows' own spread allows "
                       f"no less than {floor:.{digits}f}")
    return line + f", or --repeats {k} in both runs with these {n:,} {unit}"
