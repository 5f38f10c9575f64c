"""Rows to work items: what the runner sends for each row and draw, and what it keeps.

A run asks every row once per draw (records.Draw): the k-th repeat of `run --repeats K`, under the
row's own wording or, with `run --wordings all`, under each wording its task has (a dialogue's
earlier turns in the same wording; a row whose question type has fewer wordings is not asked in
the draws past them). The k-th repeat
sends `seed + k` when a seed is set (`--repeat-seed offset`, the default), so a seeded sampler draws
afresh, or the seed itself (`--repeat-seed same`: what is left to differ is the server's own
nondeterminism); either way it is cached under a key of its own. The base draw (repeat 0, the
row's own wording) is exactly the request of a run without repeats: same messages, same seed, same
cache key, so old caches and folders answer it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from merabench.errors import DataError
from merabench.models.base import Completion, ToolSpec
from merabench.records import BASE, Answer, Draw, Status
from merabench.rows.prompts import HistoryIndex, Message, request_digest
from merabench.rows.row import Row, TaskData
from merabench.support.think import think_text
from merabench.tasks.base import Task
from merabench.tasks.wordings import Wordings, reworded_rows

RepeatSeed = Literal["offset", "same"]
MAX_REPEATS = 1000  # past this an interval over rows cannot narrow further; a typo of a zero is refused


@dataclass(frozen=True)
class TaskRun:
    task: Task
    data: TaskData
    #: `--wordings all`: every wording the task's data hold (tasks/wordings.py); None: each row's own
    wordings: Wordings | None = None


@dataclass(frozen=True)
class Asking:
    """How a run asks its rows: its draws, and how a repeat's seed is chosen."""

    draws: tuple[Draw, ...] = (BASE,)
    repeat_seed: RepeatSeed = "offset"

    @property
    def drawn(self) -> bool:
        """More than the base draw: answers are labelled with their draw."""
        return self.draws != (BASE,)

    def seed_offset(self, draw: Draw) -> int:
        return draw.repeat if self.repeat_seed == "offset" else 0

    @classmethod
    def of(cls, repeats: int = 1, repeat_seed: RepeatSeed = "offset", wordings: int = 0) -> Asking:
        """`repeats` repeats of each row, under each of `wordings` wordings (0: its own)."""
        if not wordings:
            return cls(tuple(Draw(k) for k in range(repeats)), repeat_seed)
        return cls(tuple(Draw(k, w) for k in range(repeats) for w in range(wordings)), repeat_seed)


PLAIN = Asking()


@dataclass(frozen=True)
class WorkItem:
    task: Task
    row: Row
    messages: tuple[Message, ...]
    digest: str
    cache_key: str | None = None  # set when the cache was asked for it, so a fresh answer is stored under it
    tools: ToolSpec | None = None  # native tool calling: the row is a conversation (runner/tool_loop.py)
    draw: Draw = BASE
    seed_offset: int = 0  # added to the run's seed for this request (a repeat's own draw)

    @property
    def messages_hash(self) -> str:
        return self.digest[:16]

    def cache_scope(self) -> dict[str, Any]:
        """What the cache key adds for a repeat (none for the first asking of a row, whatever its
        wording: its messages tell it apart, and its own wording's is the plain run's request)."""
        return {} if self.draw.repeat == 0 else {"repeat": self.draw.repeat, "seed_offset": self.seed_offset}


def answer_of(item: WorkItem, completion: Completion, *, cached: bool, log_prompts: bool) -> Answer:
    return Answer(
        id=item.row.id, status=Status.OK, output=completion.text, messages_hash=item.messages_hash, cached=cached,
        attempts=0 if cached else completion.attempts, latency_s=round(completion.latency_s, 4),
        prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens,
        reasoning_tokens=completion.reasoning_tokens, reasoning=completion.reasoning or think_text(completion.text),
        finish_reason=completion.finish_reason, endpoint=completion.endpoint,
        messages=item.messages if log_prompts else None, usage_note=completion.usage_note,
        exchange=completion.exchange, estimated_tokens=completion.estimated_tokens,
        price_share=completion.price_share if completion.price_share != 1.0 else None)


def prepare(task: Task, history: HistoryIndex, row: Row, system_prompt: str | None, draw: Draw = BASE,
            seed_offset: int = 0) -> WorkItem | Answer:
    """A row's request for one draw, or the error that keeps it from being asked (a turn without
    its history)."""
    try:
        messages = tuple(task.messages(row, history, system_prompt))
    except DataError as exc:
        return Answer.failed(row.id, str(exc))
    tools = task.tool_spec(row)
    digest = request_digest(messages, tools.tools, tools.policy) if tools else request_digest(messages)
    return WorkItem(task, row, messages, digest, tools=tools, draw=draw, seed_offset=seed_offset)


@dataclass
class Drawing:
    """A task's rows as one draw asks them: the rows (reworded under another wording) and their
    dialogue histories, made once per draw."""

    run: TaskRun
    draw: Draw
    rows: Sequence[Row] = field(init=False)
    history: HistoryIndex = field(init=False)

    def __post_init__(self) -> None:
        wordings, wording = self.run.wordings, self.draw.wording
        if wordings is None or wording is None:
            self.rows = self.run.data.rows
            self.history = HistoryIndex(self.run.data.shots)
            return
        self.rows = reworded_rows(wordings, self.run.data.rows, wording)  # a row whose group lacks it: left out
        self.history = HistoryIndex(reworded_rows(wordings, self.run.data.shots, wording))


def answered_before(run: TaskRun, existing: dict[int, Answer], system_prompt: str | None,
                    draw: Draw = BASE) -> set[int]:
    """Ids of the rows answered in a folder before, in this draw, for the same messages: not asked
    again."""
    drawing = Drawing(run, draw)
    done = set()
    for row in drawing.rows:
        previous = existing.get(row.id)
        if previous is None or not previous.ok:
            continue
        prepared = prepare(run.task, drawing.history, row, system_prompt, draw)
        if isinstance(prepared, WorkItem) and prepared.messages_hash == previous.messages_hash:
            done.add(row.id)
    return done


def askings(run: TaskRun, asking: Asking) -> int:
    """How many times the run asks the task's rows, over all its draws."""
    if run.wordings is None or not asking.drawn:
        return len(run.data.rows) * len(asking.draws)
    return sum(len(Drawing(run, draw).rows) for draw in asking.draws)
