"""The sentence of a question that picks one of two attached files, and the file it picks.

`pick_clause` finds the sentence: it names both files, or says which one by what it holds ("нужен
тот, где реплик больше"). `pick_by_content` applies it. First come the red team's rules for the
kinds of clause a reader of the dev set (seed 23) saw there (`redteam_clause_rules`). A clause no
rule decides goes to the general criteria here: a thing one file holds, a month, a topic, a
threshold, the newer or older file, more or less of a measure or a word.
"""

from __future__ import annotations

import re
from typing import Any

from redteam import files as rf
from redteam.clause_rules import MONTHS, dependencies, live_text, pick

_PATH_IN = re.compile(r"(?:[\w.-]+/)+[\w.-]+")
_PICKING = re.compile(r"больше|меньше|длиннее|короче|\b(?:тот|том|то|та|файл\w*|вложени\w*)\W+"
                     r"(?:где|в котором|в которой|у которого|которая|который|что|из)\b|подключ|собира|среди зависимост")
_POINTING = re.compile(r"\b(?:тот|том|то|та|файл\w*|вложени\w*)\W+(?:где|в котором|в которой|которая|который|что)\b")


def pick_clause(prompt: Any) -> str:
    """The sentence of a question that picks one of two files: it names both, or says which one by
    what it holds ("нужен тот, где реплик больше")."""
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", prompt.question) if s.strip()]
    for sentence in sentences:
        if sum(p in sentence for p in prompt.files) >= 2:
            return sentence
    if len(prompt.files) >= 2:  # a sentence pointing at a file ("тот, где ...") before any "больше"
        for pattern in (_POINTING, _PICKING):
            for sentence in sentences:
                if pattern.search(sentence):
                    return sentence
    return ""


def pick_by_content(prompt: Any, candidates: list[str]) -> list[str]:
    """Of the files a question lists, the one it picks by what they hold: a thing one of them holds
    ("в котором подключён postgresql", "что собирается из образа golang") or more or less of
    something ("где хостов больше")."""
    q = prompt.question
    if len(candidates) < 2:
        return candidates
    clause = pick_clause(prompt) or q
    if len(candidates) == 2:  # a clause of a kind the dev set showed
        chosen = pick(clause, {p: prompt.files[p] for p in candidates})
        if chosen is not None:
            return [chosen]
    if re.search(r"образ|подключ|есть|собира|упомина|содерж", clause):
        bare = _PATH_IN.sub(" ", clause)
        for word in re.findall(r"[a-z][a-z0-9.-]*[a-z0-9]", bare):
            holding = [p for p in candidates
                       if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", _held(prompt.files[p], p))]
            if len(holding) == 1:
                return holding
    told = _criteria(prompt, candidates, clause)
    if told:
        return told
    dated = re.search(r"(нове|свеж|поздн|позже)|(старе|ранн|раньш|давн)", clause)
    if dated:  # the newer or older file: by the latest date it holds
        stamps = [(p, max(re.findall(r"\b(20\d\d-\d\d-\d\d)", prompt.files[p]), default="")) for p in candidates]
        if all(stamp for _, stamp in stamps) and len({stamp for _, stamp in stamps}) == len(stamps):
            chosen = (max if dated.group(1) else min)(stamps, key=lambda ps: ps[1])
            return [chosen[0]]
    m = re.search(r"(больше|меньше|длиннее|короче|выше|ниже|чаще|реже)", clause)
    if not m:
        return candidates
    lowest = m.group(1) in ("меньше", "короче", "ниже", "реже")
    if "короче" in clause or "длиннее" in clause:
        lowest = "короче" in clause
    measured = [(p, rf.measure(prompt.files[p], p, clause)) for p in candidates]
    known = [(p, v) for p, v in measured if v is not None]
    if len(known) < 2 or len({v for _, v in known}) == 1:  # no rule knows it, or it does not tell them apart
        known = _counted(prompt, candidates, clause) or known
    if len(known) < 2:
        return candidates
    return [rf.argmax(known, lowest=lowest)]


# --- general criteria ------------------------------------------------------------------------

def _held(text: str, path: str) -> str:
    """What a file holds that a question can pick it by: a pom's dependencies, else its live text."""
    if rf.extension(path) == "xml" and "<dependencies>" in text:
        return " ".join(name for name, _ in dependencies(text))
    if rf.extension(path) == "dockerfile":  # what it builds from
        return " ".join(re.findall(r"^FROM\s+(\S+)", text, re.M))
    return live_text(text)


_NOT_MEASURES = {"где", "котор", "больш", "меньш", "файл", "нужен", "нужна", "тот", "том", "тем", "того", "речь",
                 "смотр", "возьм", "бери", "имеет", "виду", "работ", "интер", "только", "один", "лишн", "втор",
                 "трога", "прилож", "вложен", "двух", "оба", "похож"}


def _counted(prompt: Any, candidates: list[str], clause: str) -> list[tuple[str, float]]:
    """More or less of something no rule knows: a key of that name holding a number in each file
    ("prefetch"), else how many lines mention the word's stem ("ERROR", «комментари»); the first
    word the files differ on."""
    words = [w for w in re.findall(r"[A-Za-z_][\w.-]{2,}|[а-яё]{4,}", _PATH_IN.sub(" ", clause))
             if w.lower()[:5] not in _NOT_MEASURES and w.lower()[:4] not in _NOT_MEASURES]
    for word in words:
        keys = [key for stem, key in _KEYS_OF if word.lower().startswith(stem)] or [word]
        for key in keys:  # a number under the key the word means ("повторов": retries), units dropped
            keyed = [(p, _leading_number(rf.key_value(prompt.files[p], key) or "")) for p in candidates]
            if all(v is not None for _, v in keyed) and len({v for _, v in keyed}) > 1:
                return [(p, float(v)) for p, v in keyed if v is not None]
        if re.match(r"[A-Za-z_]", word):
            if all(v is not None for _, v in keyed) and len({v for _, v in keyed}) > 1:
                return [(p, float(v)) for p, v in keyed if v is not None]
            stem = word
        else:
            stem = word.lower()[:6]
        counts = [(p, float(sum(stem in line.lower() if stem.islower() else stem in line
                                for line in rf.live_lines(prompt.files[p])))) for p in candidates]
        if len({v for _, v in counts}) > 1 and any(v for _, v in counts):
            return counts
    return []


def _said(text: str, author_only: bool) -> str:
    """A file's live text, or only its author line when the question names who wrote it."""
    author = re.search(r"^(?:Автор|Author|Reporter)\s*:.*$", text, re.M | re.I) if author_only else None
    return author.group(0) if author else live_text(text)


_KNOWN_PORTS = {"mysql": "3306", "postgresql": "5432", "postgres": "5432", "redis": "6379", "mongodb": "27017"}
_KEYS_OF = (("повтор", "retries"), ("памят", "memory"), ("реплик", "replicas"), ("таймаут", "timeout_ms"),
            ("процессор", "cpu"), ("соединени", "pool"), ("воркер", "workers"), ("порт", "port"))


def _leading_number(value: str) -> float | None:
    m = re.match(r"\s*(\d+(?:[.,]\d+)?)", value)
    return rf.number(m.group(1)) if m else None


# what a table (its path or header) is about, and the functions a module defines, as a question says them
_TABLE_TOPICS = {"продаж": "sales", "погод": "weather", "замер": "weather", "влажн": "weather", "сотрудник": "staff",
                 "персонал": "staff", "зарплат": "staff", "сервер": "servers", "счет": "invoices", "счёт": "invoices",
                 "заказ": "orders", "спор": "disputes"}
_FUNCTION_CUES = ((r"повтор|неудачн\w* вызов", "retry"), (r"разбор\w* дат|разбира\w* дат|дат\w* из строк", "parse_date"),
                  (r"заголов", "build_headers"), (r"порци|кусочк|пачк", "chunked"),
                  (r"сохраня\w* отч|отч\w* в файл", "save_report"), (r"чат|уведомл", "notify"), (r"группир", "summarize"),
                  (r"постранич|страниц", "paginate"), (r"копейк|цент", "to_cents"),
                  (r"загруж\w* (?:настро|конфиг)|чита\w* конфиг", "load_config"),
                  (r"разбор\w* (?:тела|ответа|payload)", "parse_payload"))
_EVENT_MARKS = ((r"внешн\w* сервис|таймаут", r"timeout"), (r"памят", r"out of memory|OOM|MemoryError"),
                (r"загрузк\w* (?:не удал|упал)|не скачал", r"failed to download"),
                (r"стек|трассировк", r"Traceback"), (r"диск", r"disk"))


def _seconds(text: str) -> float | None:
    """A module's time-out in seconds: its live `timeout` assignment (`..._MS` in milliseconds)."""
    for line in rf.live_lines(text):
        m = re.search(r"\b(\w*time_?out\w*)\s*[=:]\s*([\d_.]+)", line, re.I)
        if m:
            value = rf.number(m.group(2).replace("_", ""))
            return value / 1000 if value is not None and "ms" in m.group(1).lower() else value
    return None


def _criteria(prompt: Any, candidates: list[str], clause: str) -> list[str]:
    """Criteria a question picks a file by that a count of one word does not decide: a month its
    dates fall in, what its table is about, a threshold in the question's own units, functions."""
    c = clause.lower()
    texts = {p: prompt.files[p] for p in candidates}

    def one(fits: list[str]) -> list[str]:
        return fits if len(fits) == 1 else []
    lacking = bool(re.search(r"\bнет\b|\bбез\b|\bне (?:подключ|упомина|указ|помеча|встреча)", c))
    named = re.findall(r"[a-z][\w.-]*[a-z0-9]|[A-Za-z]+SQL|MySQL|(?<!^)(?<![.!?] )\b[А-ЯЁ][а-яё]{3,}", _PATH_IN.sub(" ", clause))
    authored = bool(re.search(r"автор|завёл|завел|завела|создал", c))
    for token in named:  # a value, a dependency or a person's name one file holds and the other not
        stem = token[:-1] if re.fullmatch(r"[А-ЯЁ][а-яё]+[аи]", token) else token
        stem = _KNOWN_PORTS.get(stem.lower(), stem)  # a database said by name, held as its port

        person = authored and stem[:1].isupper() and not stem.isascii()
        holding = [p for p in candidates if re.search(rf"(?<![\w-]){re.escape(stem)}", _said(texts[p], person), re.I)]
        if len(holding) == 1:
            return holding if not lacking else [p for p in candidates if p not in holding][:1]
    for n, month in enumerate(MONTHS, 1):
        if re.search(rf"\bза {month}", c):
            return one([p for p in candidates if re.search(rf"\b20\d\d-{n:02d}(?:-\d\d)?\b", texts[p])])
    for word, topic in _TABLE_TOPICS.items():
        if word in c:
            return one([p for p in candidates if topic in p.lower() or topic[:-1] in " ".join(
                (rf.table(texts[p], p) or rf.Table((), ())).header).lower()])
    limit = re.search(r"(больше|дольше|длиннее|свыше|превыша\w*|не дотягивает до|меньше|короче|короче чем)\s+(\d+)\s*(мин|сек)", c)
    if limit:
        n, over = float(limit.group(2)), limit.group(1) in ("больше", "дольше", "длиннее", "свыше") or "превыша" in limit.group(1)
        values = {p: (rf.measure(texts[p], p, "запись") if limit.group(3) == "мин" else _seconds(texts[p])) for p in candidates}
        return one([p for p, v in values.items() if v is not None and (v > n if over else v < n)])
    negated = bool(re.search(r"\bнет\b|\bни\b|\bне (?:убива|было|случ|встреч|подв)|без ", c))
    for cue, function in _FUNCTION_CUES:
        if re.search(cue, c) and all(rf.extension(p) == "py" for p in candidates):
            return one([p for p in candidates
                        if bool(re.search(rf"^\s*def {function}\(", live_text(texts[p]), re.M)) != negated])
    for cue, event in _EVENT_MARKS:
        if re.search(cue, c) and all(rf.extension(p) == "log" for p in candidates):
            return one([p for p in candidates if bool(re.search(event, texts[p])) != negated])
    window = re.search(r"\b(до|после) (\d\d:\d\d)", c)
    level = re.search(r"\b(ERROR|WARN|INFO|DEBUG)\b", clause)
    if window and level and re.search(r"больше|меньше|чаще|реже", c):
        def counted(text: str) -> float:
            times = [(m.group(1), line) for line in text.splitlines() if (m := re.search(r"\b(\d\d:\d\d)(?::\d\d)?\b", line))]
            return float(sum(level.group(1) in line and ((t < window.group(2)) == (window.group(1) == "до"))
                             for t, line in times))
        if told := _more_or_fewer([(p, counted(texts[p])) for p in candidates], c):
            return told
    if "функци" in c and re.search(r"больше|меньше|чаще|реже", c) and (told := _more_or_fewer(
            [(p, float(len(re.findall(r"^\s*(?:async\s+)?def \w+", live_text(texts[p]), re.M)))) for p in candidates], c)):
        return told
    if "медлен" in c and re.search(r"больше|меньше|чаще|реже", c) and (told := _more_or_fewer(
            [(p, float(sum("slow" in line.lower() for line in rf.live_lines(texts[p])))) for p in candidates], c)):
        return told
    return []


def _more_or_fewer(counts: list[tuple[str, float]], clause: str) -> list[str]:
    """Of files counted unequally, the one with more (fewer, where the clause says so), or none."""
    if len({v for _, v in counts}) > 1:
        return [rf.argmax(counts, lowest=bool(re.search(r"меньше|реже", clause)))]
    return []
