"""The red team's rules for the kinds of picking clause a reader of the dev set (seed 23) saw
there (`RULES`, `pick`): a count compared, a limit in the question's units, a fact a file shows or
lacks, a date or a version inside, each keyed on the words those clauses used and reading the value
from the file's text; with what a clause says (more or less, a number, a month) and the readers the
rules use. The sentence that picks and the general criteria for a clause no rule decides are
`redteam_clauses`'s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from redteam import files as rf
from redteam import readers

Files = Mapping[str, str]


# --- what a clause says ----------------------------------------------------------------------

_LOW = re.compile(r"меньше|ниже|реже|раньше|старше|старее|старой|короче|ранний|не дотягивает|холоднее|беднее|"
                  r"\bдавно|обрывается|меньшую")
_HIGH = re.compile(r"больше|выше|чаще|позже|позднее|свежее|свежей|новее|новой|длиннее|дольше|поздний|дороже|теплее|шире|"
                   r"недавно|большую")
_NUMBER = re.compile(r"(\d[\d ]*)")


def _lowest(clause: str) -> bool | None:
    low, high = _LOW.search(clause), _HIGH.search(clause)
    if low and high:  # "не дотягивает до" beats a "больше" elsewhere; otherwise the first said
        return low.start() < high.start() or "не дотягивает" in clause
    return True if low else False if high else None


def _number(clause: str) -> float | None:
    m = _NUMBER.search(re.sub(r"\d\d:\d\d", " ", clause))
    return float(m.group(1).replace(" ", "")) if m else None


# the months' stems, in order (a clause says "за март", "за мая"...)
MONTHS = ("январ", "феврал", "март", "апрел", "ма[йя]", "июн", "июл", "август", "сентябр", "октябр", "ноябр", "декабр")


def _month_of(clause: str) -> str | None:
    m = re.search(r"\bза (" + "|".join(month + r"\w*" for month in MONTHS) + ")", clause)
    if not m:
        return None
    return next(f"{n:02d}" for n, month in enumerate(MONTHS, 1) if re.match(month, m[1]))


# --- file readers ----------------------------------------------------------------------------

def live_text(text: str) -> str:
    """A file without its comments (XML ones too): what it says, not what it used to."""
    return "\n".join(rf.live_lines(re.sub(r"<!--.*?-->", "", text, flags=re.S)))


def dependencies(text: str) -> list[tuple[str, str]]:
    """A pom's (artifactId, version) pairs of its project <dependencies>, in order (not its own,
    not plugins, not a profile's; comments are none; a `${property}` version resolved)."""
    return readers.pom_dependencies(text)


def _yaml_child(text: str, section: str, key: str) -> str | None:
    inside = False
    for line in rf.live_lines(text):
        if re.match(r"^\S", line):
            inside = line.split(":", 1)[0].strip() == section
        elif inside and re.match(rf"^\s{{2}}{re.escape(key)}:", line):
            return line.split(":", 1)[1].strip().strip('"')
    return None


def _ini(text: str, section: str, key: str) -> str | None:
    inside = False
    for line in rf.live_lines(text):
        s = line.strip()
        if s.startswith("["):
            inside = s == f"[{section}]"
        elif inside and s.split("=", 1)[0].strip() == key and "=" in s:
            return s.split("=", 1)[1].strip()
    return None


def _float(value: str | None) -> float | None:
    return rf.number(value) if value is not None else None


def _memory(text: str) -> float | None:
    m = re.fullmatch(r"(\d+)(Mi|Gi)", _yaml_child(text, "resources", "memory") or "")
    return None if not m else int(m[1]) * (1024 if m[2] == "Gi" else 1)


def _version(text: str) -> float | None:
    m = re.search(r":(\d+)\.(\d+)\.(\d+)\s*$", rf.key_value(text, "image") or "")
    return None if not m else int(m[1]) * 1e6 + int(m[2]) * 1e3 + int(m[3])


# a record's stamp and level in each of the three log layouts: `date time LEVEL`, `[dateTtime] [LEVEL]`,
# `ts=dateTtimeZ level=LEVEL`
_STAMPED = re.compile(r"^(?:ts=|\[)?(\d{4}-\d\d-\d\d)[ T](\d\d):(\d\d):\d\d\S*\s+(?:\[|level=)?([A-Z]+)\b")


def _stamped(text: str) -> list[tuple[str, int, str]]:
    """(date, minute of the day, level) of each record, in any layout."""
    return [(m[1], int(m[2]) * 60 + int(m[3]), m[4]) for line in text.splitlines() if (m := _STAMPED.match(line))]


def _records_saying(text: str, level: str, needle: str) -> int:
    """The records of a level whose line says `needle`, in any layout (an INFO line quoting an
    error's words is no error)."""
    return sum(1 for _, written, line in rf.log_level_records(text) if written == level and needle in line)


def _json(text: str) -> dict:
    doc = rf.json_doc(text)
    return doc if isinstance(doc, dict) else {}


def _header_date(text: str, pattern: str) -> float | None:
    m = re.search(pattern + r"\s*(\d{4})-(\d\d)-(\d\d)", text, re.M)
    return None if not m else float(m[1] + m[2] + m[3])


def _dependencies(text: str) -> dict[str, str]:
    return dict(dependencies(text))


def _release(version: str | None) -> float | None:
    if not version:
        return None
    parts = [int(n) for n in re.findall(r"\d+", version)[:3]] + [0, 0, 0]
    return parts[0] * 1e6 + parts[1] * 1e3 + parts[2]


# --- the dev set's rules ---------------------------------------------------------------------

@dataclass(frozen=True)
class Rule:
    """`when` matches the clause; `value` reads a figure from a file (compare, or a limit when the
    clause states a number and `scale` turns it into the file's unit), or `holds` tells whether a
    file shows what the clause says (negated by `lacking` words)."""

    when: re.Pattern[str]
    value: Callable[[str, str], float | None] | None = None
    holds: Callable[[str, str], bool | None] | None = None
    scale: float | None = None
    lacking: re.Pattern[str] | None = None

    def pick(self, clause: str, files: Files) -> str | None:
        if self.holds is not None:
            negated = bool(self.lacking and self.lacking.search(clause))
            held = [p for p, t in files.items() if self.holds(clause, t) is (not negated)]
            return held[0] if len(held) == 1 else None
        assert self.value is not None
        values = {p: self.value(clause, t) for p, t in files.items()}
        if None in values.values():
            return None
        lowest = _lowest(clause)
        if lowest is None:
            return None
        limit = _number(clause) if self.scale is not None else None
        if limit is not None:
            past = [p for p, v in values.items() if (v < limit * self.scale if lowest else v > limit * self.scale)]
            return past[0] if len(past) == 1 else None
        best = sorted(values, key=lambda p: values[p], reverse=not lowest)
        return best[0] if values[best[0]] != values[best[1]] else None


_LOG_EVENTS = [  # what the dev clauses said -> the level and the words of the record that says it
    (r"внешн\w+ сервис|таймаут|наружу отваливались|соседний сервис", "ERROR", "upstream timeout"),
    (r"памят|OOM", "ERROR", "out of memory"),
    (r"диск|почти забито", "WARN", "disk usage"),
    (r"баз\w|СУБД", "ERROR", "connection refused"),
]


def _log_event(clause: str, text: str) -> bool | None:
    if re.search(r"стек|цепочка вызовов|одной строкой", clause):
        return bool(re.search(r"^Traceback", text, re.M))
    for said, level, needle in _LOG_EVENTS:
        if re.search(said, clause):
            return _records_saying(text, level, needle) > 0
    return None


def _errors_window(clause: str, text: str) -> float | None:
    m = re.search(r"(до|после) (\d\d):(\d\d)", clause)
    if not m:
        return None
    at = int(m[2]) * 60 + int(m[3])
    return float(sum(1 for _, t, level in _stamped(text) if level == "ERROR" and ((t >= at) if m[1] == "после" else
                                                                                  (t < at))))


_HOST_ROLES = {"grafana": "grafana", "cdn": "cdn", "почтов": "mail", "git": "git", "vpn": "vpn", "магазин": "shop",
               "ci": "ci", "база знаний": "docs", "удалённого доступа": "vpn", "метрик": "metrics",
               "доставки контента": "cdn", "хостинг репозиториев": "git"}


def _host_role(clause: str, text: str) -> bool | None:
    low = clause.lower()
    role = next((v for k, v in _HOST_ROLES.items() if re.search(rf"\b{k}", low)), None)
    return None if role is None else any(h.split(".", 1)[0] == role for h in rf.listed_hosts(text))


def _zone(clause: str, text: str) -> float | None:
    m = re.search(r"зоне (\S+?)(?:\s|$)", clause)
    return None if not m else float(sum(h.endswith("." + m[1]) for h in rf.listed_hosts(text)))


_PURPOSES = {"отчёт": "reports", "платеж": "payments", "платёж": "payments", "пис": "emails", "оплат": "payments",
             "почтов": "emails"}


def _purpose(clause: str, text: str) -> bool | None:
    queue = next((v for k, v in _PURPOSES.items() if k in clause), None)
    name = _ini(text, "queue", "name") or ""
    return None if queue is None else name.startswith(queue + "-")


_FEATURES = {"промокод": "promo", "поиск": "search", "подарочн": "gift-cards", "отзыв": "reviews"}


def _feature(clause: str, text: str) -> bool | None:
    feature = next((v for k, v in _FEATURES.items() if k in clause), None)
    return None if feature is None else feature in _json(text).get("features", [])


_FUNCTIONS = {r"повтор|заново": "retry", r"статус": "summarize", r"конфигурац|настройк": "load_config",
              r"чат|уведомлен": "notify", r"CSV|отчёт пишется": "save_report", r"заголов": "build_headers", r"дат": "parse_date",
              r"мессенджер": "notify", r"кусками": "chunked"}


def _function(clause: str, text: str) -> bool | None:
    name = next((v for k, v in _FUNCTIONS.items() if re.search(k, clause)), None)
    return None if name is None else bool(re.search(rf"^def {name}\(", text, re.M))


_TOPICS = {r"отпуск": "в отпуске", r"приоритет|срочн|важност": "приоритет «высокий»", r"дашборд|график": "дашборд",
           r"таймаут|падени|сбой генерации": "падала по таймауту", r"BOM": "BOM",
           r"отдыхать": "в отпуске", r"переезд": "переложили в новое хранилище"}


def _topic(clause: str, text: str) -> bool | None:
    said = next((v for k, v in _TOPICS.items() if re.search(k, clause)), None)
    thread = text.split("## Обсуждение", 1)[-1]
    return None if said is None else said in thread


def _table_topic(clause: str, text: str) -> bool | None:
    table = rf.table(text)
    if table is None:
        return None
    if re.search(r"погод|метеостанц|влажност", clause):
        return "humidity_pct" in table.header
    if re.search(r"сервер|процессор", clause):
        return "cpu_pct" in table.header
    if re.search(r"продаж", clause):
        return "amount_rub" in table.header
    return None


def _weather_month(clause: str, text: str) -> bool | None:
    month = _month_of(clause)
    table = rf.table(text)
    if month is None or table is None or "date" not in table.header:
        return None
    return any(d[5:7] == month for d in table.column("date"))


def _ticket_month(clause: str, text: str) -> bool | None:
    month = _month_of(clause)
    return None if month is None else bool(re.search(rf"Выгрузка заказов за \d{{4}}-{month}\b", text))


def _ticket_author(clause: str, text: str) -> bool | None:
    m = re.search(r"(?:автор задачи —|задачу завел[аи]?|задачу завёл) ([А-ЯЁ][а-яё]+)", clause)
    author = re.search(r"^Автор: (\S+)", text, re.M)
    return None if not m or not author else author[1] == m[1]


def _artifact(clause: str, text: str) -> bool | None:
    deps = _dependencies(text)
    named = [w for w in re.findall(r"[a-z][a-z0-9-]+[a-z0-9]", clause)]
    return next((w in deps for w in named), None) if named else None


def _artifact_version(clause: str, text: str) -> float | None:
    named = re.findall(r"[a-z][a-z0-9-]+[a-z0-9]", clause)
    return _release(_dependencies(text).get(named[0])) if named else None


def _route(clause: str, text: str) -> float | None:
    m = re.search(r"(/\w+)", clause)
    return None if not m else float(sum(_request_path(r) == m[1] for r in rf.json_lines(text)))


def _request_path(record: dict) -> str | None:
    """A trace's route: its `route`, or the path after the method in a span `name` ("GET /cart")."""
    named = re.fullmatch(r"[A-Z]+ (/\S*)", str(record.get("name", "")))
    return record.get("route") or (named[1] if named else None)


def _docker_language(clause: str, text: str) -> bool | None:
    base = re.search(r"^FROM\s+(\S+)", text, re.M)
    if "Alpine" in clause:
        return bool(base) and base[1].endswith("-alpine")
    want = "golang" if re.search(r"\bGo\b", clause) else "node" if re.search(r"\bNode\b", clause) else \
        "python" if "Python" in clause else None
    return None if want is None or not base else base[1].split(":")[0] == want


def _authored_in_other(files: Files) -> str | None:
    """Of two tickets, the one whose author wrote in the other's thread (only one way)."""
    (a, ta), (b, tb) = files.items()

    def wrote(mine: str, theirs: str) -> bool:
        author = re.search(r"^Автор: (\S+)", mine, re.M)
        return bool(author) and bool(re.search(rf"^\*\*{re.escape(author[1])}\*\*, \d", theirs.split("## Обсуждение")[-1],
                                               re.M))

    hits = [p for p, mine, theirs in ((a, ta, tb), (b, tb, ta)) if wrote(mine, theirs)]
    return hits[0] if len(hits) == 1 else None


RULES: list[Rule] = [
    # logs
    Rule(re.compile(r"(до|после) \d\d:\d\d"), value=_errors_window),
    Rule(re.compile(r"ошибок набралось"), value=lambda c, t: float(readers.level_count(t, "ERROR"))),
    Rule(re.compile(r"медленн|тормозящ|с большой задержкой"), value=lambda c, t: float(_records_saying(t, "WARN", "slow request"))),
    Rule(re.compile(r"дат\w+ записей|записи за более|по числу|события случились"), value=lambda c, t: (lambda d: float(d[0][0].replace("-", ""))
                                                                        if d else None)(_stamped(t))),
    Rule(re.compile(r"внешн\w+ сервис|таймаут|памят|диск|баз\w|стек|OOM|цепочка вызовов|почти забито|наружу|"
                    r"соседний сервис|СУБД|одной строкой"),
         holds=_log_event, lacking=re.compile(r"\bнет\b|ни разу|никого|всем хватало|без |не случал|всегда успевал|"
                                             r"одной строкой")),
    # values files
    Rule(re.compile(r"памят|потолок по RAM"), value=lambda c, t: _memory(t)),
    Rule(re.compile(r"верси\w+ образа|образ более|тег сборки|релиз"), value=lambda c, t: _version(t)),
    Rule(re.compile(r"клиент\w* ждёт|таймаут клиента|исходящий вызов"), value=lambda c, t: _float(_yaml_child(t, "client", "timeout_ms")),
         scale=1000),
    Rule(re.compile(r"повтор|переспрашивают"), value=lambda c, t: _float(_yaml_child(t, "client", "retries"))),
    Rule(re.compile(r"копий сервиса"), value=lambda c, t: _float(rf.key_value(t, "replicas"))),
    Rule(re.compile(r"масштабировани|число реплик|HPA"), holds=lambda c, t: _yaml_child(t, "autoscaling", "enabled") ==
         "true", lacking=re.compile(r"выключ|отключ|само не|не меняется")),
    Rule(re.compile(r"ingress|внешн\w+ адрес"), holds=lambda c, t: _yaml_child(t, "ingress", "enabled") == "true",
         lacking=re.compile(r"выключ|не выставлен|нет внешн")),
    Rule(re.compile(r"отладочн|самый подробный"), holds=lambda c, t: bool(re.search(r"name: LOG_LEVEL\n\s+value: \"?debug", t))),
    Rule(re.compile(r"только предупреждения|тревожные события"), holds=lambda c, t: bool(re.search(r"name: LOG_LEVEL\n\s+value: \"?warn",
                                                                                   t))),
    Rule(re.compile(r"развёрнут в|пространство имён —"), holds=lambda c, t: (rf.key_value(t, "namespace") or "") in c.split()),
    # JSON configs
    Rule(re.compile(r"маршрут|ручек"), value=lambda c, t: float(len(_json(t).get("endpoints", [])))),
    Rule(re.compile(r"MySQL|PostgreSQL|Postgres|постгрес|3306"), holds=lambda c, t: (
        _json(t).get("database", {}).get("port") == 3306) == bool(re.search(r"MySQL|3306", c))),
    Rule(re.compile(r"кеш"), holds=lambda c, t: "cache" in _json(t), lacking=re.compile(r"не настроен|нет раздела")),
    Rule(re.compile(r"функци\w+ «|возможностей"), holds=_feature),
    # Dockerfiles, workers, host lists
    # checked more often = a shorter interval
    Rule(re.compile(r"проверка здоровья|healthcheck"), value=lambda c, t: (lambda m: -float(m[1]) if m else None)(
        re.search(r"HEALTHCHECK --interval=(\d+)s", t))),
    Rule(re.compile(r"\bGo\b|\bNode\b|Python|Alpine"), holds=_docker_language),
    Rule(re.compile(r"параллельных задач|задач одновременно|задач разом"), value=lambda c, t: _float(_ini(t, "limits", "max_jobs"))),
    Rule(re.compile(r"отчёт|платеж|платёж|письм|оплат|почтовой рассылк"), holds=_purpose),
    Rule(re.compile(r"обновлен|обновлял|правки вносили"), value=lambda c, t: _header_date(t, r"обновлён")),
    Rule(re.compile(r"в зоне"), value=_zone),
    Rule(re.compile(r"где есть"), holds=_host_role),
    # invoices, tables
    Rule(re.compile(r"счёт больше|счёт дороже|счёт не дотягивает|все счета меньше"), value=lambda c, t: (lambda t_: max(
        (rf.number(v) or 0 for v in t_.column("amount_rub")), default=None) if t_ else None)(rf.table(t)), scale=1),
    Rule(re.compile(r"сумм\w+ счетов|счета выставлены|выставлено"), value=lambda c, t: (lambda t_: sum(
        rf.number(v) or 0 for v in t_.column("amount_rub")) if t_ else None)(rf.table(t))),
    Rule(re.compile(r"холоднее|теплее"), value=lambda c, t: (lambda col: sum(col) / len(col) if col else None)(
        [v for v in (rf.number(x) for x in (rf.table(t).column("temp_c") if rf.table(t) else [])) if v is not None])),
    Rule(re.compile(r"погода за|замеры за"), holds=_weather_month),
    Rule(re.compile(r"перечислены серверы|загрузка процессоров|продаж|погод|метеостанц|влажност"), holds=_table_topic),
    # tickets
    Rule(re.compile(r"автор задачи —|задачу завел|задачу завёл"), holds=_ticket_author),
    Rule(re.compile("за (" + "|".join(MONTHS) + ")"), holds=_ticket_month),
    Rule(re.compile(r"завели|создана|тикет появился"), value=lambda c, t: _header_date(t, r"^Создана:")),
    Rule(re.compile(r"отпуск|приоритет|дашборд|таймаут|BOM|важност|график|падени|сбой генерации|отдыхать|переезд"),
         holds=_topic,
         lacking=re.compile(r"ни слова|не поднимали|\bнет\b|не делились")),
    Rule(re.compile(r"переписка"), value=lambda c, t: float(rf.ticket_comments(t))),
    # poms, traces, modules, recordings
    Rule(re.compile(r"верси\w+ [a-z]|[a-z] более"), value=_artifact_version),
    Rule(re.compile(r"зависимост|подключ"), holds=_artifact, lacking=re.compile(r"\bнет\b|не подключ")),
    Rule(re.compile(r"запросов к /|к /\w+ обращались"), value=_route),
    Rule(re.compile(r"повтор\w* упавш|повторяет|статус|конфигурац|чат|заново|CSV|заголов|дат|мессенджер|кусками|"
                    r"отчёт пишется"), holds=_function),
    Rule(re.compile(r"функций"), value=lambda c, t: float(len(re.findall(r"^def \w+\(", t, re.M)))),
    Rule(re.compile(r"запрос ждут|таймаут запросов"), value=lambda c, t: (lambda m: float(m[1]) if m else None)(
        re.search(r"^TIMEOUT_S(?:: *\w+)? *= *(\d+)", t, re.M)), scale=1),  # annotated too: `TIMEOUT_S: int = 5`
    Rule(re.compile(r"запись.*\d"), value=lambda c, t: (lambda m: float(m[1]) if m else None)(
        re.search(r"(\d+)\s*мин", t)), scale=1),
    Rule(re.compile(r"pgbouncer|напрямую"), holds=lambda c, t: (rf.key_value(t, "DB_PORT") == "6432") == ("pgbouncer" in c)),
    Rule(re.compile(r"TTL кеша|кеш живёт|запомненн"), value=lambda c, t: _float(rf.key_value(t, "CACHE_TTL_S"))),
    Rule(re.compile(r"окружение — "), holds=lambda c, t: (rf.key_value(t, "APP_ENV") or "") in c),
    Rule(re.compile(r"рабочего контура"), holds=lambda c, t: rf.key_value(t, "APP_ENV") == "production"),
    Rule(re.compile(r"тестового (контура|стенда)"), holds=lambda c, t: rf.key_value(t, "APP_ENV") == "staging"),
]


def pick(clause: str, files: Files) -> str | None:
    """The file the first rule that knows the clause and decides picks, or None."""
    if len(files) != 2:
        return None
    if re.search(r"автор задачи (сам писал|отметился)", clause):
        return _authored_in_other(files)
    for rule in RULES:
        if rule.when.search(clause):
            try:
                chosen = rule.pick(clause, files)
            except (ValueError, KeyError, IndexError, TypeError, ZeroDivisionError, json.JSONDecodeError):
                chosen = None
            if chosen is not None:
                return chosen
    return None
