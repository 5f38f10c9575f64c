"""Per-row metric values -> task-level figures, each metric by its declared aggregation.

MEAN: over the rows that carry the metric. ALL_OR_NOTHING (RussianRegions groups, GorillaHard
dialogues): a group scores 1 only if every row in it scores exactly 1; a row without a value (its
request or its judge failed) leaves its group unknown unless another row already failed it, and
unknown groups are left out and counted. BALANCE (GorillaHard levers): each group's mean, floored,
then the geometric mean over the groups present.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

from merabench.rows.row import Row
from merabench.tasks.metrics import Aggregate, Aggregation, MetricSpec, SampleScore


def values_of(name: str, scores: Sequence[SampleScore | None]) -> list[float | None]:
    return [None if s is None else s.metrics.get(name) for s in scores]


def groups_of(spec: MetricSpec, rows: Sequence[Row], values: Sequence[float | None]
              ) -> dict[Hashable, list[float | None]]:
    assert spec.group_of is not None, spec.name
    groups: dict[Hashable, list[float | None]] = {}
    for row, value in zip(rows, values, strict=True):
        key = spec.group_of(row)
        if key is not None:
            groups.setdefault(key, []).append(value)
    return groups


def group_outcome(members: Sequence[float | None]) -> float | None:
    """1 if every row scored exactly 1, 0 if a row scored less, None (unknown) otherwise."""
    if any(v is not None and v < 1.0 for v in members):
        return 0.0
    return 1.0 if all(v is not None for v in members) else None


def all_or_nothing(groups: dict[Hashable, list[float | None]]) -> tuple[float | None, int, int]:
    """(share of passing groups, groups counted, groups left out as unknown)."""
    outcomes = [group_outcome(members) for members in groups.values()]
    results = [o for o in outcomes if o is not None]
    return (sum(results) / len(results) if results else None), len(results), len(outcomes) - len(results)


def group_means(groups: dict[Hashable, list[float | None]]) -> dict[Hashable, float]:
    """Each group's mean over its rows with a value; groups with none are out."""
    known = {key: [v for v in members if v is not None] for key, members in groups.items()}
    return {key: sum(values) / len(values) for key, values in known.items() if values}


def geometric_mean(means: Sequence[float], floor: float) -> float:
    return math.exp(sum(math.log(max(floor, m)) for m in means) / len(means))


def balance(groups: dict[Hashable, list[float | None]], floor: float) -> tuple[float | None, int]:
    """(geometric mean of the groups' floored means, groups counted); groups with no value are out."""
    means = list(group_means(groups).values())
    if not means:
        return None, 0
    return geometric_mean(means, floor), len(means)


def aggregate_metric(spec: MetricSpec, rows: Sequence[Row], scores: Sequence[SampleScore | None]
                     ) -> tuple[float | None, int, int]:
    """(value, denominator, groups left out) of one metric; value None when nothing carries it."""
    values = values_of(spec.name, scores)
    if spec.aggregation is Aggregation.MEAN:
        known = [v for v in values if v is not None]
        return (sum(known) / len(known) if known else None), len(known), 0
    if all(v is None for v in values):
        return None, 0, 0
    groups = groups_of(spec, rows, values)
    if spec.aggregation is Aggregation.ALL_OR_NOTHING:
        return all_or_nothing(groups)
    value, n = balance(groups, spec.floor)
    return value, n, 0


def aggregate_metrics(specs: Sequence[MetricSpec], rows: Sequence[Row], scores: Sequence[SampleScore | None]
                      ) -> Aggregate:
    """Every declared (non-derived) metric that some row carries."""
    metrics: dict[str, float] = {}
    denominators: dict[str, int] = {}
    left_out: dict[str, int] = {}
    for spec in specs:
        if spec.derived:
            continue
        value, n, unknown = aggregate_metric(spec, rows, scores)
        if value is not None:
            metrics[spec.name], denominators[spec.name] = value, n
        if unknown:
            left_out[spec.name] = unknown
    notes = tuple(f"{n} group(s) left out of {name}: a member row has no score" for name, n in left_out.items())
    return Aggregate(metrics, denominators, {"groups_left_out": left_out} if left_out else {}, notes)
