"""What a file of each kind holds, read from its text alone for the pick criteria (`criteria.py`):
a log's stamped records and the events they show, a values file's keys, a JSON config's sections,
a ticket's author, thread and dates, a table's columns, a module's functions and time-out, a
Dockerfile's base, a host list's lines, an export's traces, a recording's length. Each reads with
the decoys of its format in mind (comments, a section's own `enabled`, a route named like a
feature); the readers of the formats themselves are `formats.py`'s.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from merabench.tasks.gorillahard.generator.families import formats
from merabench.tasks.gorillahard.generator.families.common import defined_functions, split_table

# a record in each of the corpus's three log layouts: date and level, "logger: message"; a
# bracketed ISO stamp, [LEVEL] and "logger - message"; logfmt's ts=, level=, logger=, msg="..."
_STAMP = re.compile(r"^(\d{4}-\d\d-\d\d) (\d\d):(\d\d):(\d\d) (\w+)\s+(.*)$")
_BRACKETED = re.compile(r"^\[(\d{4}-\d\d-\d\d)T(\d\d):(\d\d):(\d\d)\.\d+Z\] \[(\w+)\] ([\w-]+) - (.*)$")
_LOGFMT = re.compile(r'^ts=(\d{4}-\d\d-\d\d)T(\d\d):(\d\d):(\d\d)Z level=(\w+) logger=([\w-]+) msg="((?:[^"\\]|\\.)*)"')


@functools.lru_cache(maxsize=512)
def log_records(text: str) -> tuple[tuple[str, int, str, str], ...]:
    """(date, second of the day, level as written, "logger: message") of each stamped record, in
    any of the three layouts; a traceback's lines carry no stamp and belong to the record above."""
    out = []
    for line in text.split("\n"):
        if m := _STAMP.match(line):
            message = m[6]
        elif m := _BRACKETED.match(line):
            message = f"{m[6]}: {m[7]}"
        elif m := _LOGFMT.match(line):
            message = f"{m[6]}: " + re.sub(r"\\(.)", r"\1", m[7])
        else:
            continue
        out.append((m[1], int(m[2]) * 3600 + int(m[3]) * 60 + int(m[4]), m[5], message))
    return tuple(out)


def errors_between(text: str, start: int, end: int) -> int:
    return sum(1 for _, t, level, _ in log_records(text) if level == "ERROR" and start <= t < end)


LOG_EVENTS = {  # what a record says -> the reader's test of its message
    "db_refused": lambda level, msg: level == "ERROR" and msg.startswith("db: connection refused"),
    "upstream_timeout": lambda level, msg: level == "ERROR" and "upstream timeout" in msg,
    "disk_full": lambda level, msg: level == "WARN" and "disk usage above" in msg,
    "oom": lambda level, msg: level == "ERROR" and "out of memory" in msg,
    "rate_limited": lambda level, msg: level == "WARN" and " answered 429" in msg,
    "failed_download": lambda level, msg: level == "ERROR" and "failed to download" in msg,
}


@functools.lru_cache(maxsize=512)
def log_events(text: str) -> frozenset[str]:
    found = {name for _, _, level, msg in log_records(text) for name, test in LOG_EVENTS.items() if test(level, msg)}
    if re.search(r"^Traceback \(most recent call last\):$", text, re.M):
        found.add("traceback")
    return frozenset(found)


def _live(text: str, comment: str = "#") -> list[str]:
    return [ln for ln in text.split("\n") if ln.strip() and not ln.lstrip().startswith(comment)]


def yaml_key(text: str, section: str, key: str = "") -> str | None:
    """A top-level scalar (`replicas`) or a section's key, read as YAML does in every layout."""
    return formats.yaml_value(text, f"{section}.{key}" if key else section)


def yaml_env(text: str, name: str) -> str | None:
    m = re.search(rf"^  - name: {name}\n    value: \"?([^\"\n]+)\"?$", text, re.M)
    return m[1] if m else None


def image_version(text: str) -> tuple[int, ...] | None:
    image = yaml_key(text, "image")
    m = re.search(r":(\d+)\.(\d+)\.(\d+)$", image or "")
    return tuple(int(g) for g in m.groups()) if m else None


def mebibytes(value: str | None) -> float | None:
    m = re.fullmatch(r"(\d+)(Mi|Gi)", value or "")
    return None if m is None else int(m[1]) * (1024 if m[2] == "Gi" else 1)


def as_number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def enabled(text: str, section: str) -> frozenset[str]:
    return frozenset({"on"} if yaml_key(text, section, "enabled") == "true" else {"off"})


@functools.lru_cache(maxsize=256)
def json_doc(text: str) -> dict[str, Any]:
    try:
        doc = json.loads(text)
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def ticket_author_name(text: str) -> str | None:
    m = re.search(r"^(?:Автор: |\| Автор \| |Автор задачи — )(\S+) \(@", text, re.M)  # any tracker layout
    return m[1] if m else None


def ticket_commenters(text: str) -> set[str]:
    thread = formats.ticket_thread(text)
    found = re.findall(r"^(?:\*\*([^*\n]+)\*\*, \d{4}-\d\d-\d\d:|— ([^(\n]+) \(\d{4}-\d\d-\d\d\):"
                       r"|\[\d{4}-\d\d-\d\d \d\d:\d\d\] ([^:\n]+):)", thread, re.M)
    return {next(g for g in names if g).strip() for names in found}


def ticket_opened(text: str) -> float | None:
    m = re.search(r"(?:^Создана: |^\| Создана \| |открыта )(\d{4})-(\d\d)-(\d\d)", text, re.M)
    return None if m is None else int(m[1]) * 10_000 + int(m[2]) * 100 + int(m[3])


def ticket_month(text: str) -> frozenset[str]:
    m = re.search(r"^(?:# )?\[?[A-Z]+-\d+\]?(?::| ·)? Выгрузка заказов за \d{4}-(\d\d)$", text, re.M)
    return frozenset({m[1]} if m else set())


TICKET_TOPICS = {  # what was said in a ticket's thread -> the comment that says it
    "priority_high": "Поставил задаче приоритет «высокий»",
    "reassigned": "Переназначаю на себя, пока ответственный в отпуске",
    "bom": "Выгрузка в UTF-8 с BOM",
    "storage_moved": "Выгрузку переложили в новое хранилище",
    "dashboard": "Добавил в задачу ссылку на дашборд",
    "timeouts_before": "На прошлой неделе выгрузка падала по таймауту",
}


def ticket_topics(text: str) -> frozenset[str]:
    thread = formats.ticket_thread(text)  # every layout's thread, not only "## Обсуждение"
    return frozenset(name for name, said in TICKET_TOPICS.items() if said in thread)


def column_sum(text: str, column: str) -> float | None:
    header, rows = split_table(text)
    if column not in header:
        return None
    i = header.index(column)
    return sum(formats.number(r[i]) for r in rows if i < len(r))


def column_mean(text: str, column: str) -> float | None:
    header, rows = split_table(text)
    if column not in header or not rows:
        return None
    i = header.index(column)
    return round(sum(formats.number(r[i]) for r in rows) / len(rows), 3)


TABLE_TOPICS = {"humidity_pct": "weather", "salary_rub": "staff", "amount_rub": "sales", "cpu_pct": "servers"}


def table_topics(text: str) -> frozenset[str]:
    header, _ = split_table(text)
    return frozenset(topic for column, topic in TABLE_TOPICS.items() if column in header)


def weather_months(text: str) -> frozenset[str]:
    header, rows = split_table(text)
    if "humidity_pct" not in header or "date" not in header:
        return frozenset()
    i = header.index("date")
    return frozenset(r[i][5:7] for r in rows if i < len(r))


def maintenance(text: str) -> frozenset[str]:
    header, rows = split_table(text)
    if "status" not in header or "cpu_pct" not in header:
        return frozenset()
    i = header.index("status")
    return frozenset({"maintenance"} if any(r[i] == "maintenance" for r in rows if i < len(r)) else {"none"})


def python_functions(text: str) -> frozenset[str]:
    return frozenset(defined_functions(text))


def python_timeout(text: str) -> float | None:
    m = re.search(r"^TIMEOUT_S(?::\s*\w+)?\s*=\s*(\d+)\s*$", text, re.M)  # typed or not
    return None if m is None else int(m[1])


def python_uses(text: str) -> frozenset[str]:
    return frozenset({"requests"} if re.search(r"^import requests$", text, re.M) else {"stdlib"})


def docker_from(text: str) -> str:
    return next((ln.split()[1] for ln in text.split("\n") if ln.startswith("FROM ")), "")


def docker_traits(text: str) -> frozenset[str]:
    base = docker_from(text)
    traits = {base.split(":")[0].rsplit("/", 1)[-1]}  # the image's own name, past a mirror's path
    if base.endswith("-alpine"):
        traits.add("alpine")
    return frozenset(traits)


def healthcheck_interval(text: str) -> float | None:
    m = re.search(r"^HEALTHCHECK --interval=(\d+)s", text, re.M)
    return None if m is None else int(m[1])


def release(version: str) -> float:
    """A version's release numbers as one comparable figure (4.1.95.Final -> 4, 1, 95)."""
    parts = [int(n) for n in re.findall(r"\d+", version)[:3]] + [0, 0, 0]
    return parts[0] * 1e6 + parts[1] * 1e3 + parts[2]


def host_lines(text: str) -> list[str]:
    """The live hosts' names, in every layout of a host list (past a note after `#`, past an
    /etc/hosts-style address before the name)."""
    return list(formats.listed_hosts(text))


def hosts_updated(text: str) -> float | None:
    m = re.search(r"^# список ведёт дежурная смена; обновлён (\d{4})-(\d\d)-(\d\d)$", text, re.M)
    return None if m is None else int(m[1]) * 10_000 + int(m[2]) * 100 + int(m[3])


def host_roles(text: str) -> frozenset[str]:
    return frozenset(h.split(".", 1)[0] for h in host_lines(text))


def invoice_amounts(text: str) -> list[int]:
    header, rows = split_table(text)
    if "amount_rub" not in header:
        return []
    i = header.index("amount_rub")
    return [int(formats.number(r[i])) for r in rows if i < len(r)]


def trace_records(text: str) -> list[dict[str, Any]]:
    """The trace records of a JSON-lines export, in any layout; an export's header (a line with
    no trace id) is no trace."""
    out = []
    for line in text.split("\n"):
        if line.strip():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and (record.get("trace_id") or record.get("traceId") or record.get("trace")):
                out.append(record)
    return out


def trace_route(record: dict[str, Any]) -> str | None:
    """The route a trace record was a request to, in every layout: a `route` field, or the path
    of an OpenTelemetry-like `name` ("GET /orders")."""
    if isinstance(record.get("route"), str):
        return record["route"]
    name = record.get("name")
    return name.split()[-1] if isinstance(name, str) and name.split() else None


def audio_minutes(text: str) -> float | None:
    m = re.search(r"(\d+) мин\b", text)  # the stand-in's duration, in any of its layouts
    return None if m is None else int(m[1])
