"""The red-team solver's own readers of two file kinds, written from how seed 23's files look:
a Dockerfile's exposed port (a build argument or variable behind `${NAME}`; commented-out
EXPOSE lines and an old build in comments are not live) and the table a SQL migration creates
(comments and quoted text are not statements)."""

from __future__ import annotations

import functools
import json
import re
from xml.etree import ElementTree


def exposed_port(text: str) -> int | None:
    """The port of the first live EXPOSE, a `$NAME` or `${NAME}` resolved from the ARG/ENV above it."""
    known: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        setting = re.match(r"(?:ARG|ENV)\s+(\w+)=(\S+)", line)
        if setting:
            known[setting.group(1)] = setting.group(2).strip("\"'")
            continue
        exposed = re.match(r"EXPOSE\s+(\S+)", line)
        if exposed:
            value = exposed.group(1)
            for _ in range(3):  # ENV PORT=${APP_PORT}: one name behind another
                value = re.sub(r"\$\{?(\w+)\}?", lambda m: known.get(m.group(1), m.group(0)), value)
            number = re.match(r"\d+", value)
            return int(number.group(0)) if number else None
    return None


def created_table(text: str) -> str | None:
    """The name of the table the migration's live CREATE TABLE makes (no IF NOT EXISTS, no quotes)."""
    live = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    live = "\n".join(line.split("--", 1)[0] for line in live.splitlines())
    live = re.sub(r"'[^']*'", "''", live)
    made = re.search(r"\bcreate\s+table\s+(?:if\s+not\s+exists\s+)?[\"`]?(\w+)", live, re.I)
    return made.group(1) if made else None


# --- host lists ---------------------------------------------------------------------------------
# seed 23's lists: a runbook (its hosts heading, `## Хосты` or `## Список хостов`, with the hosts as
# code spans in numbered items or table rows, a struck-out row not live), or a plain list whose
# live lines end with a host: alone, after an /etc/hosts address, or before a `# note`

_NAME = re.compile(r"[a-z0-9][a-z0-9.-]*\.[a-z][a-z0-9-]*", re.I)


def listed_hosts(text: str) -> list[str]:
    """The hosts a runbook's hosts section or a plain list names, in order (a repeat kept)."""
    return list(_listed_hosts(text))


@functools.lru_cache(maxsize=1024)  # the solver asks each file of a row again and again
def _listed_hosts(text: str) -> tuple[str, ...]:
    if re.search(r"^## ", text, re.M):
        return tuple(_runbook_hosts(text))
    out = []
    for line in text.split("\n"):
        words = line.split("#", 1)[0].split()
        if words and _NAME.fullmatch(words[-1]):
            out.append(words[-1])
    return tuple(out)


def _runbook_hosts(text: str) -> list[str]:
    out: list[str] = []
    inside = None
    for line in text.split("\n"):
        if line.startswith("## "):
            if inside:
                break
            inside = "хост" in line.lower()
            continue
        item = re.match(r"\s*(?:\d+\. |[-*] |\|)", line)
        if inside and item and "~~" not in line:
            out.extend(re.findall(r"`([^`]+)`", line))
    return out


# --- tickets ------------------------------------------------------------------------------------
# seed 23's trackers: `KEY: title` / `# KEY · title` / `[KEY] title` on the first line, the author
# as `Автор: Name (@login)`, a `| Автор | Name (@login) |` row or `Автор задачи — Name (@login)`,
# and a thread under `## Обсуждение` / `## Комментарии` / `Комментарии:` in three styles

_THREAD = re.compile(r"^(?:#+\s*)?(?:Обсуждение|Комментарии)\s*:?\s*$", re.M)
_COMMENT = re.compile(r"^(?:\*\*[^*\n]+\*\*, \d{4}-\d\d-\d\d|— [^\n(]+ \(\d{4}-\d\d-\d\d\):|\[\d{4}-\d\d-\d\d \d\d:\d\d\] )",
                      re.M)


def _no_html_comments(text: str) -> str:
    return re.sub(r"<!--.*?-->", "", text, flags=re.S)


def ticket_key(text: str) -> str | None:
    """The key on the ticket's title line."""
    first = text.lstrip().split("\n", 1)[0]
    key = re.search(r"\b[A-Z][A-Z0-9]*-\d+\b", first)
    return key.group(0) if key else None


def ticket_author(text: str) -> str | None:
    """The login of the author: the `@login` on the first line that names the author."""
    for line in _no_html_comments(text).splitlines():
        if re.search(r"\bАвтор|\breporter\b", line, re.I):
            login = re.search(r"@([\w.-]*\w)", line)
            if login:
                return login.group(1)
    return None


def ticket_comments(text: str) -> int:
    """How many comments the ticket's thread holds (none when it has no thread)."""
    text = _no_html_comments(text)
    heads = list(_THREAD.finditer(text))
    return len(_COMMENT.findall(text[heads[-1].end():])) if heads else 0


# --- logs and traces ----------------------------------------------------------------------------
# seed 23's logs: `ts=... level=INFO logger=...`, `[ts] [INFO] name - ...`, `date time INFO  name:`
# (the level's case as written); a traceback's lines are not records

_LEVEL = re.compile(r"^(?:ts=\S+\s+level=(\w+)\b|\[[^\]]+\]\s+\[(\w+)\]"
                    r"|(?:\d{4}-\d\d-\d\d|\d\d\.\d\d\.\d{4}) \d\d:\d\d:\d\d\s+([A-Za-z]+)\b)")


def log_levels(text: str) -> list[tuple[int, str]]:
    """(1-based line, level) of each record of a log."""
    return list(_log_levels(text))


@functools.lru_cache(maxsize=1024)
def _log_levels(text: str) -> tuple[tuple[int, str], ...]:
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        m = _LEVEL.match(line)
        if m:
            out.append((n, next(g for g in m.groups() if g)))
    return tuple(out)


def level_count(text: str, level: str) -> int:
    return sum(1 for _, written in log_levels(text) if written == level)


def traces(text: str) -> list[tuple[str, float]]:
    """(trace id, latency ms) of each trace record of a JSON-lines export: `traceId`/`trace_id`/
    `trace` with `durationMs`/`latency_ms` or a `duration` in seconds ("1.575s"); the header
    record (`export`, `schema`) is none."""
    out = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        trace = next((record[k] for k in ("traceId", "trace_id", "trace") if k in record), None)
        if trace is None:
            continue
        if "durationMs" in record or "latency_ms" in record:
            ms = float(record.get("durationMs", record.get("latency_ms")))
        else:
            ms = _duration_ms(str(record.get("duration", "")))
        if ms is not None:
            out.append((str(trace), ms))
    return out


def _duration_ms(value: str) -> float | None:
    m = re.fullmatch(r"\s*([\d.]+)\s*(ms|s)?\s*", value)
    if not m:
        return None
    return float(m.group(1)) * (1 if m.group(2) == "ms" else 1000)


# --- configs ------------------------------------------------------------------------------------

def _unquote(value: str) -> str:
    value = value.strip()
    if value[:1] in "\"'":
        end = value.find(value[0], 1)
        return value[1:end] if end > 0 else value[1:]
    return value.split(" #", 1)[0].strip()


def yaml_value(text: str, key: str) -> str | None:
    """A top-level key's scalar in a block YAML file (a commented-out line is none)."""
    for line in text.splitlines():
        m = re.match(rf"{re.escape(key)}\s*:\s*(\S.*)?$", line)
        if m and m.group(1) and not m.group(1).startswith("#"):
            return _unquote(m.group(1))
    return None


def ini_value(text: str, section: str, key: str) -> str | None:
    """A key of an INI section, the last of a repeated one (`;`/`#` lines are comments)."""
    current, value = None, None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        head = re.fullmatch(r"\[([^\]]+)\]", stripped)
        if head:
            current = head.group(1).strip()
            continue
        m = re.match(r"([^=:]+?)\s*[=:]\s*(.*)$", stripped)
        if current == section and m and m.group(1).lower() == key.lower():
            value = m.group(2).strip()
    return value


def env_variables(text: str) -> int:
    """How many variables an .env file sets, each name once (`export NAME=`, commented ones not)."""
    names = set()
    for line in text.splitlines():
        m = re.match(r"\s*(?:export\s+)?([A-Za-z_]\w*)\s*=", line)
        if m:
            names.add(m.group(1))
    return len(names)


def pom_dependencies(text: str) -> list[tuple[str, str]]:
    """(artifactId, version) of a pom's project <dependencies> in order (a profile's, a plugin's
    and the project's own are not), a `${property}` version resolved from <properties>."""
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError:
        return []
    ns = re.match(r"\{[^}]*\}", root.tag)
    prefix = ns.group(0) if ns else ""
    props = {el.tag.removeprefix(prefix): (el.text or "").strip()
             for el in root.findall(f"{prefix}properties/*")}
    out = []
    for dep in root.findall(f"{prefix}dependencies/{prefix}dependency"):
        artifact = (dep.findtext(f"{prefix}artifactId") or "").strip()
        version = (dep.findtext(f"{prefix}version") or "").strip()
        version = re.sub(r"\$\{([^}]+)\}", lambda m: props.get(m.group(1), m.group(0)), version)
        out.append((artifact, version))
    return out
