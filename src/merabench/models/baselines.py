"""Baselines that need no model: `reference` (the gold answer; proves a scorer reaches 1.0),
`copy` (a fixed answer: SAGE's source unchanged, a well-formed wrong one elsewhere) and `random`
(seeded per row, so reruns give the same answers). They answer from the task and the row, so
they are not backends: the runner asks them directly and never caches them."""

from __future__ import annotations

import random
from typing import Literal, Protocol

from merabench.rows.row import Row

BaselineKind = Literal["reference", "copy", "random"]
BASELINES: tuple[BaselineKind, ...] = ("reference", "copy", "random")


class AnswersRows(Protocol):
    """What a baseline needs of a task (tasks/base.py's Task has it): its three stock answers."""

    @property
    def name(self) -> str: ...  # read-only: a Task's is a class variable

    def reference_answer(self, row: Row) -> str: ...

    def copy_answer(self, row: Row) -> str: ...

    def random_answer(self, row: Row, rng: random.Random) -> str: ...


def baseline_answer(kind: BaselineKind, task: AnswersRows, row: Row, seed: int | None = None) -> str:
    if kind == "reference":
        return task.reference_answer(row)
    if kind == "copy":
        return task.copy_answer(row)
    return task.random_answer(row, random.Random(f"{0 if seed is None else seed}:{task.name}:{row.id}"))
