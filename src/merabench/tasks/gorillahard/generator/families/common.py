"""The shared pieces of the families: the records, the validator's own readers and the question builder."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from merabench.tasks.gorillahard.generator.corpus import Corpus, CorpusFile
from merabench.tasks.gorillahard.generator.families import formats
from merabench.tasks.gorillahard.generator.model import Question

STATS = {"mean": "среднее значение", "median": "медиану", "sum": "сумму", "max": "максимум", "min": "минимум"}

REFUND_LIMIT = 5000


@dataclass(frozen=True)
class View:
    """A written row as the validator sees it."""

    question: str
    files: dict[str, str]
    reference: dict[str, Any]
    derivation: dict[str, Any]
    tools: tuple[str, ...] = ()  # the catalog's tools, under the library's names


@dataclass(frozen=True)
class Family:
    name: str
    lever: str
    difficulty: str
    count: int  # rows in a default set
    make: Callable[[random.Random, Corpus], Question]
    check: Callable[[View], list[str]]


def split_table(text: str) -> tuple[list[str], list[list[str]]]:
    return formats.table(text)


_DEFINITION = re.compile(r"^def (\w+)\(", re.M)


def defined_functions(text: str) -> list[str]:
    """The top-level functions a Python module defines, in the order of the file."""
    return _DEFINITION.findall(text)


def lines_with(text: str, needle: str) -> list[int]:
    return [n for n, line in enumerate(text.split("\n"), start=1) if needle in line]


def setting(text: str, key: str, separator: str = ":") -> str | None:
    """The live value of a key: by its path in YAML (`:`; a bare key is a top-level one), by its
    last assignment in .env and INI text (`=`)."""
    return formats.yaml_value(text, key) if separator == ":" else formats.assignment(text, key)


def only(view: View) -> tuple[str, str]:
    """The file a one-file question is about (path, text)."""
    return next(iter(view.files.items()))


def ended(text: str) -> str:
    """The text as a finished sentence, so that another may follow (a terse request has no stop;
    one ending in a quotation gets its stop after it; one ending in a finished sentence in
    brackets, "(… тот, где …)", has its stop inside them)."""
    text = text.rstrip()
    return text if text[-1:] in ".?!" or text[-2:] in (".)", "?)", "!)") else f"{text}."


_NUMBER = re.compile(r"\b(\d+)\b")


def number_in(question: str, nth: int = 0) -> int:
    """The question's nth whole number (a size, a count of lines), or -1 when it states none."""
    found = _NUMBER.findall(question)
    return int(found[nth]) if len(found) > nth else -1


def matched(pattern: str, question: str) -> str:
    """The first match of `pattern` in the question (a value the row's phrasing shows), or a
    ValueError: a row not as made."""
    found = re.search(pattern, question)
    if found is None:
        raise ValueError(f"no {pattern!r} in the question")
    return found.group()


def problems(*pairs: tuple[bool, str]) -> list[str]:
    return [message for ok, message in pairs if not ok]


def expect(view: View, reference: dict[str, Any]) -> list[str]:
    return problems((view.reference == reference, f"expected {reference}"))


def phrased(rng: random.Random, question: str | Sequence[str]) -> str:
    """The question, or one of its phrasings (by different speakers: terse, polite, chatty)."""
    return question if isinstance(question, str) else rng.choice(list(question))


def build_question(
    family: str,
    lever: str,
    tier: str,
    question: str,
    files: tuple[CorpusFile, ...],
    reference: dict,
    twin: str,
    **extra: Any,
) -> Question:
    return Question(family, lever, tier, question, tuple(f.file for f in files), reference, twin, **extra)

