"""The red-team solver's readers of host inventories, flag files and time-outs, as seed 23's files
write them: an inventory's live records in any layout, a flag's state per environment and the flag
a file describes in given words, a duration in seconds and a section's time-out."""

from __future__ import annotations

import re

from redteam import files as rf

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
    lines = rf.live_lines(text)
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
    n = rf.number(bare)
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
    for line in rf.live_lines(block.group(1)) if block else []:
        if m := re.match(rf"\s*({key}\w*)\s*:\s*(.+)$", line):
            return duration_seconds(m.group(1), m.group(2))
    return None
