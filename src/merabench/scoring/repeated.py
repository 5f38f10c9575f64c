"""Figures over a run that asked each row more than once (records.Draw: `--repeats K`, `--wordings
all`): how sure the mean is when a row's askings are not independent, and how often a row's
verdict changes from one asking to the next.

A row asked K times is one unit, not K: its askings share the question, so its K verdicts are
correlated, and an interval over K x n "rows" would claim a precision the run does not have. Every
interval here resamples the units the metric is declared over (rows, groups, levers) with all of
their askings: a mean's unit is the row's mean over its askings; an all-or-nothing group's is the
group's verdict in each draw, averaged; a balance resamples rows within each group. K askings of a
row that always gets the same verdict therefore narrow nothing, and independent askings narrow it
by as much as they are worth.

The spread of the headline metric is split in two (a one-way random-effects decomposition): the
part between rows (which questions a model gets right) and the part within rows (what a rerun of
the same question would change), `within_share` being the second's share.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from statistics import fmean, variance

import numpy as np

from merabench.records import Draw
from merabench.rows.row import Row
from merabench.scoring.stats import balance_samples, bootstrap_means, interval
from merabench.tasks.aggregation import group_outcome, groups_of, values_of
from merabench.tasks.metrics import Aggregation, MetricSpec, SampleScore

DrawScores = Mapping[Draw, Sequence[SampleScore | None]]


def row_means(name: str, by_draw: DrawScores) -> list[float | None]:
    """Each row's mean of `name` over the draws that scored it (None: none did)."""
    columns = [values_of(name, scores) for scores in by_draw.values()]
    means: list[float | None] = []
    for values in zip(*columns, strict=True):
        known = [v for v in values if v is not None]
        means.append(fmean(known) if known else None)
    return means


def collapsed(specs: Sequence[MetricSpec], by_draw: DrawScores) -> list[SampleScore | None]:
    """Each row as one unit: its per-row metrics averaged over its draws (details of none)."""
    names = [s.name for s in specs if not s.derived]
    columns = {name: row_means(name, by_draw) for name in names}
    n = len(next(iter(by_draw.values())))
    out: list[SampleScore | None] = []
    for r in range(n):
        metrics = {name: value for name in names if (value := columns[name][r]) is not None}
        out.append(SampleScore(metrics, {}) if metrics else None)
    return out


def group_verdicts(spec: MetricSpec, rows: Sequence[Row], by_draw: DrawScores) -> dict[Hashable, float]:
    """An all-or-nothing group's verdict in each draw, averaged over the draws that decide it."""
    verdicts: dict[Hashable, list[float]] = {}
    for scores in by_draw.values():
        for key, members in groups_of(spec, rows, values_of(spec.name, scores)).items():
            outcome = group_outcome(members)
            if outcome is not None:
                verdicts.setdefault(key, []).append(outcome)
    return {key: fmean(values) for key, values in verdicts.items()}


def mean_figures(units: Sequence[float], seed: int = 0) -> tuple[list[float], float] | None:
    """(95 % interval, standard error) of the mean of independent units; None under 2."""
    if len(units) < 2:
        return None
    values = np.asarray(units, dtype=float)
    low, high = interval(bootstrap_means(values, seed=seed))
    return [round(low, 6), round(high, 6)], float(values.std(ddof=1) / math.sqrt(values.size))


def clustered_figures(specs: Sequence[MetricSpec], rows: Sequence[Row], by_draw: DrawScores
                      ) -> tuple[dict[str, list[float]], dict[str, float]]:
    """({metric: 95 % interval}, {metric: standard error}) of every per-row metric, each over its
    own units with all of their askings (see the module's docstring)."""
    ci95: dict[str, list[float]] = {}
    se: dict[str, float] = {}
    for spec in specs:
        if spec.derived:
            continue
        if spec.aggregation is Aggregation.ALL_OR_NOTHING:
            found = mean_figures(list(group_verdicts(spec, rows, by_draw).values()))
        elif spec.aggregation is Aggregation.MEAN:
            found = mean_figures([v for v in row_means(spec.name, by_draw) if v is not None])
        else:
            found = _balance_figures(spec, rows, row_means(spec.name, by_draw))
        if found is not None:
            ci95[spec.name], se[spec.name] = found[0], round(found[1], 6)
    return ci95, se


def _balance_figures(spec: MetricSpec, rows: Sequence[Row], means: Sequence[float | None]
                     ) -> tuple[list[float], float] | None:
    samples = balance_samples(groups_of(spec, rows, means), spec.floor)
    if samples is None:
        return None
    low, high = interval(samples)
    return [round(low, 6), round(high, 6)], float(samples.std(ddof=1))


def cells_across(name: str, by_draw: DrawScores, *, held: Callable[[Draw], Hashable]) -> list[list[float]]:
    """The values of `name` a row got across the draws that share `held(draw)`: one list per row
    and held value, lists with at least one value. Across repeats (held: the wording) they are what
    a rerun varies; across wordings (held: the repeat), what a change of wording varies."""
    grouped: dict[Hashable, list[list[float | None]]] = {}
    for draw, scores in by_draw.items():
        grouped.setdefault(held(draw), []).append(values_of(name, scores))
    cells = []
    for columns in grouped.values():
        for values in zip(*columns, strict=True):
            known = [v for v in values if v is not None]
            if known:
                cells.append(known)
    return cells


def repeat_cells(name: str, by_draw: DrawScores) -> list[list[float]]:
    return cells_across(name, by_draw, held=lambda draw: draw.wording)


def wording_cells(name: str, by_draw: DrawScores) -> list[list[float]]:
    return cells_across(name, by_draw, held=lambda draw: draw.repeat)


def flips(cells: Sequence[Sequence[float]]) -> list[float]:
    """1 for a cell whose value is not the same in all its askings, 0 for one that is; cells asked
    once tell nothing and are left out."""
    return [float(len(set(cell)) > 1) for cell in cells if len(cell) > 1]


def variance_split(cells: Sequence[Sequence[float]]) -> dict[str, float] | None:
    """{between_rows, within_rows, within_share} of the headline metric's per-asking variance, from
    the cells asked at least twice; None with fewer than 2 such cells."""
    repeated = [cell for cell in cells if len(cell) > 1]
    if len(repeated) < 2:
        return None
    within = fmean(variance(cell) for cell in repeated)
    per_cell = fmean(1 / len(cell) for cell in repeated)  # E[1/K]: the within part left in a cell's mean
    between = max(0.0, variance([fmean(cell) for cell in repeated]) - within * per_cell)
    total = between + within
    return {"between_rows": round(between, 6), "within_rows": round(within, 6),
            "within_share": round(within / total, 6) if total else 0.0}


def passes(cells: Sequence[Sequence[float]], *, every: bool) -> list[float]:
    """Per cell, 1 when it passed (scored 1) in every asking (`every`) or in at least one."""
    test = all if every else any
    return [float(test(v >= 1.0 for v in cell)) for cell in cells]


def rate_figures(units: Sequence[float]) -> tuple[float, list[float] | None, float | None]:
    """(mean, 95 % interval or None, standard error or None) of per-row 0/1 figures."""
    value = fmean(units)
    found = mean_figures(units)
    return value, (found[0] if found else None), (round(found[1], 6) if found else None)


def by_wording(name: str, by_draw: DrawScores) -> dict[str, object] | None:
    """Per wording, `name` over the rows asked in every wording (their repeats averaged), and its
    paired difference from the same rows' mean under the other wordings, with a 95 % interval over
    rows; None with fewer than 2 wordings or 2 such rows."""
    wordings = sorted({d.wording for d in by_draw if d.wording is not None})
    if len(wordings) < 2:
        return None
    per_wording = {w: row_means(name, {d: s for d, s in by_draw.items() if d.wording == w}) for w in wordings}
    rows = [r for r in range(len(per_wording[wordings[0]])) if all(per_wording[w][r] is not None for w in wordings)]
    if len(rows) < 2:
        return None
    table = np.asarray([[per_wording[w][r] for w in wordings] for r in rows], dtype=float)  # rows x wordings
    # each wording against the mean of the others: against a mean that holds the wording itself, an
    # effect would shrink by (W-1)/W and the differences would sum to zero whatever the truth
    others = (table.sum(axis=1, keepdims=True) - table) / (len(wordings) - 1)
    against = table - others
    entries = []
    for k, w in enumerate(wordings):
        low, high = interval(bootstrap_means(against[:, k], seed=k))
        entries.append({"wording": w, "value": float(table[:, k].mean()),
                        "vs_others": {"difference": float(against[:, k].mean()), "low": round(low, 6),
                                      "high": round(high, 6)}})
    return {"metric": name, "rows": len(rows), "wordings": entries}
