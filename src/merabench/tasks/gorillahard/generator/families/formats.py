"""The validator's readers of the corpus's file formats, each by its format's own rules.

A YAML key is read by its path (a `legacy:` block of old values is not the live one), an .env or
INI key by its last assignment (as dotenv and configparser read them), TOML through tomllib, a
CSV table without its comment lines and repeated headers and with quoted cells kept whole, a
ticket's key, author, link and thread whatever its layout. Comments are never values.
"""

from __future__ import annotations

import configparser
import csv
import functools
import json
import re
import tomllib
from typing import Any
from xml.etree import ElementTree


def unquoted(value: str) -> str:
    """A scalar as written after its key: a quoted one up to its closing quote, a bare one up to
    an inline ` #` comment."""
    value = value.strip()
    if value[:1] in ("\"", "'"):
        end = value.find(value[0], 1)
        return value[1:end] if end > 0 else value[1:]
    return value.split(" #", 1)[0].strip()


def yaml_value(text: str, path: str) -> str | None:
    """The scalar at a dotted path of a block-style YAML mapping (`client.timeout_ms`); a bare key
    is a top-level one. List items and comments are not addressed."""
    wanted = path.split(".")
    stack: list[tuple[int, str]] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "- ")) or ":" not in stripped:
            continue
        indent = len(line) - len(line.lstrip(" "))
        key, value = (part.strip() for part in stripped.split(":", 1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if [k for _, k in stack] + [key] == wanted and value:
            return unquoted(value)
        if not value:
            stack.append((indent, key))
    return None


def assignment(text: str, key: str) -> str | None:
    """The value of the last live `key=value` (or `key = value`, `export KEY=value`) line: the one
    dotenv and configparser keep."""
    found = None
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        stripped = stripped.removeprefix("export ")
        name, sep, value = stripped.partition("=")
        if sep and name.strip() == key:
            found = unquoted(value)
    return found


def ini_value(text: str, section: str, key: str) -> str | None:
    """A key of an INI section as configparser reads it (the last of a repeated key)."""
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return parser.get(section, key, fallback=None)


def toml_value(text: str, path: str) -> Any:
    try:
        node: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def table(text: str) -> tuple[list[str], list[list[str]]]:
    """A delimited table: the delimiter its header uses, `#` comment lines and repeated headers
    left out, quoted cells whole."""
    header, rows = _table(text)
    return list(header), [list(r) for r in rows]


@functools.lru_cache(maxsize=1024)  # several checks and makers read the same tables
def _table(text: str) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    lines = [ln for ln in text.split("\n") if ln.strip() and not ln.startswith("#")]
    delimiter = max((";", "\t", ","), key=lines[0].count)
    rows = [tuple(r) for r in csv.reader(lines, delimiter=delimiter)]
    header = rows[0]
    return header, tuple(r for r in rows[1:] if r != header)


def number(cell: str) -> float:
    """A number as a table writes it: a decimal comma and spaces between thousands allowed."""
    return float(cell.replace("\u00a0", "").replace(" ", "").replace(",", "."))


# --- tickets ---------------------------------------------------------------------------------

_THREAD = re.compile(r"^(?:## (?:Обсуждение|Комментарии)|Комментарии:)\s*$", re.M)
# a thread entry in any of the tracker's layouts: **Имя**, 2026-03-04: / [2026-03-04] Имя: / — Имя (2026-03-04):
_ENTRY = re.compile(r"^(?:\*\*[^*\n]+\*\*, \d{4}-\d\d-\d\d:|\[\d{4}-\d\d-\d\d \d\d:\d\d\] [^:\n]+:|— [^(\n]+ \(\d{4}-\d\d-\d\d\):)",
                    re.M)
_KEY = re.compile(r"\b[A-Z]+-\d+\b")


def _without_comments(text: str) -> str:
    return re.sub(r"<!--.*?-->", "", text, flags=re.S)


def ticket_description(text: str) -> str:
    """A ticket up to its thread of comments, HTML comments left out."""
    return _THREAD.split(_without_comments(text), maxsplit=1)[0]


def ticket_key(text: str) -> str:
    """The ticket's own key: the first one of its title line."""
    title = next(ln for ln in text.split("\n") if ln.strip())
    found = _KEY.search(title)
    return found.group() if found else ""


def ticket_author(text: str) -> str:
    """The author's login: `@login` on the line that names the author (Автор / reporter)."""
    for line in ticket_description(text).split("\n"):
        if re.search(r"(?i)\b(?:автор|reporter)\b", line):
            found = re.search(r"@([\w.]+)", line)
            if found:
                return found.group(1)
    return ""


def ticket_url(text: str) -> str:
    """The export the ticket is about: the first data link of its description."""
    found = re.search(r"https://data\.[^\s)`\"'>|]+", ticket_description(text))
    return found.group() if found else ""


def ticket_thread(text: str) -> str:
    """A ticket's thread of comments, in any of the tracker's layouts ("" when it has none)."""
    parts = _THREAD.split(_without_comments(text), maxsplit=1)
    return parts[1] if len(parts) > 1 else ""


@functools.lru_cache(maxsize=1024)
def ticket_comments(text: str) -> int:
    return len(_ENTRY.findall(ticket_thread(text)))


@functools.lru_cache(maxsize=1024)
def env_variables(text: str) -> int:
    """How many variables an .env file sets: each name once, however often it is assigned."""
    names = {line.strip().removeprefix("export ").split("=", 1)[0] for line in text.split("\n")
             if re.match(r"^(?:export )?[A-Z][A-Z0-9_]*=", line.strip())}
    return len(names)


def dockerfile_port(text: str) -> int:
    """The port of a Dockerfile's EXPOSE, a `${NAME}` resolved from the ARG or ENV that sets it."""
    defaults: dict[str, str] = {}
    for line in text.split("\n"):
        words = line.split()
        if len(words) > 1 and words[0] in ("ARG", "ENV") and "=" in words[1]:
            name, value = words[1].split("=", 1)
            defaults[name] = value.strip("\"")
        elif len(words) > 1 and words[0] == "EXPOSE":
            port = re.sub(r"\$\{?(\w+)\}?", lambda m: defaults.get(m.group(1), m.group()), words[1])
            return int(port.split("/")[0])
    raise ValueError("no EXPOSE")


# --- host lists ------------------------------------------------------------------------------

_HOST = re.compile(r"^(?:[a-z0-9-]+\.)+[a-z]{2,}$")
_ITEM = re.compile(r"^(?:[-*] |\d+\. |\|)")


@functools.lru_cache(maxsize=1024)
def listed_hosts(text: str) -> tuple[str, ...]:
    """The hosts a list names, in order. A runbook's are the code spans of the items (list items
    or table rows) under its hosts heading, struck-out ones left out; a plain list's are its live
    lines, an inline `# note` and an /etc/hosts-style address before the name left out."""
    if re.search(r"^## ", text, re.M):
        sections = re.split(r"^(## .*)$", text, flags=re.M)
        at = next((i for i, part in enumerate(sections) if part.startswith("## ") and "хост" in part.lower()), None)
        body = sections[at + 1] if at is not None else ""
        return tuple(span for line in body.split("\n") if _ITEM.match(line.strip()) and "~~" not in line
                     for span in re.findall(r"`([^`]+)`", line))
    found = []
    for line in text.split("\n"):
        words = line.split("#", 1)[0].split()
        if words and _HOST.match(words[-1]):
            found.append(words[-1])
    return tuple(found)


# --- logs ------------------------------------------------------------------------------------

# a record's level in each of the corpus's log layouts (date and level; bracketed ISO stamp;
# logfmt; a cron logger's dd.mm.yyyy): lines without one (tracebacks, banners) are no records
_LEVEL = re.compile(r"^(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (\w+)\s|\[[^]]+\] \[(\w+)\]|ts=\S+ level=(\w+)\s"
                    r"|\d\d\.\d\d\.\d{4} \d\d:\d\d:\d\d (\w+)\s)")


@functools.lru_cache(maxsize=1024)  # makers ask the same logs again and again: read each once
def log_levels(text: str) -> tuple[tuple[int, str], ...]:
    """(1-based line, level) of every record of a log; the level as written (case kept)."""
    out = []
    for n, line in enumerate(text.split("\n"), start=1):
        found = _LEVEL.match(line)
        if found:
            out.append((n, next(g for g in found.groups() if g)))
    return tuple(out)


def level_count(text: str, level: str) -> int:
    return sum(1 for _, written in log_levels(text) if written == level)


def level_word_exact(text: str, level: str) -> bool:
    """The level's records are there and are the only lines holding its word (no DEBUG record
    quoting "WARN"): a search for the bare word and one for "[WARN]" or "level=WARN" agree."""
    records = level_count(text, level)
    return records > 0 and records == sum(1 for line in text.split("\n") if level in line)


# --- traces ----------------------------------------------------------------------------------

def traces(text: str) -> list[tuple[str, float]]:
    """(trace id, latency in ms) of each trace record of a JSON-lines export, in order, whatever
    its layout (latency_ms, durationMs, or a duration string in seconds); records without a trace
    (an export's header) left out."""
    out = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        record = json.loads(line)
        trace = record.get("trace_id") or record.get("traceId") or record.get("trace")
        if not trace:
            continue
        if "latency_ms" in record or "durationMs" in record:
            latency = float(record.get("latency_ms", record.get("durationMs")))
        else:
            latency = float(str(record["duration"]).removesuffix("ms").removesuffix("s")) * (
                1 if str(record["duration"]).endswith("ms") else 1000)
        out.append((trace, latency))
    return out


# --- code and build files --------------------------------------------------------------------

def created_table(text: str) -> str:
    """The table a migration creates: its live CREATE TABLE, comments and string literals left
    out, the name without IF NOT EXISTS or quotes."""
    live = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    live = re.sub(r"--[^\n]*", "", live)
    live = re.sub(r"'(?:[^']|'')*'", "''", live)
    found = re.search(r"\bCREATE TABLE (?:IF NOT EXISTS )?\"?(\w+)\"?", live)
    return found.group(1) if found else ""


def pom_dependencies(text: str) -> dict[str, str]:
    """artifactId -> version of a pom's project dependencies (not a profile's), in order, a
    `${property}` resolved from <properties>; comments are no elements."""
    root = ElementTree.fromstring(text)
    properties = {p.tag: (p.text or "").strip() for p in root.findall("properties/*")}
    out = {}
    for dependency in root.findall("dependencies/dependency"):
        version = (dependency.findtext("version") or "").strip()
        version = re.sub(r"\$\{([^}]+)\}", lambda m: properties.get(m.group(1), m.group()), version)
        out[(dependency.findtext("artifactId") or "").strip()] = version
    return out


def assignment_lines(text: str, name: str) -> list[int]:
    """The 1-based lines of a module's top-level assignments of `name` (`NAME = ...` or
    `NAME: int = ...`); a commented-out one, an indented one or one mid-line (in a string) is none."""
    pattern = re.compile(rf"^{re.escape(name)}(?:\s*:\s*[\w\[\], |]+)?\s*=(?!=)")
    return [n for n, line in enumerate(text.split("\n"), start=1) if pattern.match(line)]
