"""The Task interface: what a task supplies to the pipeline, and nothing else.

A task maps a row to chat messages, an answer to per-sample metrics (pure, no I/O), and the
per-sample results to aggregate metrics, each with its own denominator.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from merabench.records import Answer, Judgement, ToolMode
from merabench.rows.prompts import HistoryIndex, Message, build_messages
from merabench.rows.row import Row
from merabench.support import think
from merabench.tasks.aggregation import aggregate_metrics
from merabench.tasks.judge_protocol import HarnessTemplate
from merabench.tasks.metrics import Aggregate, MetricSpec, SampleScore
from merabench.tasks.metrics import Aggregation as Aggregation  # for the callers that take it from here

if TYPE_CHECKING:
    from merabench.models.base import ToolSpec


@dataclass(frozen=True)
class Table:
    """A breakdown as the report draws it: a row per label, a column per figure; `bar` names the
    column (a rate in [0, 1]) drawn as a bar beside the numbers."""

    title: str
    columns: tuple[str, ...]
    rows: Mapping[str, Mapping[str, float | int | None]]
    bar: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "columns": list(self.columns), "bar": self.bar,
                "rows": {label: dict(values) for label, values in self.rows.items()}}


class Task(ABC):
    name: ClassVar[str]
    mera_name: ClassVar[str]          # the file name in a MERA submission: SAGE.json, ...
    hub_id: ClassVar[str]
    description: ClassVar[str]
    metrics: ClassVar[tuple[MetricSpec, ...]]

    def messages(self, row: Row, history: HistoryIndex, system_prompt: str | None = None) -> list[Message]:
        return build_messages(row, history.earlier_turns(row), system_prompt=system_prompt)

    #: how the model is asked: as text (the leaderboard's protocol), or by native tool calls
    tool_mode: ClassVar[ToolMode] = ToolMode.TEXT

    def tool_spec(self, row: Row) -> ToolSpec | None:
        """How the row is answered by native tool calling; None: by one request (every task but
        GorillaHard with --tool-mode native)."""
        return None

    #: the inputs that belong to a row's prompt wording, not its question (`run --wordings all`:
    #: tasks/wordings.py); RussianRegions' introduction, task formulation and format description
    wording_fields: ClassVar[tuple[str, ...]] = ()

    def wording_group(self, row: Row) -> Hashable:
        """The rows whose wordings a row can take (None: every row of the task)."""
        return None

    def wording_index(self, row: Row) -> int | None:
        """The wording's index the data itself gives (GorillaHard's meta.wording), or None."""
        return None

    def answer_notes(self, answers: Sequence[Answer]) -> list[str]:
        """What the task says of how its rows were answered (native tool calls: by which way)."""
        return []

    #: the inputs every row of the task carries (its template and its scorer read them): a row
    #: without them belongs to another task
    required_inputs: ClassVar[frozenset[str]] = frozenset()

    def reference_problem(self, reference: str) -> str | None:
        """Why a non-empty reference cannot be this task's (None: it can); empty ones are
        public test rows without answers."""
        return None

    #: whether the task has an LLM-judged metric (then `judge_prompts` gives its requests)
    uses_judge: ClassVar[bool] = False
    #: whether scoring a row takes real time (then it is left to the end of a run, not done early)
    costly_scoring: ClassVar[bool] = False
    #: from how many rows to score on every core (parallel.py); None: always in this process
    parallel_from: ClassVar[int | None] = None
    #: the per-row details `aggregate` reads; the rest goes to the samples file and is not kept
    aggregated_details: ClassVar[tuple[str, ...]] = ()

    def warm_up(self) -> None:  # noqa: B027 - an optional hook
        """Load what scoring needs before the work is shared out among processes."""

    #: whether the task's own scoring removes think blocks (then --strip-think changes nothing)
    removes_think: ClassVar[bool] = False
    #: the per-row metric that says a row passed (1) or not: pass_at_k and pass_all_k over repeats
    passes_by: ClassVar[str | None] = None
    #: whether a row without a reference still has metrics (GorillaHard's format checks), so a
    #: set with no reference answers at all (the public test split) is scored for those
    scores_without_reference: ClassVar[bool] = False

    def scored_answer(self, raw: str, *, strip_think: bool) -> str:
        """The text the scorer sees: the public harness's filter (left-stripped, every other byte
        kept, think blocks too); with `strip_think`, think blocks removed first (an extra)."""
        return think.strip_think(raw) if strip_think else raw.lstrip()

    @abstractmethod
    def score(self, row: Row, answer: str, judgement: Judgement | None = None) -> SampleScore:
        """Score one answer against the row's reference. Pure: no I/O, never raises on bad answers.

        `judgement` is what the judging stage made of this answer, if a judge ran.
        """

    def explain(self, row: Row, answer: str) -> str | None:
        """This task's own readable account of one answer's score (`merabench score --explain ID`),
        or None: the report's generic one (report/views.py `explained`) then serves."""
        return None

    def judge_prompts(self, row: Row, answer: str, template: HarnessTemplate | None = None) -> list[list[Message]]:
        """The judge requests for one answer (the task's own prompt, or `template` in the public
        harness's protocol); tasks without a judge have none."""
        return []

    def judge_value(self, reply: str) -> float | None:
        """The score a reply to the task's own judge prompt gives; None when it gives none."""
        return None

    def judge_template_sha(self) -> str:
        """A short hash of the task's own judge prompt (what results.json records)."""
        return ""

    def aggregate(self, rows: Sequence[Row], scores: Sequence[SampleScore | None]) -> Aggregate:
        """`scores[i]` belongs to `rows[i]`; None marks a row without a score (its request failed).

        Every declared metric by its own aggregation; a task adds breakdowns and notes."""
        return aggregate_metrics(self.metrics, rows, scores)

    def spec(self, name: str) -> MetricSpec | None:
        return next((m for m in self.metrics if m.name == name), None)

    # Baselines: answers that need no model.
    def reference_answer(self, row: Row) -> str:
        return row.outputs

    @abstractmethod
    def copy_answer(self, row: Row) -> str:
        """A fixed, well-formed answer (SAGE: the source unchanged)."""

    @abstractmethod
    def random_answer(self, row: Row, rng: random.Random) -> str:
        """A well-formed answer drawn at random with `rng` (seeded per row)."""
