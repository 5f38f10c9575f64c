"""RussianRegions: multiple-choice questions on Russian regionalisms (spec/russianregions.md)."""

from __future__ import annotations

import random

from merabench.rows import Row
from merabench.tasks.base import PlaceholderScorer, Task

LETTERS = ("А", "Б", "В", "Г")


def reference_letter(row: Row) -> str:
    return row.outputs.split(";", 1)[0].strip()


class RussianRegionsTask(PlaceholderScorer, Task):
    name = "russianregions"
    mera_name = "RussianRegions"
    hub_id = "MERA-evaluation/RussianRegions"
    description = "multiple-choice questions on Russian regionalisms; exact match, group match, LLM judge"

    def copy_answer(self, row: Row) -> str:
        """Always the first letter that is not the reference: well-formed and wrong."""
        wrong = next(letter for letter in LETTERS if letter != reference_letter(row))
        return f"Ответ: {wrong}"

    def random_answer(self, row: Row, rng: random.Random) -> str:
        return f"Ответ: {rng.choice(LETTERS)}"
