"""A task's prompt wordings, and a row asked under another than the one MERA assigned it
(`run --wordings all`).

MERA gives each question one of several wordings of its instruction: SAGE's five prompts,
GorillaHard's five tones (meta.wording 0-4), RussianRegions' five variants of each question type
(the instruction with its introduction, task formulation and format description, which live in
the row's inputs). A wording is read off the data itself: the distinct instructions (and, where a
task has them, the inputs that belong to the wording), within the rows a wording can be swapped
between (RussianRegions: one question type). Their order is the task's own index where it has one
(GorillaHard's meta.wording), else first appearance in the rows and shots as loaded, before any
--limit, so wording 2 is the same prompt in every run of the same data.

A row asked under wording w keeps everything but the wording: its question, its reference, its
id; only the instruction (and the wording's inputs) change, and a dialogue's earlier turns are
asked in the same wording as its evaluated turn.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from merabench.rows.row import Row
from merabench.tasks.base import Task

WordingChoice = Literal["assigned", "all"]


@dataclass(frozen=True)
class Wording:
    """One wording: its instruction and the inputs that belong to it."""

    instruction: str
    inputs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Wordings:
    """A task's wordings, listed per group of rows that can take each other's (None: one group)."""

    task: Task
    groups: Mapping[Hashable, tuple[Wording, ...]]

    @property
    def count(self) -> int:
        """The most wordings a group has: the draws a row is asked in, at most."""
        return max((len(w) for w in self.groups.values()), default=0)

    def of(self, row: Row) -> Wording:
        return wording_of(self.task, row)

    def index(self, row: Row) -> int | None:
        """The index of the wording the row was assigned (None: not among the task's)."""
        listed = self.groups.get(self.task.wording_group(row), ())
        own = self.of(row)
        return listed.index(own) if own in listed else None

    def reworded(self, row: Row, index: int) -> Row | None:
        """The row under wording `index` of its group (itself when that is its own); None when its
        group has no such wording."""
        listed = self.groups.get(self.task.wording_group(row), ())
        if index >= len(listed):
            return None
        wording = listed[index]
        if wording == self.of(row):
            return row
        meta = {**row.meta, **({"wording": index} if self.task.wording_index(row) is not None else {})}
        return replace(row, instruction=wording.instruction, inputs={**row.inputs, **dict(wording.inputs)}, meta=meta)


def wording_of(task: Task, row: Row) -> Wording:
    return Wording(row.instruction, tuple((name, row.inputs.get(name, "")) for name in task.wording_fields))


def task_wordings(task: Task, rows: Iterable[Row]) -> Wordings:
    """The wordings `rows` (a task's rows and shots) hold, per group, in the task's order."""
    found: dict[Hashable, dict[Wording, int | None]] = {}
    for row in rows:
        found.setdefault(task.wording_group(row), {}).setdefault(wording_of(task, row), task.wording_index(row))
    return Wordings(task, {group: _ordered(listed) for group, listed in found.items()})


def _ordered(listed: Mapping[Wording, int | None]) -> tuple[Wording, ...]:
    """By the task's own index where every wording has one (GorillaHard's 0-4), else as they came."""
    indices = {wording: i for wording, i in listed.items() if i is not None}
    if len(indices) == len(listed) and len(set(indices.values())) == len(indices):
        return tuple(sorted(indices, key=indices.__getitem__))
    return tuple(listed)


def reworded_rows(wordings: Wordings, rows: Sequence[Row], index: int) -> list[Row]:
    """The rows that have wording `index`, under it."""
    return [found for row in rows if (found := wordings.reworded(row, index)) is not None]
