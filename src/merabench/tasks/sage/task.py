"""SAGE: spelling and punctuation correction of Russian text (spec/sage.md, scoring.md "SAGE")."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from merabench.records import Judgement
from merabench.rows.row import Row
from merabench.tasks.base import Aggregate, MetricSpec, SampleScore, Task
from merabench.tasks.sage.edit_types import TYPES

# The scorer's modules (numpy, rapidfuzz, the tokenizer tables) load on first use: a run of the
# other tasks, and every run until its first answer is scored, does without them.

_WORD = re.compile(r"[А-Яа-яЁё]{4,}")


class SageTask(Task):
    name = "sage"
    aggregated_details = ("counts", "note")
    mera_name = "SAGE"
    required_inputs = frozenset({"source"})
    costly_scoring = True
    parallel_from = 300  # a few hundred alignments repay the workers' start
    hub_id = "MERA-evaluation/SAGE"
    description = "correct spelling and punctuation in Russian text; edit-level SPELL/PUNCT/ERRANT F1"
    metrics = (
        MetricSpec("errant_f1", "mean of spell_f1 and punct_f1 (the leaderboard's ERRANT_F1)", True),
        MetricSpec("spell_f1", "per-example F1 of SPELL edits, averaged over examples", True),
        MetricSpec("punct_f1", "per-example F1 of PUNCT edits, averaged over examples", True),
        MetricSpec("case_f1", "per-example F1 of CASE (capitalisation) edits"),
        MetricSpec("yo_f1", "per-example F1 of YO (е -> ё) edits"),
        *(MetricSpec(f"{kind.lower()}_micro_{suffix}", f"corpus-level {label} of {kind} edits (TP/FP/FN summed)",
                     derived=True)
          for kind in TYPES for suffix, label in (("f1", "F1"), ("f05", "F0.5"))),
    )

    def score(self, row: Row, answer: str, judgement: Judgement | None = None) -> SampleScore:
        from merabench.tasks.sage.metrics import score_example

        result = score_example(row.inputs.get("source", ""), row.outputs, answer)
        return SampleScore(result.metrics, result.details)

    def warm_up(self) -> None:
        # the scorer's modules too (numpy among them): forked workers that import them lazily each
        # pay ~0.1 s that one import here saves
        from merabench.tasks.sage import metrics  # noqa: F401
        from merabench.tasks.sage.tokenize import warm_up

        warm_up()

    def aggregate(self, rows: Sequence[Row], scores: Sequence[SampleScore | None]) -> Aggregate:
        from merabench.tasks.sage.aggregate import aggregate

        return aggregate(self.metrics, rows, scores)

    def explain(self, row: Row, answer: str) -> str:
        from merabench.tasks.sage.explain import explain

        return explain(row.inputs.get("source", ""), row.outputs, answer)

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
