"""Baselines that need no model: `reference` (the gold answer; proves a scorer reaches 1.0),
`copy` (a fixed answer: SAGE's source unchanged, a well-formed wrong one elsewhere) and `random`
(seeded per row, so reruns give the same answers). They answer from the task and the row, so
they are not backends: the runner asks them directly and never caches them."""

from __future__ import annotations

import random
from typing import Literal

from merabench.rows.row import Row
from merabench.tasks.base import Task

BaselineKind = Literal["reference", "copy", "random"]
BASELINES: tuple[BaselineKind, ...] = ("reference", "copy", "random")


def baseline_answer(kind: BaselineKind, task: Task, row: Row, seed: int | None = None) -> str:
    if kind == "reference":
        return task.reference_answer(row)
    if kind == "copy":
        return task.copy_answer(row)
    return task.random_answer(row, random.Random(f"{0 if seed is None else seed}:{task.name}:{row.id}"))
