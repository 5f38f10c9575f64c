"""Confidence intervals for metrics that are means over rows: a seeded percentile bootstrap."""

from __future__ import annotations

import random
from collections.abc import Sequence

RESAMPLES = 1000


def bootstrap_ci(values: Sequence[float], *, level: float = 0.95, resamples: int = RESAMPLES,
                 seed: int = 0) -> tuple[float, float] | None:
    """(low, high) of the mean; None for fewer than two values. Seeded, so reruns agree."""
    n = len(values)
    if n < 2:
        return None
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    tail = (1 - level) / 2
    return means[int(tail * resamples)], means[min(resamples - 1, int((1 - tail) * resamples))]


def paired_difference(first: Sequence[float], second: Sequence[float], *, level: float = 0.95,
                      resamples: int = RESAMPLES, seed: int = 0) -> dict[str, float] | None:
    """Mean of second - first over the same rows, with a paired bootstrap interval, and how many
    rows each side wins. None without at least two shared rows."""
    differences = [b - a for a, b in zip(first, second, strict=True)]
    bounds = bootstrap_ci(differences, level=level, resamples=resamples, seed=seed)
    if bounds is None:
        return None
    return {"difference": sum(differences) / len(differences), "low": bounds[0], "high": bounds[1],
            "n": len(differences), "second_better": sum(d > 0 for d in differences),
            "first_better": sum(d < 0 for d in differences)}
