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
