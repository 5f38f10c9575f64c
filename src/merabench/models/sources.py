"""The model sources `--model` names, in one table: where answers come from, how the flag spells
each, the line the help and docs/cli.md give it, and what it needs installed. The CLI's help, the
refusal of an unknown `--model` and docs/cli.md are made from this table, so a new source is a
row here.

Two kinds: a backend (`openai:<model>`, `hf:<path>`: models/__init__.py `make_backend` builds it)
and a baseline, which needs no model: it answers from the task and the row (the runner asks it
directly and never caches it). A baseline seeded per row gives the same answers on a rerun."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from merabench.errors import ConfigError
from merabench.rows.row import Row


class AnswersRows(Protocol):
    """What a baseline needs of a task (tasks/base.py's Task has it): its stock answers."""

    @property
    def name(self) -> str: ...  # read-only: a Task's is a class variable

    def reference_answer(self, row: Row) -> str: ...

    def copy_answer(self, row: Row) -> str: ...

    def random_answer(self, row: Row, rng: random.Random) -> str: ...


#: a baseline's answer to a row of a task, given a generator seeded for that row
Answering = Callable[[AnswersRows, Row, random.Random], str]


@dataclass(frozen=True)
class ModelSource:
    name: str                          # a baseline's whole --model value; a backend's prefix before ':'
    spelling: str                      # how --model names it: "openai:<model>", "reference"
    help: str                          # what it is, in a few words
    install: str | None = None         # what it needs beyond merabench's own dependencies
    answer: Answering | None = None    # a baseline's answer; None for a backend

    @property
    def is_baseline(self) -> bool:
        return self.answer is not None


SOURCES: tuple[ModelSource, ...] = (
    ModelSource("openai", "openai:<model>", "any OpenAI-compatible endpoint (--base-url, or --serve)"),
    ModelSource("hf", "hf:<path>", "a local transformers model (a folder, a hub id or a GGUF file)",
                install="pip install 'merabench[hf]'"),
    ModelSource("reference", "reference", "the gold answer (a scorer's ceiling: 1.0)",
                answer=lambda task, row, rng: task.reference_answer(row)),
    ModelSource("copy", "copy", "a fixed answer: SAGE's source unchanged, a well-formed wrong one elsewhere",
                answer=lambda task, row, rng: task.copy_answer(row)),
    ModelSource("random", "random", "a random answer seeded per row (--seed)",
                answer=lambda task, row, rng: task.random_answer(row, rng)),
)


def baselines() -> tuple[str, ...]:
    return tuple(s.name for s in SOURCES if s.is_baseline)


def is_baseline(spec: str) -> bool:
    return spec in baselines()


def model_help() -> str:
    """The --model option's help: every source's spelling."""
    backends = [s.spelling for s in SOURCES if not s.is_baseline]
    return f"{', '.join(backends)}, or a baseline: {', '.join(baselines())}"


def source_of(spec: str) -> ModelSource:
    """The source a --model value names, or one line naming every one there is."""
    kind, colon, model = spec.partition(":")
    for source in SOURCES:
        if (source.name == spec and source.is_baseline) or (colon and model and source.name == kind
                                                            and not source.is_baseline):
            return source
    raise ConfigError(f"unknown model '{spec}': use {model_help()}")


def baseline_answer(kind: str, task: AnswersRows, row: Row, seed: int | None = None) -> str:
    source = source_of(kind)
    if source.answer is None:
        raise ConfigError(f"'{kind}' is not a baseline; the baselines: {', '.join(baselines())}")
    return source.answer(task, row, random.Random(f"{0 if seed is None else seed}:{task.name}:{row.id}"))
