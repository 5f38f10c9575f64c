"""SAGE: spelling and punctuation correction of Russian text (spec/sage.md)."""

from __future__ import annotations

import random
import re

from merabench.rows import Row
from merabench.tasks.base import PlaceholderScorer, Task

_WORD = re.compile(r"[А-Яа-яЁё]{4,}")


class SageTask(PlaceholderScorer, Task):
    name = "sage"
    mera_name = "SAGE"
    hub_id = "MERA-evaluation/SAGE"
    description = "correct spelling and punctuation in Russian text; edit-level SPELL/PUNCT/ERRANT F1"

    def copy_answer(self, row: Row) -> str:
        return row.inputs.get("source", "")

    def random_answer(self, row: Row, rng: random.Random) -> str:
        """The source with two neighbouring letters swapped in one random word (a typo)."""
        source = row.inputs.get("source", "")
        words = list(_WORD.finditer(source))
        if not words:
            return source
        match = rng.choice(words)
        i = rng.randrange(match.start(), match.end() - 1)
        return source[:i] + source[i + 1] + source[i] + source[i + 2:]
