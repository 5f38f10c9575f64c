"""Baselines that need no model: `reference` (the gold answer; proves a scorer reaches 1.0),
`copy` (a fixed answer: SAGE's source unchanged, a well-formed wrong one elsewhere) and `random`
(seeded per row, so reruns give the same answers)."""

from __future__ import annotations

import random
from typing import Literal

from merabench.models.base import Backend, Completion, ModelRequest

BaselineKind = Literal["reference", "copy", "random"]
BASELINES: tuple[BaselineKind, ...] = ("reference", "copy", "random")


class BaselineBackend(Backend):
    cacheable = False

    def __init__(self, kind: BaselineKind, seed: int | None = None) -> None:
        self.kind = kind
        self.name = kind
        self.seed = 0 if seed is None else seed

    async def generate(self, request: ModelRequest) -> Completion:
        task, row = request.task, request.row
        if self.kind == "reference":
            text = task.reference_answer(row)
        elif self.kind == "copy":
            text = task.copy_answer(row)
        else:
            text = task.random_answer(row, random.Random(f"{self.seed}:{task.name}:{row.id}"))
        return Completion(text=text, finish_reason="stop")
