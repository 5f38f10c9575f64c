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
from redteam import readers

_HEADER = re.compile(r"^\[файл: (.+)\]\n", re.M)
_HOSTNAME = re.compile(r"\b(?:[a-z0-9-]+\.)+(?:com|net|org|internal|ru|io)\b")
_COMMENT = ("#", ";", "//", "--")


# A provider names an operation its own way and describes it in its own words (seed 23:
# `tabular.column_mean`, "Вычисляет арифметическое среднее чисел в столбце."), but keeps its family,
# its parameters (names, types, their descriptions) and its caveat: a tool is known by those, and
# where several dev tools share them, by the words its description shares with each one's. The dev
# set's tools are tagged with the operation names the rules are written in (redteam.build_bank); a
# tool the dev set never showed keeps its own name.
LABELS: dict[str, str] = {}                           # Tool.key -> tag (the dev set's exact listing)
SHAPES: dict[str, list[tuple[str, str, str]]] = {}    # Tool.shape -> [(tag, dev description, dev op)]
_WORDS = re.compile(r"[а-яёa-z]{3,}")
_FILLER = {"указ", "зада", "данн", "файл", "возв", "выда", "пере", "числ"}


def set_labels(labels: Mapping[str, str], shapes: Mapping[str, Sequence[Sequence[str]]]) -> None:
    LABELS.clear()
    LABELS.update(labels)
    SHAPES.clear()
    SHAPES.update({k: [tuple(v) for v in vs] for k, vs in shapes.items()})
    _tag.cache_clear()


def stems_of(text: str) -> set[str]:
    """A text's word stems (the first four letters), without the words every description uses."""
    return {w[:4] for w in _WORDS.findall(text.lower().replace("_", " "))} - _FILLER


@functools.lru_cache(maxsize=4096)
def _tag(key: str, shape: str, description: str, op: str) -> str | None:
    if key in LABELS:
        return LABELS[key]
    candidates = SHAPES.get(shape, [])
    if len(candidates) == 1:
        return candidates[0][0]
    mine = stems_of(description)
    verb = {w[:3] for w in re.findall(r"[a-z]{3,}", op)}  # `max` in `maximum`, `column_max`

    def fit(candidate: tuple[str, str, str]) -> float:
        theirs = {w[:3] for w in re.findall(r"[a-z]{3,}", candidate[2])}
        return len(mine & stems_of(candidate[1])) + 0.5 * len(verb & theirs)
    ranked = sorted(candidates, key=fit, reverse=True)
    if ranked and fit(ranked[0]) > 0 and (len(ranked) == 1 or fit(ranked[0]) > fit(ranked[1])):
        return ranked[0][0]
    return None


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    limits: str
    params: Mapping[str, Any]
    shape: str = ""   # family, parameters and caveat: what a provider does not reword

    @functools.cached_property
    def family(self) -> str:
        return json.loads(self.shape)[0] if self.shape else self.name.split(".", 1)[0]

    @functools.cached_property
    def key(self) -> str:
        return "|".join((self.description, ",".join(sorted(self.params)), self.limits))

    @property
    def op(self) -> str:
        served = self.name.split(".", 1)[-1]
        return _tag(self.key, self.shape, self.description, served) or served

    @property
    def deprecated(self) -> bool:
        return "УСТАРЕЛ" in self.limits or "устарел" in self.description.lower()


def shape_of(entry: Mapping[str, Any]) -> str:
    constraints = entry.get("constraints")
    note = constraints.get("ограничения", "") if isinstance(constraints, Mapping) else str(constraints or "")
    return json.dumps([entry.get("family", ""), entry.get("parameters") or {}, note], ensure_ascii=False,
                      sort_keys=True)


def op_of(tools: Sequence[Tool], name: str) -> str:
    """The operation of a named tool (an earlier turn's answer names it as the catalog serves it)."""
    return next((t.op for t in tools if t.name == name), name.split(".", 1)[-1])


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
                              entry.get("parameters") or {}, shape_of(entry)))
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
