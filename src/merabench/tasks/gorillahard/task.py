"""GorillaHard: tool selection answered with one JSON envelope (spec/gorillahard.md)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

from merabench.records import Judgement
from merabench.rows.row import Row
from merabench.tasks.base import Aggregate, Aggregation, MetricSpec, SampleScore, Task
from merabench.tasks.gorillahard import aggregate, metrics
from merabench.tasks.gorillahard.aggregate import BALANCE_FLOOR

# A call to a tool no catalog has: well-formed and wrong on every row.
COPY_ANSWER = json.dumps({"tool": "baseline.noop", "args": {}})


class GorillaHardTask(Task):
    name = "gorillahard"
    aggregated_details = ("reasons", "note")
    removes_think = True
    passes_by = "sample_pass_rate"

    def wording_index(self, row: Row) -> int | None:
        wording = row.meta.get("wording")  # the card: 0-4, the five tones; a dialogue's turns share one
        return wording if isinstance(wording, int) and not isinstance(wording, bool) else None
    scores_without_reference = True  # format_pass_rate and constraint_pass_rate, as the public scorer emits
    parallel_from = 800  # a full set's answers, when `score` takes them all at once (a run scores them early)
    mera_name = "GorillaHard"
    required_inputs = frozenset({"question", "tools", "format"})

    def reference_problem(self, reference: str) -> str | None:
        try:
            envelope = json.loads(reference)
        except (json.JSONDecodeError, RecursionError):
            return "is not JSON (a reference is one JSON envelope)"
        if not isinstance(envelope, dict):
            return "must be a JSON object (one envelope)"
        from merabench.tasks.gorillahard.parse import reference_problem

        return reference_problem(envelope)
    hub_id = "MERA-evaluation/GorillaHard"
    description = "pick tools from a catalog and answer with one JSON envelope; strict deterministic scorer"
    metrics = (
        MetricSpec("sample_pass_rate", "format and content both right", True),
        MetricSpec("balance_score", "geometric mean of the levers' pass rates, floor 0.01", True,
                   aggregation=Aggregation.BALANCE, group_of=metrics.lever_of, floor=BALANCE_FLOOR, unit="levers"),
        MetricSpec("dialog_pass_rate", "dialogues (by dialogue and wording) whose evaluated turn passed", True,
                   aggregation=Aggregation.ALL_OR_NOTHING, group_of=metrics.dialog_of, unit="dialogues"),
        MetricSpec("format_pass_rate", "all nine format checks pass"),
        MetricSpec("constraint_pass_rate", "share of the nine format checks passed"),
        MetricSpec("tool_match_rate", "right tool(s), rows that need a call"),
        MetricSpec("args_match_rate", "right tool(s) and every argument, rows that need a call"),
        MetricSpec("abstention_recall", "refused, on refusal rows"),
        MetricSpec("false_abstention_rate", "refused where a call was needed", higher_is_better=False),
        MetricSpec("clarify_recall", "asked back, on clarification rows"),
        MetricSpec("false_clarify_rate", "asked back where a call was needed", higher_is_better=False),
        MetricSpec("tool_in_catalog_rate", "names a tool and every tool named is in the catalog, rows that need a call"),
        MetricSpec("cost_optimal_rate", "right side of a same-capability pair, cost_pick rows"),
        MetricSpec("injection_resistance_rate", "the planted instruction's tool not called"),
    )

    def score(self, row: Row, answer: str, judgement: Judgement | None = None) -> SampleScore:
        return metrics.score_row(row, answer)

    def scored_answer(self, raw: str, *, strip_think: bool) -> str:
        """The raw answer, always: removing think blocks is part of this task's own scoring
        (applied once, whatever --strip-think says, as the public scorer does)."""
        return raw

    def aggregate(self, rows: Sequence[Row], scores: Sequence[SampleScore | None]) -> Aggregate:
        return aggregate.aggregate(self.metrics, rows, scores)

    def copy_answer(self, row: Row) -> str:
        return COPY_ANSWER

    def random_answer(self, row: Row, rng: random.Random) -> str:
        names = sorted(metrics.catalog_of(row).families)
        if not names:
            return COPY_ANSWER
        return json.dumps({"tool": rng.choice(names), "args": {}}, ensure_ascii=False)
