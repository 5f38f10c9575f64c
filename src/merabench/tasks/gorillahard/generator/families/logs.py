"""Families over service logs: counting, windows around events, searches, recovery."""

from __future__ import annotations

import functools
import random
import re

from merabench.tasks.gorillahard.generator.corpus import LOG_EVENTS, Corpus, CorpusFile
from merabench.tasks.gorillahard.generator.families import formats
from merabench.tasks.gorillahard.generator.families.common import (
    View,
    build_question,
    expect,
    lines_with,
    only,
    problems,
)
from merabench.tasks.gorillahard.generator.model import Question, call
from merabench.tasks.gorillahard.generator.wording import surface
from merabench.tasks.gorillahard.generator.wording.numerals import count, ordinal


def log_with(corpus: Corpus, rng: random.Random, level: str) -> CorpusFile:
    """A service log holding records of the level (a quoted "ERROR" in a message is none)."""
    return rng.choice([f for f in corpus.by_kind["app_log"] if formats.level_count(f.file.text, level)])


def log_counted(corpus: Corpus, rng: random.Random, levels: tuple[str, ...]) -> CorpusFile:
    """A service log whose records of each of `levels` are the only lines holding the level's
    word: a count or a search by the bare word then means the level's records, whatever pattern a
    careful reader writes ("WARN", "[WARN]", "level=WARN")."""
    return rng.choice([f for f in corpus.by_kind["app_log"]
                       if all(formats.level_word_exact(f.file.text, level) for level in levels)])


# the levels a count may be of: each only where the level's records are the only lines holding its word
COUNTED_LEVELS = ("ERROR", "WARN", "INFO", "DEBUG")
_TIME = re.compile(r"(?<![\d:])(\d\d:\d\d:\d\d)(?![\d:])")
LEVEL_COUNT_PHRASINGS = (
    "Сколько строк журнала того же уровня, что и запись в {time}? Регистр букв важен.",
    "в {time} в логе что-то записалось — сколько всего строк с таким же уровнем? регистр учитывай",
    "Подскажите, пожалуйста, сколько в журнале строк с тем же уровнем, что у записи от {time}; регистр букв учитывайте.",
    "Посчитай строки журнала с тем уровнем, которым помечена запись в {time}. Регистр букв важен.",
)


@functools.lru_cache(maxsize=256)  # every row of the family reads the corpus's logs again
def timed_records(text: str) -> dict[str, tuple[int, str]]:
    """{time: (line, level)} of the records whose time of day (HH:MM:SS) no other line of the log
    holds: a question naming that time means that record and no other."""
    lines = text.split("\n")
    times = [_TIME.findall(line) for line in lines]
    seen: dict[str, int] = {}
    for found in times:
        for time in found:
            seen[time] = seen.get(time, 0) + 1
    levels = dict(formats.log_levels(text))
    return {found[0]: (n, levels[n]) for n, found in enumerate(times, start=1)
            if n in levels and len(found) == 1 and seen[found[0]] == 1}


def make_level_count(rng: random.Random, corpus: Corpus) -> Question:
    """The records of the level a record at a named time carries: which level that is, the file
    says (the question names none, so the count's pattern cannot be copied from it); the level
    drawn first, so no level is the safe guess."""
    level = rng.choice(COUNTED_LEVELS)
    logs = [(log, anchors) for log in corpus.by_kind["app_log"] if formats.level_word_exact(log.file.text, level)
            and (anchors := sorted(t for t, (_, written) in timed_records(log.file.text).items() if written == level))]
    log, anchors = rng.choice(logs)
    time = rng.choice(anchors)
    return build_question(
        "log_level_count",
        "scan",
        "T3_expert",
        rng.choice(LEVEL_COUNT_PHRASINGS).format(time=time),
        (log,),
        call("logs.count", path=log.file.path, pattern=level),
        "logs.grep",
        facts={"level": level, "time": time},
    )


def check_level_count(view: View) -> list[str]:
    """The record at the question's time, found by a scan for the time over every line, and the
    count of its level's records."""
    path, text = only(view)
    said = _TIME.findall(view.question)
    if len(said) != 1:
        return [f"the question names {len(said)} times of day, not one"]
    holding = [line for line in text.split("\n") if said[0] in line]
    if len(holding) != 1:
        return [f"{len(holding)} lines hold {said[0]}: the question would not mean one record"]
    level = re.search(r"(?:^\S+ \S+ |\] \[|level=)([A-Z]+)\b", holding[0])
    if level is None:
        return [f"the line at {said[0]} carries no level"]
    return problems((formats.level_word_exact(text, level.group(1)),
                     "other lines than the level's records hold its word")) + expect(
        view, call("logs.count", path=path, pattern=level.group(1)))


def event_log(rng: random.Random, corpus: Corpus) -> tuple[CorpusFile, str]:
    log = corpus.pick("app_log", rng)
    return log, rng.choice(log.facts["events"])


LOG_WINDOW_PHRASINGS = (  # a set uses a third of them (surface.py), as it does of NTH_PHRASINGS
    "Покажи {lines} до и после {first} {name} в журнале.",
    "Выведи из журнала {lines} до и {lines} после {first} {name}.",
    "Нужен контекст {first} {name}: покажи из журнала {lines} перед {pronoun} и после.",
    "Покажите, пожалуйста, {lines} до и после {first} {name} в журнале.",
    "Выдай из журнала окно вокруг {first} {name}: {lines} до и столько же после.",
    "Дайте из журнала {lines} до {first} {name} и {lines} после.",
    "Чтобы разобраться, покажи {lines} журнала до и после {first} {name}.",
    "Разверни контекст {first} {name} в журнале — {lines} перед {pronoun} и после.",
    "Достань из журнала {lines} до {first} {name} и столько же после.",
)
NTH_PHRASINGS = (
    "Покажи {lines} до и после {nth} по счёту {name} в журнале.",
    "Выведи из журнала {lines} до и {lines} после {nth} по счёту {name}.",
    "Нужен контекст {nth} по счёту {name}: покажи из журнала {lines} перед {pronoun} и после.",
    "Покажите, пожалуйста, {lines} до и после {nth} по счёту {name} в журнале.",
    "Выдай из журнала окно вокруг {nth} по счёту {name}: {lines} до и столько же после.",
    "Дайте из журнала {lines} до {nth} по счёту {name} и {lines} после.",
    "Чтобы разобраться, покажи {lines} журнала до и после {nth} по счёту {name}.",
    "Разверни контекст {nth} по счёту {name} в журнале — {lines} перед {pronoun} и после.",
    "Достань из журнала {lines} до {nth} по счёту {name} и столько же после.",
)


def window_question(phrasing: str, radius: int, event: str) -> str:
    """A log_window phrasing for `radius` lines around the first `event`: the numeral agrees with
    "строка", the ordinal and the pronoun with the event's noun."""
    _, name, gender = LOG_EVENTS[event]
    return phrasing.format(lines=count(radius, "строка", "accs"), first=ordinal("первый", gender, "gent"),
                           name=name, pronoun="ней" if gender == "femn" else "ним")


# the record a window is around, drawn per row: an event's first, its last, or its first after
# another event's first (the record the other event's trouble led to)
LAST_PHRASINGS = (
    "Покажи {lines} до и после {last} {name} в журнале.",
    "Нужен контекст {last} {name}: покажи из журнала {lines} перед {pronoun} и после.",
)
AFTER_PHRASINGS = (
    "Покажи {lines} до и после первого {name}, {which} случил{ending} уже после {other_first} {other}.",
    "Нужен контекст {first} {name}, {which} случил{ending} уже после {other_first} {other}: покажи из журнала "
    "{lines} перед {pronoun} и после.",
)
_WHICH = {"masc": ("который", "ся"), "femn": ("которая", "ась"), "neut": ("которое", "ось")}


def make_log_window(rng: random.Random, corpus: Corpus) -> Question:
    radius = rng.choice([2, 3, 5, 10])
    kind = rng.choice(("first", "first", "last", "after", "after"))
    while True:
        log, event = event_log(rng, corpus)
        hits = lines_with(log.file.text, log.facts["needles"][event])
        if kind == "first":
            line, facts = log.facts["first"][event], {}
            question = window_question(surface.choose(rng, LOG_WINDOW_PHRASINGS, "log_window"), radius, event)
            break
        _, name, gender = LOG_EVENTS[event]
        lines = count(radius, "строка", "accs")
        if kind == "last" and len(hits) >= 2:
            line, facts = hits[-1], {"occurrence": -1}
            question = rng.choice(LAST_PHRASINGS).format(lines=lines, last=ordinal("последний", gender, "gent"),
                                                         name=name, pronoun="ней" if gender == "femn" else "ним")
            break
        if kind == "after":
            others = [e for e in log.facts["events"] if e != event]
            if not others:
                continue
            other = rng.choice(others)
            since = lines_with(log.file.text, log.facts["needles"][other])[0]
            later = [h for h in hits if h > since]
            if not later or later[0] == hits[0]:
                continue  # the event's first record after the other's must not be its very first
            line, facts = later[0], {"after": log.facts["needles"][other]}
            _, other_name, other_gender = LOG_EVENTS[other]
            which, ending = _WHICH[gender]
            question = rng.choice(AFTER_PHRASINGS).format(
                lines=lines, name=name, which=which, ending=ending, other=other_name,
                other_first=ordinal("первый", other_gender, "gent"), first=ordinal("первый", gender, "gent"),
                pronoun="ней" if gender == "femn" else "ним")
            break
    return build_question(
        "log_window",
        "grounding",
        "T2_hard",
        question,
        (log,),
        call("logs.window", path=log.file.path, line=line, radius=radius),
        "logs.tail",
        facts={"needle": log.facts["needles"][event], "occurrence": 1, "radius": radius, **facts},
    )


def make_log_window_nth(rng: random.Random, corpus: Corpus) -> Question:
    for _ in range(50):
        log, event = event_log(rng, corpus)
        hits = lines_with(log.file.text, log.facts["needles"][event])
        if len(hits) >= 3:
            break
    occurrence = rng.randint(2, min(len(hits), 4))
    _, name, gender = LOG_EVENTS[event]
    nth = ordinal({2: "второй", 3: "третий", 4: "четвёртый"}[occurrence], gender, "gent")
    question = surface.choose(rng, NTH_PHRASINGS, "log_window_nth").format(
        lines=count(3, 'строка', 'accs'), nth=nth, name=name, pronoun="ней" if gender == "femn" else "ним")
    return build_question(
        "log_window_nth",
        "scan",
        "T3_expert",
        question,
        (log,),
        call("logs.window", path=log.file.path, line=hits[occurrence - 1], radius=3),
        "logs.tail",
        facts={"needle": log.facts["needles"][event], "occurrence": occurrence, "radius": 3},
    )


def check_log_window(view: View) -> list[str]:
    """The event's record the question means: its first (or its n-th, counted), its last, or its
    first after another event's first; what the question says is checked against the record kept."""
    path, text = only(view)
    d = view.derivation
    q = view.question.lower()
    hits = lines_with(text, d["needle"])
    if d.get("after"):
        since = lines_with(text, d["after"])
        hits = [h for h in hits if since and h > since[0]]
        occurrence = 1
    else:
        occurrence = d["occurrence"]
    if not hits or len(hits) < occurrence:
        return ["the event does not occur that often"]
    nth = {2: "втор", 3: "трет", 4: "четвёрт"}.get(occurrence)
    said = problems((("последн" in q) == (occurrence == -1), "the question says the last record otherwise"),
                    (nth is None or f"{nth}" in q and "по счёту" in q, "the question counts the record otherwise"),
                    (("уже после" in q) == bool(d.get("after")), "the question says an earlier event otherwise"))
    line = hits[-1] if occurrence == -1 else hits[occurrence - 1]
    return said + expect(view, call("logs.window", path=path, line=line, radius=d["radius"]))


# phrases of ordinary records (corpus._noise) a user may look for; a question takes one its log has
GREP_PHRASES = ("slow request", "gc pause", "answered 429", "token refreshed", "queued", "connections in use",
                "hit ratio")
GREP_QUESTIONS = ("Найди в журнале строки с текстом «{phrase}».", "Покажи строки журнала, где встречается «{phrase}».",
                  "выбери из лога записи с «{phrase}»", "Отфильтруй журнал по подстроке «{phrase}», пожалуйста.")


def make_grep_optional(rng: random.Random, corpus: Corpus) -> Question:
    log = corpus.pick("app_log", rng)
    if rng.random() < 0.5:
        return build_question(
            "log_grep_any_case",
            "optional",
            "T3_expert",
            "Найди в журнале все строки со словом info — в любом регистре.",
            (log,),
            call("logs.grep", path=log.file.path, pattern="info", ignore_case=True),
            "logs.count",
        )
    phrase = rng.choice([p for p in GREP_PHRASES if p in log.file.text] or ["INFO"])
    return build_question(
        "log_grep_exact",
        "optional",
        "T3_expert",
        rng.choice(GREP_QUESTIONS).format(phrase=phrase),
        (log,),
        call("logs.grep", path=log.file.path, pattern=phrase),
        "logs.count",
    )


def check_grep_optional(view: View) -> list[str]:
    path, text = only(view)
    if "любом регистре" in view.question:
        return expect(view, call("logs.grep", path=path, pattern="info", ignore_case=True))
    phrase = view.question.split("«", 1)[1].split("»", 1)[0]
    return problems((phrase in text, "the phrase is not in the log")) + expect(
        view, call("logs.grep", path=path, pattern=phrase))


RETRY_QUESTIONS = ("Повтори загрузку, которая упала в журнале.",
                   "В журнале импорта одна загрузка упала — скачай этот файл ещё раз.",
                   "перезапусти скачивание файла, на котором импорт споткнулся",
                   "Файл из журнала так и не скачался. Попробуй загрузить его снова.")


def make_retry_download(rng: random.Random, corpus: Corpus) -> Question:
    log = corpus.pick("fetch_log", rng)
    return build_question(
        "retry_failed_download",
        "recovery",
        "T3_expert",
        rng.choice(RETRY_QUESTIONS),
        (log,),
        call("http.download", url=log.facts["url"]),
        "http.get_json",
    )


def check_retry_download(view: View) -> list[str]:
    _, text = only(view)
    failed = [ln for ln in text.split("\n") if "failed to download" in ln]
    if len(failed) != 1:
        return ["the log must hold exactly one failed download"]
    return expect(view, call("http.download", url=failed[0].split("failed to download", 1)[1].split()[0]))
