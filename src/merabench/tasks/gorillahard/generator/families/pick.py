"""Which of two files a question means: two files of one kind are attached, and the question
says how to tell them apart by what they hold, counted or read across both (the list with more
hosts, the log with fewer ERROR records, the Dockerfile built from a Go image), never by a path
or a file name.

This is what makes a grounded request the card's T4 ("counting across two files"): reading the
value off the wrong file gives a well-formed, wrong answer. The generator measures a file by what
is known about it (its facts); the validator counts again from the text alone.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from merabench.tasks.gorillahard.generator.corpus import CorpusFile
from merabench.tasks.gorillahard.generator.families.common import ended, setting, split_table

# how a question says which of the two attached files it means, by what that file holds and never
# by its path or name ({which} is a kind's clause): before the request or after it, in many
# wordings, so that no frame opens or closes more than a few per cent of the questions
PREFIX_POINTERS = (
    "Из двух приложенных файлов нужен тот, {which}.",
    "Файла два, речь о том, {which}.",
    "Смотри файл, {which}.",
    "Бери тот из двух файлов, {which}.",
    "Интересует только файл, {which}.",
    "Вложений два; мне нужно то, {which}.",
    "Нас интересует файл, {which}, второй не трогай.",
    "Работаем с тем файлом, {which}.",
    "Оба файла похожи, но нужен тот, {which}.",
    "Речь про файл, {which}.",
    "Один из файлов лишний: нужен тот, {which}.",
    "Возьми файл, {which}.",
)
SUFFIX_POINTERS = (
    "Речь о файле, {which}.",
    "Только для того файла, {which}.",
    "(Из двух файлов — тот, {which}.)",
    "Имеется в виду файл, {which}.",
    "Второй файл не нужен: бери тот, {which}.",
    "Файл — тот, {which}.",
    "Это про тот из двух, {which}.",
    "Нужен файл, {which}, а не второй.",
    "Смотреть надо в тот файл, {which}.",
    "Не перепутай: файл тот, {which}.",
    "Вложения два, нужно то, {which}.",
    "Из приложенных нужен один — тот, {which}.",
)
_POINTER = re.compile("|".join(
    re.escape(frame).replace(re.escape("{which}"), r"[^.]+") for frame in (*PREFIX_POINTERS, *SUFFIX_POINTERS)))


@dataclass(frozen=True)
class Count:
    """Files told apart by a number: the one with more or the one with fewer."""

    measure: Callable[[CorpusFile], int]   # the generator's, from the file's facts
    recount: Callable[[str], int]          # the validator's, from the text
    more: tuple[str, ...]
    fewer: tuple[str, ...]

    def tells_apart(self, source: CorpusFile, other: CorpusFile) -> bool:
        return self.measure(source) != self.measure(other)

    def clause(self, rng: random.Random, source: CorpusFile, other: CorpusFile) -> str:
        return rng.choice(self.more if self.measure(source) > self.measure(other) else self.fewer)

    def chosen(self, question: str, texts: dict[str, str]) -> str | list[str]:
        """The path the question means, or what keeps it from meaning exactly one."""
        direction = [clause for clause in (*self.more, *self.fewer) if clause in question]
        if len(direction) != 1:
            return ["the question does not say how to choose between the two files"]
        counts = {path: self.recount(text) for path, text in texts.items()}
        if len(set(counts.values())) != len(counts):
            return [f"the two files tie: {counts}"]
        pick = max if direction[0] in self.more else min
        return pick(counts, key=counts.__getitem__)


@dataclass(frozen=True)
class Mark:
    """Files told apart by a name one holds and the other does not (a base image, a dependency)."""

    marks: Callable[[CorpusFile], set[str]]   # the generator's
    reread: Callable[[str], set[str]]         # the validator's
    clauses: tuple[str, ...]                  # each with {mark}

    def tells_apart(self, source: CorpusFile, other: CorpusFile) -> bool:
        return bool(self.marks(source) - self.marks(other))

    def clause(self, rng: random.Random, source: CorpusFile, other: CorpusFile) -> str:
        return rng.choice(self.clauses).format(mark=rng.choice(sorted(self.marks(source) - self.marks(other))))

    def chosen(self, question: str, texts: dict[str, str]) -> str | list[str]:
        holding = [path for path, text in texts.items()
                   if any(re.search(rf"(?<![\w-]){re.escape(m)}(?![\w-])", question) for m in self.reread(text))]
        return holding[0] if len(holding) == 1 else [f"{len(holding)} of the two files hold the named mark"]


def _count_lines(pattern: str) -> Callable[[str], int]:
    compiled = re.compile(pattern, re.M)
    return lambda text: len(compiled.findall(text))


def _int_setting(key: str, separator: str = ":") -> Callable[[str], int]:
    return lambda text: int(setting(text, key, separator) or -1)


def _table_rows(text: str) -> int:
    return len(split_table(text)[1])


def _more_fewer(noun: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """'where there are more X' and 'where there are fewer X', in two word orders."""
    return (f"где {noun} больше", f"в котором больше {noun}"), (f"где {noun} меньше", f"в котором меньше {noun}")


def _count(facts_key: str | Callable[[CorpusFile], int], recount: Callable[[str], int], noun: str = "",
           longer: tuple[str, str] = ("", "")) -> Count:
    """By a number of things (`noun`, in the genitive plural) or by length (`longer`: the clause
    for the longer file and for the shorter one)."""
    measure = facts_key if callable(facts_key) else (lambda f, k=facts_key: int(f.facts[k]))
    more, fewer = _more_fewer(noun) if noun else ((longer[0],), (longer[1],))
    return Count(measure, recount, more, fewer)


PICKS: dict[str, Count | Mark] = {
    "deploy_yaml": _count("replicas", _int_setting("replicas"), "реплик"),
    "service_json": _count("pool", lambda t: int(json.loads(t)["database"]["pool"]), "соединений в пуле базы"),
    "worker_ini": _count("prefetch", lambda t: int(setting(t.split("[queue]", 1)[1], "prefetch", "=") or -1),
                         "prefetch у очереди"),
    "hosts_txt": _count(lambda f: len(f.facts["hosts"]), _count_lines(r"^[a-z0-9-]+\.[a-z0-9.-]+$"), "хостов"),
    "ticket": _count("comments", _count_lines(r"^\*\*[^*]+\*\*, \d{4}-\d\d-\d\d:"), "комментариев в обсуждении"),
    "app_log": _count("errors", _count_lines(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ERROR\b"), "записей уровня ERROR"),
    "table": _count(lambda f: len(f.facts["rows"]), _table_rows, "строк данных"),
    "invoices": _count(lambda f: len(f.facts["items"]), _table_rows, "счетов"),
    "env": _count("variables", _count_lines(r"^[A-Z][A-Z0-9_]*="), "переменных"),
    "events_jsonl": _count("traces", _count_lines(r"^\{.*\"trace_id\""), "трасс"),
    "python": _count(lambda f: f.file.text.count("\n"), lambda t: len(t.splitlines()),
                     longer=("который длиннее (больше строк)", "который короче (меньше строк)")),
    "audio": _count("minutes", lambda t: int(re.search(r"(\d+) мин", t).group(1)),  # type: ignore[union-attr]
                    longer=("где запись длиннее", "где запись короче")),
    "dockerfile": Mark(lambda f: {f.facts["base"].split(":")[0]},
                       lambda t: {ln.split()[1].split(":")[0] for ln in t.splitlines() if ln.startswith("FROM ")},
                       ("где базовый образ — {mark}", "что собирается из образа {mark}")),
    "pom": Mark(lambda f: {artifact for artifact, _ in f.facts["deps"]},
                lambda t: set(re.findall(r"<dependency>\s*<artifactId>([^<]+)</artifactId>", t)),
                ("где среди зависимостей есть {mark}", "в котором подключён {mark}")),
}


def pointed(rng: random.Random, which: str, request: str) -> str:
    """The request with a sentence saying which file it means, before it or after it."""
    if rng.random() < 0.5:
        # after the sentence naming the file, a terse request's lowercase start is raised
        raised = request[0].upper() + request[1:] if "а" <= request[0] <= "я" else request
        return f"{rng.choice(PREFIX_POINTERS).format(which=which)} {raised}"
    return f"{ended(request)} {rng.choice(SUFFIX_POINTERS).format(which=which)}"


def request_of(question: str) -> str:
    """The question without the sentence that says which file it means (a mark such as an
    artifact's name is not the request's)."""
    return _POINTER.sub("", question, count=1).strip()
