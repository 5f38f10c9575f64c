"""The red-team solver's own readers of two file kinds, written from how seed 23's files look:
a Dockerfile's exposed port (a build argument or variable behind `${NAME}`; commented-out
EXPOSE lines and an old build in comments are not live) and the table a SQL migration creates
(comments and quoted text are not statements)."""

from __future__ import annotations

import re


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
