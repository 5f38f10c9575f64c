"""What a task's metrics are and what scoring makes of them: the metric declarations, one row's
scores and the task-level figures. Their own module, so the aggregation and the Task interface both
read them without importing each other."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from merabench.rows.row import Row


class Aggregation(StrEnum):
    """How a metric's per-row values become one number (and what an interval resamples)."""

    MEAN = "mean"                       # mean over the rows that carry it; resample rows
    ALL_OR_NOTHING = "all_or_nothing"   # share of groups whose every row scored 1; resample groups
    BALANCE = "balance"                 # geometric mean of the groups' means, each floored; resample
                                        # rows within each group


@dataclass(frozen=True)
class MetricSpec:
    name: str
    description: str
    headline: bool = False
    higher_is_better: bool = True
    aggregation: Aggregation = Aggregation.MEAN
    #: the group a row belongs to, for ALL_OR_NOTHING and BALANCE (None: the row is in no group)
    group_of: Callable[[Row], Hashable | None] | None = None
    #: BALANCE only: the least a group's mean counts as
    floor: float = 0.0
    #: computed by the task itself (corpus-level figures), not from per-row values
    derived: bool = False
    #: what one unit of the aggregation is called (default: rows for a mean, groups otherwise)
    unit: str | None = None

    @property
    def unit_name(self) -> str:
        if self.unit:
            return self.unit
        return "rows" if self.derived or self.aggregation is Aggregation.MEAN else "groups"


@dataclass(frozen=True)
class SampleScore:
    """Per-sample result: the metrics that apply to this row, and why (task-specific details)."""

    metrics: dict[str, float]
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Aggregate:
    """Task-level results: each metric with the number of rows (or groups) it averages over."""

    metrics: dict[str, float]
    denominators: dict[str, int]
    breakdowns: dict[str, Any] = field(default_factory=dict)  # Tables, and plain figures (counts, spreads)
    notes: tuple[str, ...] = ()
