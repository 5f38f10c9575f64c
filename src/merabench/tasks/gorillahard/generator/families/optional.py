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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from merabench.tasks.gorillahard.generator.corpus import Corpus, CorpusFile
from merabench.tasks.gorillahard.generator.families.common import (
    Family,
    View,
    build_question,
    defined_functions,
    ended,
    expect,
    matched,
    number_in,
    only,
    problems,
    split_table,
)
from merabench.tasks.gorillahard.generator.model import Question, call
from merabench.tasks.gorillahard.generator.wording.address import agreeing
from merabench.tasks.gorillahard.generator.wording.numerals import count


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


def _defined_and_named(question: str, text: str) -> str:
    """The one function the module defines that the question names."""
    named = [name for name in defined_functions(text)
             if re.search(rf"(?<!\w){name}(?!\w)", question)]
    if len(named) != 1:
        raise LookupError(f"the question names {len(named)} of the module's functions")
    return named[0]


def _one_function(argument: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """(draw, reread) for a call narrowed to one function the module defines, named in `argument`."""
    def draw(rng: random.Random, module: CorpusFile) -> tuple[dict[str, Any], dict[str, Any]]:
        name = rng.choice(module.facts["functions"])
        return {"fn": name}, {argument: name}

    return draw, lambda question, text: {argument: _defined_and_named(question, text)}


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
        lambda question, text: {"n": number_in(question)}),
    OptionalCall(
        "log_level_per_hour", "logs.errors_per_hour", "logs.count",
        ("Покажи, сколько {what} ({level}) было в журнале по каждому часу.", "{level} в логе по часам",
         "Хочу понять, в какие часы сыпалось больше всего {what} уровня {level}, — разложите журнал по часам.",
         "Разбей по часам записи уровня {level} из этого журнала."),
        _kind("app_log"),
        lambda rng, log: (lambda level: ({"level": level, "what": LEVELS[level]}, {"level": level}))(
            rng.choice(sorted(LEVELS))),
        lambda question, text: {"level": matched(r"\b(WARN|INFO|DEBUG)\b", question)}),
    OptionalCall(
        "code_run_tests", "code.run_tests", "code.lint",
        ("Запусти тесты этого модуля, но только те, что проверяют {fn}.", "прогони тесты модуля, тока по {fn}",
         "Я поправил {fn} — запусти, пожалуйста, тесты этой функции, остальные не нужны."),
        _kind("python"), *_one_function("match")),
    OptionalCall(
        "code_complexity", "code.complexity", "code.format",
        ("Оцени цикломатическую сложность функции {fn} в этом модуле.", "цикломатика {fn}?",
         "Ревьюер жалуется, что функция {fn} слишком запутанная, — посчитайте, пожалуйста, её сложность."),
        _kind("python"), *_one_function("function")),
    OptionalCall(
        "table_group_count", "table.group_count", "table.filter_eq",
        ("Сколько записей в таблице по {word}? Хватит первых {top} по числу записей.",
         "число строк по {word}, топ-{top}",
         "Посчитайте, пожалуйста, записи по {word}; нужны только первые {top} — самые частые."),
        _grouped_table,
        lambda rng, table: (lambda column, top: ({"word": _GROUPED[table.facts["schema"]][1], "top": top},
                                                 {"column": column, "top": top}))(
            _GROUPED[table.facts["schema"]][0], rng.choice([3, 5, 10])),
        lambda question, text: {"column": _group_column(text), "top": number_in(question)}),
]


# --- one more sentence asking for an optional argument, on a family that reads its values from the file ---
MISSING = object()


@dataclass(frozen=True)
class Narrowing:
    """An optional argument a question asks for in a sentence of its own (a compressed backup,
    only critical vulnerabilities, a dry run): the family's call is right only with it."""

    arg: str
    # (rng, the call's args, the question it follows) -> (value, sentence in the question's form of address)
    draw: Callable[[random.Random, dict[str, Any], str], tuple[Any, str]]
    read: Callable[[str], Any]  # the question -> the value it asks for, or MISSING


def stated(arg: str, said: Mapping[Any, tuple[str, ...]]) -> Narrowing:
    """A narrowing whose values each have their own sentences (by different speakers)."""
    def draw(rng: random.Random, args: dict[str, Any], question: str) -> tuple[Any, str]:
        value = rng.choice(list(said))
        return value, rng.choice(agreeing(said[value], question))

    def read(question: str) -> Any:
        asked = question.lower()  # a terse remark opens with a capital after another sentence
        found = [value for value, sentences in said.items() if any(s.lower() in asked for s in sentences)]
        return found[0] if len(found) == 1 else MISSING

    return Narrowing(arg, draw, read)


def _newer_patch(version: str, rng: random.Random) -> str:
    """The same release line a few patches on ("2.15.3" -> "2.15.5", "4.1.95.Final" -> "4.1.97.Final")."""
    return re.sub(r"\d+(?=(?:[.-][A-Za-z]+)?$)", lambda m: str(int(m.group()) + rng.randint(1, 3)), version)


def _upgrade_target() -> Narrowing:
    def draw(rng: random.Random, args: dict[str, Any], question: str) -> tuple[Any, str]:
        target = _newer_patch(args["version"], rng)
        return target, rng.choice((f"Обновляться будем до версии «{target}».", f"цель — версия «{target}»",
                                   f"Нам нужна именно версия «{target}», не последняя."))

    def read(question: str) -> Any:
        found = re.findall(r"верси[яюи] «([^»]+)»", question)
        return found[0] if len(found) == 1 else MISSING

    return Narrowing("target_version", draw, read)


SEVERITY = {"high": ("Интересуют только уязвимости уровня high и выше.", "тока high и выше",
                     "Покажите, пожалуйста, только серьёзные: high и critical."),
            "critical": ("Только критические уязвимости.", "только critical",
                         "Нас интересуют лишь уязвимости уровня critical.")}

NARROWINGS: dict[str, Narrowing] = {
    "set_retries": stated("backoff_ms", {ms: (f"Паузу между повторами поставь {ms} мс.", f"между попытками {ms} мс",
                                              f"Между попытками пусть выжидает {ms} мс, пожалуйста.")
                                         for ms in (200, 500, 1000, 1500)}),
    "cron_from_toml": stated("timezone", {
        "Europe/Moscow": ("Время в расписании — московское.", "время по мск", "Учтите: время указано по Москве."),
        "Asia/Yekaterinburg": ("Время в расписании — екатеринбургское.", "время по екб",
                               "Учтите: время указано по Екатеринбургу."),
        "Asia/Novosibirsk": ("Время в расписании — новосибирское.", "время по новосибу",
                             "Учтите: время указано по Новосибирску.")}),
    "k8s_status": stated("events", {True: ("Заодно покажи последние события.", "и события тоже",
                                           "Добавьте, пожалуйста, последние события развёртывания.")}),
    "k8s_rollback": stated("dry_run", {True: ("Сначала только покажи, что изменится, ничего не применяя.",
                                              "пока вхолостую, без применения",
                                              "Для начала — пробный прогон, без настоящего отката.")}),
    "k8s_set_image": stated("wait", {True: ("И дождись, пока выкатится.", "жди конца выкатки",
                                            "Дождитесь, пожалуйста, окончания выкатки.",
                                            "Выкатку дождитесь до конца.")}),  # after "обновите, пожалуйста"
    "sql_count_rows": stated("approximate", {True: ("Хватит оценки по статистике, точный подсчёт не нужен.",
                                                    "примерно, точно не надо", "Приблизительной цифры достаточно.")}),
    "sql_backup": stated("compress", {True: ("Снимок сожми.", "сжатый", "Снимок, пожалуйста, сожмите: места мало.")}),
    "sql_vacuum": stated("full", {True: ("Нужна полная очистка, VACUUM FULL.", "полный vacuum",
                                         "Сделайте полную очистку, с перезаписью таблицы.")}),
    "pom_vuln_check": stated("min_severity", SEVERITY),
    "image_scan": stated("min_severity", SEVERITY),
    "pom_upgrade_plan": _upgrade_target(),
    "pom_license": stated("transitive", {True: ("Вместе с лицензиями транзитивных зависимостей.", "и транзитивные тоже",
                                                "Посмотрите заодно лицензии всего, что подтягивается транзитивно.")}),
    "image_tags": stated("limit", {n: (f"Нужны только последние {n}.", f"последние {n}, не больше",
                                       f"Хватит последних {n}, пожалуйста.") for n in (5, 10, 20)}),
    "ticket_close": stated("resolution", {"duplicate": ("Резолюция — дубликат.", "это дубль",
                                                        "Это дубликат другой задачи, так и отметьте."),
                                          "wont_fix": ("Резолюция — «не будет исправлено».", "чинить не будем",
                                                       "Исправлять не будем, закройте с такой резолюцией.")}),
    "ticket_assign_author": stated("notify", {False: ("Уведомление не отправляй.", "без уведомления",
                                                      "Только не уведомляйте его, пожалуйста.")}),
}


def narrowed(family: Family, narrowing: Narrowing) -> Family:
    """The family with one more sentence asking for an optional argument, and that argument in
    its call; the check reads the argument back from the question, the rest as the family does."""
    def make(rng: random.Random, corpus: Corpus) -> Question:
        question = family.make(rng, corpus)
        value, sentence = narrowing.draw(rng, question.reference["args"], question.question)
        return replace(question, question=f"{ended(question.question)} {sentence[0].upper()}{sentence[1:]}",
                       reference={**question.reference, "args": {**question.reference["args"], narrowing.arg: value}})

    def check(view: View) -> list[str]:
        asked = narrowing.read(view.question)
        args = dict(view.reference.get("args", {}))
        given = args.pop(narrowing.arg, MISSING)
        return problems((asked is not MISSING, f"the question asks for no {narrowing.arg}"),
                        (given == asked, f"expected {narrowing.arg}={asked!r}, as the question asks")) + family.check(
            replace(view, reference={**view.reference, "args": args}))

    return replace(family, make=make, check=check)
