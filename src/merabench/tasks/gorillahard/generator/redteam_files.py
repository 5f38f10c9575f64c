"""What the red-team solver reads out of a prompt: the attached files, the catalog, and the values
a file of each format holds (tables with decoys, logs, configs, host lists, tickets, traces).

Everything here works from the prompt a model sees, never from the generator's own logic.
"""

from __future__ import annotations

import csv
import functools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# the solver's own readers of host lists, trackers, logs, traces and configs, written from how
# seed 23's files look (not the generator's)
from merabench.tasks.gorillahard.generator import redteam_readers as readers

_HEADER = re.compile(r"^\[файл: (.+)\]\n", re.M)
_HOSTNAME = re.compile(r"\b(?:[a-z0-9-]+\.)+(?:com|net|org|internal|ru|io)\b")
_COMMENT = ("#", ";", "//", "--")


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    limits: str
    params: Mapping[str, Any]

    @property
    def op(self) -> str:
        return self.name.split(".", 1)[-1]

    @property
    def deprecated(self) -> bool:
        return "УСТАРЕЛ" in self.limits or "устарел" in self.description.lower()


def attached(context: str) -> dict[str, str]:
    """The files of a context, path -> text, in the order shown."""
    parts = _HEADER.split(context or "")
    return {path.strip(): text for path, text in zip(parts[1::2], parts[2::2], strict=False)}


def catalog(tools_json: str) -> list[Tool]:
    try:
        entries = json.loads(tools_json or "[]")
    except ValueError:
        return []
    tools = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            limits = str(entry.get("constraints", ""))
            tools.append(Tool(entry["name"], str(entry.get("description", "")), limits,
                              entry.get("parameters") or {}))
    return tools


# a block, section or table kept for reference, as seed 23's files keep them (`legacy:`,
# `[queue.example]`, `[tool.service-example]`, `"legacy": {...}`): no live values inside
_STALE = re.compile(r"(?:^|[\W_])(?:legacy|old|example|deprecated|previous)(?:$|[\W_])", re.I)


@functools.lru_cache(maxsize=512)  # a file is read by several rules of a row (read, never change it)
def live_lines(text: str) -> list[str]:
    """The lines whose values are live, as seed 23's files show decoys: no comments or blanks, no
    HTML comments, nothing inside a stale YAML block or INI/TOML section, and of a key assigned
    twice in a section (.env, INI) only the last assignment."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    out: list[str] = []
    stale_at: int | None = None
    stale_section = False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or line.lstrip().startswith(_COMMENT):
            continue
        indent = len(line) - len(line.lstrip())
        if re.fullmatch(r"\[[^\]]+\]", stripped):
            stale_section, stale_at = bool(_STALE.search(stripped)), None
        if stale_section:
            continue
        if stale_at is not None and indent > stale_at:
            continue
        stale_at = None
        block = re.match(r"^\s*[\"']?([\w.-]+)[\"']?\s*:\s*\{?\s*$", line)
        if block and _STALE.search(block.group(1)):
            stale_at = indent
            continue
        out.append(line)
    return _last_assignments(out)


def _last_assignments(lines: list[str]) -> list[str]:
    """Of a `KEY=value` / `key = value` assigned twice within a section, the last (dotenv and
    configparser keep it); only unindented lines of one assignment (not logfmt, not code)."""
    def assigned(line: str) -> str | None:
        m = _ASSIGNED.match(line)
        return m.group(1) if m and not re.search(r"\s[\w.-]+=", line[m.end():]) else None
    section, last = "", {}
    for n, line in enumerate(lines):
        section = line.strip() if line.startswith("[") else section
        if (key := assigned(line)) is not None:
            last[(section, key)] = n
    section, kept = "", []
    for n, line in enumerate(lines):
        section = line.strip() if line.startswith("[") else section
        key = assigned(line)
        if key is None or last[(section, key)] == n:
            kept.append(line)
    return kept


_ASSIGNED = re.compile(r"^(?:export\s+)?([\w.-]+)\s*=(?!=)")


def file_kind(path: str) -> str:
    """A path's shape without its numbers: `deploy/helm/values-056.yaml` -> `values-.yaml`."""
    name = path.rsplit("/", 1)[-1]
    return re.sub(r"\d+", "", name)


def extension(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    if name.startswith("Dockerfile"):
        return "dockerfile"
    return name.rsplit(".", 1)[-1].lower() if "." in name else name.lower()


# --- tables ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def column(self, name: str) -> list[str]:
        if name not in self.header:
            return []
        i = self.header.index(name)
        return [r[i] for r in self.rows if i < len(r)]

    def records(self) -> list[dict[str, str]]:
        return [dict(zip(self.header, r, strict=False)) for r in self.rows]


@functools.lru_cache(maxsize=256)
def table(text: str, path: str = "") -> Table | None:
    """A CSV/TSV table: the delimiter its header uses, quoted cells kept whole, comment lines,
    repeated headers and lines of another width left out."""
    lines = live_lines(text)
    if not lines:
        return None
    head = lines[0]
    sep = "\t" if "\t" in head or path.endswith(".tsv") else (";" if head.count(";") > head.count(",") else ",")
    parsed = list(csv.reader(lines, delimiter=sep))
    header = tuple(c.strip() for c in parsed[0])
    rows = []
    for cells in parsed[1:]:
        record = tuple(c.strip() for c in cells)
        if record == header or len(record) != len(header):
            continue  # a repeated header or a line that is not a record
        rows.append(record)
    return Table(header, tuple(rows))


def number(text: str) -> float | None:
    try:
        return float(str(text).replace(",", ".").replace(" ", ""))
    except ValueError:
        return None


# --- other formats ---------------------------------------------------------------------------

def hosts(text: str) -> list[str]:
    """Host names in a list or a runbook, in order, once each (code spans and list items)."""
    found: list[str] = []
    for line in live_lines(text):
        for host in _HOSTNAME.findall(line):
            if host not in found:
                found.append(host)
    return found


def listed_hosts(text: str) -> list[str]:
    """Hosts of a host list or of a runbook's hosts section, as seed 23's files lay them out: a
    runbook's code spans in the list items or table rows under its hosts heading (struck-out ones
    not), a plain list's names one a line (an /etc/hosts address before it, a note after it)."""
    return readers.listed_hosts(text) or hosts(text)


def key_value(text: str, key: str) -> str | None:
    """The live value of `key` in a YAML/INI/ENV/TOML file (`key: v`, `key = v`, `KEY=v`,
    `export KEY=v`): the least indented live line that sets it (a top-level key before a nested
    one of the same name)."""
    pattern = re.compile(rf"^\s*(?:export\s+)?{re.escape(key)}\s*[:=]\s*(.+?)\s*$")
    found = [(len(line) - len(line.lstrip()), n, m.group(1)) for n, line in enumerate(live_lines(text))
             if (m := pattern.match(line))]
    if not found:
        return None
    value = min(found)[2]
    return value.split(" #")[0].strip().strip("\"'")


def json_lines(text: str) -> list[dict[str, Any]]:
    out = []
    for line in live_lines(text):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def json_doc(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


# the tracker layouts seed 23 shows (fields, a table of fields, free text; three thread styles)
ticket_comments = readers.ticket_comments
ticket_author = readers.ticket_author


def ticket_key(text: str) -> str:
    return readers.ticket_key(text) or ""


def urls(text: str) -> list[str]:
    return re.findall(r"https?://[^\s)`\"'>]+", text)


def log_level_records(text: str) -> list[tuple[int, str, str]]:
    """(1-based line, level, line) of each record of a log, in any of seed 23's log layouts."""
    lines = text.split("\n")
    return [(n, level, lines[n - 1]) for n, level in readers.log_levels(text)]


def trace_records(text: str) -> list[tuple[str, float]]:
    """(trace id, latency ms) of a JSON-lines export in any of seed 23's layouts."""
    return readers.traces(text)


def log_records(text: str) -> list[tuple[int, str]]:
    """(1-based line number, line) of a log, every line counted (numbers are file lines)."""
    return [(i, line) for i, line in enumerate(text.splitlines(), 1)]


def measure(text: str, path: str, what: str) -> float | None:
    """How much of `what` a file holds, for questions that pick one of two files by it."""
    w = what.lower()
    if "хост" in w:
        return float(len(listed_hosts(text)))
    if "реплик" in w:
        v = readers.yaml_value(text, "replicas") or key_value(text, "replicas")
        return number(v) if v else None
    if "пул" in w or "соединени" in w:
        doc = json_doc(text)
        if isinstance(doc, dict) and isinstance(doc.get("database"), dict):
            return number(doc["database"].get("pool", ""))
        return None
    if "коммент" in w:
        return float(ticket_comments(text))
    if "error" in w:
        return float(readers.level_count(text, "ERROR"))
    if "счет" in w or "счёт" in w:
        t = table(text, path)
        return float(len(t.rows)) if t else None
    if "строк данных" in w:
        t = table(text, path)
        return float(len(t.rows)) if t else None
    if "переменн" in w:
        return float(readers.env_variables(text))
    if "трасс" in w:
        return float(len(readers.traces(text)))
    if "prefetch" in w:
        v = readers.ini_value(text, "queue", "prefetch") or key_value(text, "prefetch")
        return number(v) if v else None
    if "запись" in w or "длиннее" in w and path.endswith(".wav") or "коротк" in w and path.endswith(".wav"):
        m = re.search(r"(\d+)\s*мин", text)
        if m:
            return float(m.group(1))
    if "строк" in w or "длиннее" in w or "короче" in w:
        return float(len(text.rstrip("\n").splitlines()))
    return None


def argmax(values: Sequence[tuple[Any, float]], *, lowest: bool = False) -> Any:
    best = min(values, key=lambda kv: kv[1]) if lowest else max(values, key=lambda kv: kv[1])
    return best[0]


# --- inventories, flag files, durations (as seed 23's files write them) ----------------------

# value spellings seen in seed 23's host inventories and flag files, brought to one word
_SPELLED = {"production": "production", "prod": "production", "прод": "production", "staging": "staging",
            "stage": "staging", "стейдж": "staging", "testing": "testing", "test": "testing", "тест": "testing",
            "web": "web", "frontend": "web", "db": "db", "database": "db", "cache": "cache", "redis": "cache",
            "queue": "queue", "broker": "queue", "active": "active", "в работе": "active", "in-service": "active",
            "decommissioned": "retired", "выведен": "retired", "retired": "retired", "ok": "ok", "прошла": "ok",
            "passed": "ok", "failed": "failed", "не прошла": "failed", "fail": "failed"}
_FIELD = {"окружение": "env", "роль": "role", "статус": "status", "проверка": "check", "env": "env", "role": "role",
          "status": "status", "check": "check"}
_ATTRS = ("env", "role", "status", "check")
_INVENTORY_HOST = re.compile(r"`?([a-z][\w-]*(?:\.[a-z][\w-]*)+\.(?:com|net|org))`?")


def inventory(text: str) -> list[dict[str, str]]:
    """A host inventory's live records, in whichever layout: table rows, `- host — label: value`
    items, `### env` sections, whitespace columns, `[env]` groups, `key=value` lines; comments,
    an archive or example section after the list, and hosts a sentence only mentions left out."""
    out: list[dict[str, str]] = []
    group = None
    for raw in text.splitlines():
        line = raw.strip()
        low = line.lower()
        if line.startswith("#") and not line.startswith("###") and re.search(r"архив|стар\w+ список|не использ", low):
            break
        if line.startswith("## ") and re.search(r"архив|стар|пример", low):
            break
        if line.startswith(("<!--", ";")) or (line.startswith("#") and not line.startswith("###")):
            continue
        if line.startswith("###") or re.fullmatch(r"\[[^\]]+\]", line):
            group = _SPELLED.get(line.strip("#[] ").lower())
            continue
        host = _INVENTORY_HOST.search(line)
        if not host or not (line.startswith(("|", "- `", "host=")) or re.match(r"[a-z][\w-]*\.", line)):
            continue
        record = {"host": host.group(1)}
        if line.startswith("|"):
            cells = [c.strip().lower() for c in line.strip("|").split("|")][1:]
            record.update({a: _SPELLED.get(c, c) for a, c in zip(_ATTRS, cells, strict=False)})
        elif "=" in line:
            record.update({_FIELD.get(k, k): _SPELLED.get(v.lower(), v) for k, v in re.findall(r"(\w+)=(\S+)", line)})
        elif ":" in line:
            record.update({_FIELD[k]: _SPELLED.get(v.strip().lower(), v.strip())
                           for k, v in re.findall(r"(окружение|роль|статус|проверка):\s*([^;)]+)", line)})
        else:
            cells = line.split()[1:]
            record.update({a: _SPELLED.get(c.lower(), c) for a, c in zip(_ATTRS, cells, strict=False)})
        if group and "env" not in record:
            record["env"] = group
        if record not in out:
            out.append(record)
    return out


_ON = {"true", "on", "enabled", "вкл", "✅", "1", "yes"}
_OFF = {"false", "off", "disabled", "выкл", "❌", "0", "no"}


def flag_states(text: str, flag: str) -> dict[str, bool]:
    """A flag's live state per environment: YAML blocks either way round, FEATURE_<FLAG>__<ENV>
    keys, a table with a column per environment, [env] sections."""
    states: dict[str, bool] = {}
    key = flag.upper().replace("-", "_")
    lines = live_lines(text)
    current: str | None = None
    header: list[str] = []
    for line in lines:
        stripped = line.strip()
        if m := re.match(rf"FEATURE_{key}__(\w+)\s*=\s*(\S+)", stripped):
            states[m.group(1).lower()] = m.group(2).lower() in _ON
        elif stripped.startswith("|"):
            cells = [c.strip().strip("`") for c in stripped.strip("|").split("|")]
            if "флаг" in cells[0].lower():
                header = cells
            elif cells[0] == flag and header:
                states = {e: v.lower() in _ON for e, v in zip(header[2:], cells[2:], strict=False)}
        elif m := re.fullmatch(r"\[(\w+)\]", stripped):
            current = m.group(1)
        elif m := re.match(r"^(\s*)([\w-]+):\s*(\S*)$", line):
            indent, name, value = len(m.group(1)), m.group(2), m.group(3).lower()
            if indent == 2 and not value:
                current = name  # a flag's block, or an environment's
            elif current == flag and value in _ON | _OFF and name != "description":
                states[name] = value in _ON
            elif name == flag and value in _ON | _OFF and current:
                states[current] = value in _ON
        elif current and (m := re.match(rf"{re.escape(flag)}\s*=\s*(\S+)", stripped)):
            states[current] = m.group(1).lower() in _ON
    return states


def flag_described(text: str, phrase: str) -> str | None:
    """The flag a file describes with exactly these words (a legend line, a table row, a YAML description)."""
    lines = text.splitlines()
    for n, line in enumerate(lines):
        if re.search(rf"(?:—|description:|\|)\s*{re.escape(phrase)}\s*(?:\||$)", line):
            own = re.search(r"`([\w-]+)`|^\W*([A-Z][A-Z0-9_]+|[a-z][\w-]+)\s+—", line)
            if own:
                name = own.group(1) or own.group(2)
                return name.lower().replace("_", "-") if name.isupper() else name
            above = next((lines[k] for k in range(n - 1, -1, -1) if re.match(r"^  [\w-]+:\s*$", lines[k])), None)
            if above:
                return above.strip().rstrip(":")
    return None


_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def duration_seconds(key: str, value: str) -> float | None:
    """A time-out as written (1500ms, 1.5s, 2m30s, PT1M30S, a bare number with the unit in the
    key's suffix or in a comment) in seconds."""
    bare, _, comment = value.partition("#")
    bare = bare.strip().strip("\"'")
    if m := re.fullmatch(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?", bare):
        return int(m.group(1) or 0) * 3600 + int(m.group(2) or 0) * 60 + float(m.group(3) or 0)
    if re.fullmatch(r"(?:[\d.]+(?:ms|s|m|h))+", bare):
        return sum(float(n) * _UNITS[u] for n, u in re.findall(r"([\d.]+)(ms|s|m|h)", bare))
    n = number(bare)
    if n is None:
        return None
    if key.endswith("_ms") or re.search(r"\bмс|милли", comment):
        return n / 1000
    if key.endswith(("_min", "_minutes")) or "мин" in comment:
        return n * 60
    return n  # seconds by the key (_s, _seconds), the comment (сек), or by default


def section_timeout(text: str, section: str = "client", key: str = "timeout") -> float | None:
    """The live `key…` time-out of a values file's `section:` block, in seconds."""
    block = re.search(rf"^{section}:\s*\n((?:[ \t]+.*\n?)*)", text, re.M)
    for line in live_lines(block.group(1)) if block else []:
        if m := re.match(rf"\s*({key}\w*)\s*:\s*(.+)$", line):
            return duration_seconds(m.group(1), m.group(2))
    return None
