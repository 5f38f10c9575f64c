"""Single calls on the attached file whose answer needs an optional argument: the question asks
for something narrower than the tool's default (the first 30 lines rather than 10, warnings
rather than errors, the tests of one function rather than all), so a call that leaves the
argument out runs but answers another question. The card's T3 ("optional arguments").

Each family draws the narrowing from the file (a function it defines, a column it has) or states
it as a number or a level; the check reads it back from the question and the file alone.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from merabench.tasks.gorillahard.generator.corpus import Corpus, CorpusFile
from merabench.tasks.gorillahard.generator.families.common import (
    View,
    build_question,
    expect,
    only,
    split_table,
)
from merabench.tasks.gorillahard.generator.model import Question, call
from merabench.tasks.gorillahard.generator.numerals import count


@dataclass(frozen=True)
class OptionalCall:
    name: str
    tool: str
    twin: str
    phrasings: tuple[str, ...]
    pick: Callable[[random.Random, Corpus], CorpusFile]
    # (rng, file) -> (the values the phrasing shows, the arguments besides the path)
    draw: Callable[[random.Random, CorpusFile], tuple[dict[str, Any], dict[str, Any]]]
    reread: Callable[[str, str], dict[str, Any]]  # (question, file text) -> the arguments besides the path

    def make(self, rng: random.Random, corpus: Corpus) -> Question:
        source = self.pick(rng, corpus)
        shown, args = self.draw(rng, source)
        return build_question(self.name, "optional", "T3_expert", rng.choice(self.phrasings).format(**shown),
                              (source,), call(self.tool, path=source.file.path, **args), self.twin)

    def check(self, view: View) -> list[str]:
        path, text = only(view)
        try:
            args = self.reread(view.question, text)
        except (LookupError, ValueError) as error:
            return [f"cannot read the narrowing back: {error}"]
        return expect(view, call(self.tool, path=path, **args))


def _kind(kind: str) -> Callable[[random.Random, Corpus], CorpusFile]:
    return lambda rng, corpus: corpus.pick(kind, rng)


def _first_number(question: str) -> int:
    return int(re.search(r"\d+", question).group())  # type: ignore[union-attr]


def _defined_and_named(question: str, text: str) -> str:
    """The one function the module defines that the question names."""
    named = [name for name in re.findall(r"^def (\w+)\(", text, re.M)
             if re.search(rf"(?<!\w){name}(?!\w)", question)]
    if len(named) != 1:
        raise LookupError(f"the question names {len(named)} of the module's functions")
    return named[0]


def _function(rng: random.Random, module: CorpusFile) -> str:
    return rng.choice(module.facts["functions"])


LEVELS = {"WARN": "предупреждений", "INFO": "информационных записей", "DEBUG": "отладочных записей"}

_GROUPED = {"sales": ("city", "каждому городу"), "weather": ("station", "каждой метеостанции")}


def _grouped_table(rng: random.Random, corpus: Corpus) -> CorpusFile:
    return rng.choice([f for f in corpus.by_kind["table"] if f.facts["schema"] in _GROUPED])


def _group_column(text: str) -> str:
    header, _ = split_table(text)
    found = [column for column, _ in _GROUPED.values() if column in header]
    if len(found) != 1:
        raise LookupError(f"the table has {len(found)} columns to group by")
    return found[0]


OPTIONAL_CALLS = [
    OptionalCall(
        "log_head", "logs.head", "logs.tail",
        ("Покажи первые {lines} журнала.", "первые {lines} лога",
         "Выведите, пожалуйста, начало журнала — первые {lines}.",
         "Глянь, с чего начинается этот лог: нужны первые {lines}."),
        _kind("app_log"),
        lambda rng, log: (lambda n: ({"lines": count(n, "строка", "accs")}, {"n": n}))(rng.choice([15, 20, 30, 50])),
        lambda question, text: {"n": _first_number(question)}),
    OptionalCall(
        "log_level_per_hour", "logs.errors_per_hour", "logs.count",
        ("Покажи, сколько {what} ({level}) было в журнале по каждому часу.", "{level} в логе по часам",
         "Хочу понять, в какие часы сыпалось больше всего {what} уровня {level}, — разложите журнал по часам.",
         "Разбей по часам записи уровня {level} из этого журнала."),
        _kind("app_log"),
        lambda rng, log: (lambda level: ({"level": level, "what": LEVELS[level]}, {"level": level}))(
            rng.choice(sorted(LEVELS))),
        lambda question, text: {"level": re.search(r"\b(WARN|INFO|DEBUG)\b", question).group()}),  # type: ignore[union-attr]
    OptionalCall(
        "code_run_tests", "code.run_tests", "code.lint",
        ("Запусти тесты этого модуля, но только те, что проверяют {fn}.", "прогони тесты модуля, тока по {fn}",
         "Я поправил {fn} — запусти, пожалуйста, тесты этой функции, остальные не нужны."),
        _kind("python"),
        lambda rng, module: (lambda fn: ({"fn": fn}, {"match": fn}))(_function(rng, module)),
        lambda question, text: {"match": _defined_and_named(question, text)}),
    OptionalCall(
        "code_complexity", "code.complexity", "code.format",
        ("Оцени цикломатическую сложность функции {fn} в этом модуле.", "цикломатика {fn}?",
         "Ревьюер жалуется, что функция {fn} слишком запутанная, — посчитайте, пожалуйста, её сложность."),
        _kind("python"),
        lambda rng, module: (lambda fn: ({"fn": fn}, {"function": fn}))(_function(rng, module)),
        lambda question, text: {"function": _defined_and_named(question, text)}),
    OptionalCall(
        "table_group_count", "table.group_count", "table.filter_eq",
        ("Сколько записей в таблице по {word}? Хватит первых {top} по числу записей.",
         "число строк по {word}, топ-{top}",
         "Посчитайте, пожалуйста, записи по {word}; из значений оставьте первые {top} по частоте."),
        _grouped_table,
        lambda rng, table: (lambda column, top: ({"word": _GROUPED[table.facts["schema"]][1], "top": top},
                                                 {"column": column, "top": top}))(
            _GROUPED[table.facts["schema"]][0], rng.choice([3, 5, 10])),
        lambda question, text: {"column": _group_column(text), "top": _first_number(question)}),
]
