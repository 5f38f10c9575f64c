"""Two runs' headline per-row metric, paired row by row within each label of a breakdown: for
GorillaHard, sample_pass_rate per lever and per answer kind (the text protocol against native tool
calls differs by lever, not evenly), each difference with its paired bootstrap interval."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from merabench.rows.row import Row
from merabench.scoring.stats import paired_difference
from merabench.tasks.base import SampleScore
from merabench.tasks.gorillahard.aggregate import DIMENSIONS

#: per task: the metric compared, and the breakdowns it is compared within
BREAKDOWNS: dict[str, tuple[str, dict[str, Callable[[Row], list[str]]]]] = {
    "gorillahard": ("sample_pass_rate", {"lever": DIMENSIONS["lever"], "answer_kind": DIMENSIONS["answer_kind"]}),
}


def _cell(first: list[float], second: list[float]) -> dict[str, Any]:
    """The label's figures: both means, and the difference with its interval (none for one row)."""
    cell: dict[str, Any] = {"n": len(first), "first": float(np.mean(first)), "second": float(np.mean(second)),
                            "difference": float(np.mean(second) - np.mean(first)), "low": None, "high": None}
    paired = paired_difference(first, second)
    if paired is not None:
        cell.update(low=paired["low"], high=paired["high"], second_better=paired["second_better"],
                    first_better=paired["first_better"])
    return cell


def breakdown_differences(task: str, rows: Sequence[Row] | None, first: Sequence[SampleScore | None],
                          second: Sequence[SampleScore | None]) -> dict[str, Any]:
    """{"metric": name, dimension: {label: cell}} over the rows both runs scored; {} for a task
    without breakdowns, or without the rows."""
    if task not in BREAKDOWNS or rows is None:
        return {}
    metric, dimensions = BREAKDOWNS[task]
    out: dict[str, Any] = {"metric": metric}
    for dimension, labels_of in dimensions.items():
        pairs: dict[str, tuple[list[float], list[float]]] = {}
        for row, a, b in zip(rows, first, second, strict=True):
            if a is None or b is None or metric not in a.metrics or metric not in b.metrics:
                continue
            for label in labels_of(row):
                pair = pairs.setdefault(label, ([], []))
                pair[0].append(a.metrics[metric])
                pair[1].append(b.metrics[metric])
        out[dimension] = {label: _cell(*pairs[label]) for label in sorted(pairs, key=lambda k: (-len(pairs[k][0]), k))}
    return out
