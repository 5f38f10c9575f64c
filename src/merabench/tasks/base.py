"""The Task interface: what a task supplies to the pipeline, and nothing else.

A task maps a row to chat messages, an answer to per-sample metrics (pure, no I/O), and the
per-sample results to aggregate metrics, each with its own denominator.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from merabench.prompts import HistoryIndex, Message, build_messages
from merabench.rows import Row


@dataclass(frozen=True)
class MetricSpec:
    name: str
    description: str
    headline: bool = False


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
    breakdowns: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def mean_aggregate(scores: Sequence[SampleScore | None]) -> Aggregate:
    """Each metric averaged over the samples that carry it (None: a row that was not scored)."""
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for score in scores:
        if score is None:
            continue
        for name, value in score.metrics.items():
            sums[name] = sums.get(name, 0.0) + value
            counts[name] = counts.get(name, 0) + 1
    return Aggregate(metrics={k: sums[k] / counts[k] for k in sums}, denominators=counts)


class Task(ABC):
    name: ClassVar[str]
    mera_name: ClassVar[str]          # the file name in a MERA submission: SAGE.json, ...
    hub_id: ClassVar[str]
    description: ClassVar[str]
    metrics: ClassVar[tuple[MetricSpec, ...]]

    def messages(self, row: Row, history: HistoryIndex, system_prompt: str | None = None) -> list[Message]:
        return build_messages(row, history.earlier_turns(row), system_prompt=system_prompt)

    #: whether the task has an LLM-judged metric (then `judge_prompts` gives its requests)
    uses_judge: ClassVar[bool] = False

    @abstractmethod
    def score(self, row: Row, answer: str, judgement: Mapping[str, Any] | None = None) -> SampleScore:
        """Score one answer against the row's reference. Pure: no I/O, never raises on bad answers.

        `judgement` is what the judging stage recorded for this row (replies, errors), if it ran.
        """

    def explain(self, row: Row, answer: str) -> str:
        """A readable account of one answer's score (`merabench score --explain ID`)."""
        import json

        score = self.score(row, answer)
        return json.dumps({"metrics": score.metrics, "details": score.details}, ensure_ascii=False, indent=1)

    def judge_prompts(self, row: Row, answer: str) -> list[list[Message]]:
        """The judge requests for one answer; tasks without a judge have none."""
        return []

    def aggregate(self, rows: Sequence[Row], scores: Sequence[SampleScore | None]) -> Aggregate:
        """`scores[i]` belongs to `rows[i]`; None marks a row without a score (its request failed)."""
        return mean_aggregate(scores)

    # Baselines: answers that need no model.
    def reference_answer(self, row: Row) -> str:
        return row.outputs

    @abstractmethod
    def copy_answer(self, row: Row) -> str:
        """A fixed, well-formed answer (SAGE: the source unchanged)."""

    @abstractmethod
    def random_answer(self, row: Row, rng: random.Random) -> str:
        """A well-formed answer drawn at random with `rng` (seeded per row)."""
