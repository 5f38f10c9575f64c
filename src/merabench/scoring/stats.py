"""Confidence intervals by a seeded, vectorised percentile bootstrap, resampling each metric's own
unit: rows for a mean, groups for an all-or-nothing group metric, rows within each group for a
balance (geometric mean of group means). Reruns give the same intervals.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

import numpy as np

from merabench.rows.row import Row
from merabench.tasks.aggregation import groups_of, values_of
from merabench.tasks.base import Aggregation, MetricSpec, SampleScore

T = TypeVar("T")
RESAMPLES = 1000
LEVEL = 0.95
_CHUNK_CELLS = 250_000  # resample indices held at once: ~2 MB per array, memory flat for any set size


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def bootstrap_means(values: np.ndarray, resamples: int = RESAMPLES, seed: int = 0) -> np.ndarray:
    """`resamples` means of `values` (n,), or of each column of `values` (n, k) under the same
    resampling of rows: a row's weight is how often it was drawn (bincount), then one matrix
    product gives every column's means."""
    rng = _rng(seed)
    n = values.shape[0]
    if values.ndim == 1 and np.isin(values, (0.0, 1.0)).all():
        return rng.binomial(n, values.mean(), size=resamples) / n  # exact for 0/1 values, and O(resamples)
    chunk = max(1, _CHUNK_CELLS // max(1, n))
    out = []
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        drawn = rng.integers(0, n, size=(size, n)) + (np.arange(size) * n)[:, None]
        weights = np.bincount(drawn.ravel(), minlength=size * n).reshape(size, n).astype(np.float64)
        out.append(weights @ values / n)
    return np.concatenate(out)


def interval(samples: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail], axis=0)
    return float(low), float(high)


def _mean_ci(values: list[float], seed: int) -> tuple[float, float] | None:
    if len(values) < 2:
        return None
    return interval(bootstrap_means(np.asarray(values, dtype=float), seed=seed))


def _all_or_nothing_ci(groups: dict[Hashable, list[float | None]], seed: int) -> tuple[float, float] | None:
    outcomes = [0.0 if any(v is not None and v < 1.0 for v in g) else 1.0
                for g in groups.values() if any(v is not None and v < 1.0 for v in g) or all(v is not None for v in g)]
    return _mean_ci(outcomes, seed)


def balance_samples(groups: dict[Hashable, list[float | None]], floor: float, seed: int = 0) -> np.ndarray | None:
    """Bootstrap draws of a balance (the geometric mean of the groups' floored means), resampling
    the rows within each group; None under 2 rows."""
    members = [np.asarray([v for v in g if v is not None], dtype=float) for g in groups.values()]
    members = [m for m in members if m.size]
    if not members or sum(m.size for m in members) < 2:
        return None
    logs = np.zeros(RESAMPLES)
    for n, values in enumerate(members):
        logs += np.log(np.maximum(floor, bootstrap_means(values, seed=seed + n)))
    return np.exp(logs / len(members))


def _balance_ci(groups: dict[Hashable, list[float | None]], floor: float, seed: int) -> tuple[float, float] | None:
    samples = balance_samples(groups, floor, seed)
    return None if samples is None else interval(samples)


def metric_interval(spec: MetricSpec, rows: Sequence[Row], scores: Sequence[SampleScore | None], seed: int = 0
                    ) -> tuple[float, float] | None:
    """The 95 % interval of one declared metric, or None when it cannot be drawn (under 2 units)."""
    values = values_of(spec.name, scores)
    if spec.aggregation is Aggregation.MEAN:
        return _mean_ci([v for v in values if v is not None], seed)
    if all(v is None for v in values):
        return None
    groups = groups_of(spec, rows, values)
    if spec.aggregation is Aggregation.ALL_OR_NOTHING:
        return _all_or_nothing_ci(groups, seed)
    return _balance_ci(groups, spec.floor, seed)


def intervals(specs: Sequence[MetricSpec], rows: Sequence[Row], scores: Sequence[SampleScore | None]
              ) -> dict[str, list[float]]:
    """{metric: [low, high]} for every declared per-row metric that has one. Means over the same
    rows share one resampling (one matrix product for all of them)."""
    out: dict[str, tuple[float, float]] = {}
    by_rows: dict[tuple[int, ...], list[tuple[str, list[float]]]] = {}
    for spec in specs:
        if spec.derived:
            continue
        if spec.aggregation is Aggregation.MEAN:
            values = values_of(spec.name, scores)
            present = tuple(i for i, v in enumerate(values) if v is not None)
            if len(present) >= 2:
                by_rows.setdefault(present, []).append((spec.name, [v for v in values if v is not None]))
            continue
        bounds = metric_interval(spec, rows, scores)
        if bounds is not None:
            out[spec.name] = bounds
    for columns in by_rows.values():
        matrix = np.asarray([v for _, v in columns], dtype=float).T
        binary: np.ndarray = np.all(np.isin(matrix, (0.0, 1.0)), axis=0)  # one flag a column
        # the other columns' means, one column of `shared` each, in order
        shared = iter(bootstrap_means(matrix[:, ~binary]).T if (~binary).any() else ())
        for n, (name, column) in enumerate(columns):
            out[name] = interval(bootstrap_means(np.asarray(column)) if binary[n] else next(shared))
    return {name: [round(out[name][0], 6), round(out[name][1], 6)] for name in (s.name for s in specs) if name in out}


def warm_up() -> None:
    """Load the parts of numpy an interval uses (numpy loads some of them on first use)."""
    interval(bootstrap_means(np.asarray([0.0, 0.5, 1.0])))
    interval(bootstrap_means(np.asarray([0.0, 1.0])))


def paired_difference(first: Sequence[float], second: Sequence[float], *, seed: int = 0) -> dict[str, float] | None:
    """Mean of second - first over the same rows, with a paired bootstrap interval, and how many
    rows each side wins. None without at least two shared rows."""
    differences = np.asarray(second, dtype=float) - np.asarray(first, dtype=float)
    if differences.size < 2:
        return None
    low, high = interval(bootstrap_means(differences, seed=seed))
    return {"difference": float(differences.mean()), "low": low, "high": high, "n": int(differences.size),
            "se": float(differences.std(ddof=1) / np.sqrt(differences.size)),
            "second_better": int((differences > 0).sum()), "first_better": int((differences < 0).sum())}


def paired_balance_difference(first: Sequence[float], second: Sequence[float], floor: float, *, seed: int = 0
                              ) -> dict[str, float] | None:
    """Geometric mean of second's floored group means minus first's, over the same groups (levers),
    with an interval that resamples the groups. None without at least two shared groups."""
    a = np.log(np.maximum(floor, np.asarray(first, dtype=float)))
    b = np.log(np.maximum(floor, np.asarray(second, dtype=float)))
    if a.size < 2:
        return None
    drawn = _rng(seed).integers(0, a.size, size=(RESAMPLES, a.size))
    samples = np.exp(b[drawn].mean(axis=1)) - np.exp(a[drawn].mean(axis=1))
    low, high = interval(samples)
    deltas = np.asarray(second, dtype=float) - np.asarray(first, dtype=float)
    return {"difference": float(np.exp(b.mean()) - np.exp(a.mean())), "low": low, "high": high, "n": int(a.size),
            "se": float(samples.std(ddof=1)),
            "second_better": int((deltas > 0).sum()), "first_better": int((deltas < 0).sum())}



def resampled(n: int, statistic: Callable[[np.ndarray], T], resamples: int = 200, *, seed: int = 0) -> list[T]:
    """`statistic` of `resamples` seeded draws of n unit indices (with replacement): for figures
    that must be recomputed whole on each resample (corpus-level metrics)."""
    rng = _rng(seed)
    return [statistic(rng.integers(0, n, size=n)) for _ in range(resamples)]
