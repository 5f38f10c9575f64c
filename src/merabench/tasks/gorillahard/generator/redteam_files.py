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


@functools.lru_cache(maxsize=512)  # a file is read by several rules of a row (read, never change it)
def live_lines(text: str) -> list[str]:
    """Lines that are not comments or blank (a commented-out old value is a decoy)."""
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith(_COMMENT)]


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
    """Hosts of a host list or of a runbook's list items (`- host`)."""
    items = [m.group(1) for m in re.finditer(r"^\s*[-*]\s+`?([\w.-]+\.[a-z]+)`?\s*$", text, re.M)]
    if items:
        return list(dict.fromkeys(items))
    plain = [line.strip() for line in live_lines(text) if _HOSTNAME.fullmatch(line.strip())]
    return list(dict.fromkeys(plain)) or hosts(text)


def key_value(text: str, key: str) -> str | None:
    """The live value of `key` in a YAML/INI/ENV/TOML file (`key: v`, `key = v`, `KEY=v`)."""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*[:=]\s*(.+?)\s*$")
    for line in live_lines(text):
        m = pattern.match(line)
        if m:
            return m.group(1).split(" #")[0].strip().strip("\"'")
    return None


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


def ticket_comments(text: str) -> int:
    return len(re.findall(r"^\*\*[^*]+\*\*, \d{4}-\d\d-\d\d:", text, re.M))


def ticket_author(text: str) -> str | None:
    m = re.search(r"^Автор:.*\(@([\w.-]+)\)", text, re.M)
    return m.group(1) if m else None


def urls(text: str) -> list[str]:
    return re.findall(r"https?://[^\s)`\"'>]+", text)


def log_records(text: str) -> list[tuple[int, str]]:
    """(1-based line number, line) of a log, every line counted (numbers are file lines)."""
    return [(i, line) for i, line in enumerate(text.splitlines(), 1)]


def measure(text: str, path: str, what: str) -> float | None:
    """How much of `what` a file holds, for questions that pick one of two files by it."""
    w = what.lower()
    if "хост" in w:
        return float(len(listed_hosts(text)))
    if "реплик" in w:
        v = key_value(text, "replicas")
        return number(v) if v else None
    if "пул" in w or "соединени" in w:
        doc = json_doc(text)
        if isinstance(doc, dict) and isinstance(doc.get("database"), dict):
            return number(doc["database"].get("pool", ""))
        return None
    if "коммент" in w:
        return float(ticket_comments(text))
    if "error" in w:
        return float(sum(1 for line in text.splitlines() if re.search(r"\bERROR\b", line)))
    if "счет" in w or "счёт" in w:
        t = table(text, path)
        return float(len(t.rows)) if t else None
    if "строк данных" in w:
        t = table(text, path)
        return float(len(t.rows)) if t else None
    if "переменн" in w:
        return float(sum(1 for line in live_lines(text) if re.match(r"^[A-Z][A-Z0-9_]*=", line.strip())))
    if "трасс" in w:
        return float(len(json_lines(text)))
    if "prefetch" in w:
        v = key_value(text, "prefetch")
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
