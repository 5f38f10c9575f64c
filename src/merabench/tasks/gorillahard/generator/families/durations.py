"""A client time-out as configs write it: in milliseconds or seconds by the key's suffix, by the
value's unit (1500ms, 1.5s, 2m30s, PT1M30S), or by a comment beside a bare number («# сек»);
with an old value commented out above it, and time-outs of other parts of the service nearby."""

from __future__ import annotations

import random
import re

MILLISECONDS = (750, 1500, 2500, 4000, 5400, 12500, 30000, 45000, 90000, 150000)


def _go(ms: int) -> str:
    """A Go-style duration: 1m30s, 45s, 1.5s, 750ms."""
    if ms < 1000:
        return f"{ms}ms"
    minutes, rest = divmod(ms, 60000)
    seconds = f"{rest / 1000:g}s" if rest else ""
    return f"{minutes}m{seconds}" if minutes else seconds


def _iso(ms: int) -> str:
    minutes, rest = divmod(ms, 60000)
    return "PT" + (f"{minutes}M" if minutes else "") + (f"{rest / 1000:g}S" if rest else "")


def notations(ms: int) -> list[tuple[str, str]]:
    """(key, value as written) pairs that all mean `ms` milliseconds."""
    s = f"{ms / 1000:g}"
    found = [("timeout_ms", str(ms)), ("timeout", f"{ms}ms"), ("timeout", f"{s}s"), ("timeout_s", s),
             ("timeout_seconds", s), ("timeout", f'"{_go(ms)}"'), ("timeout", f'"{_iso(ms)}"'),
             ("timeout", f"{s}  # сек"), ("timeout", f"{ms}  # мс"), ("timeout", f"{s}  # в секундах")]
    if ms % 30000 == 0:
        found.append(("timeout_min", f"{ms / 60000:g}"))
    return found


_OTHERS = ("server:\n  idle_timeout: {a}s\n  read_timeout: {b}s\n", "database:\n  connect_timeout: {a}s\n  pool: {b}\n",
           "cache:\n  timeout_ms: {c}\n  ttl_s: {b}\n")


def client_timeout(rng: random.Random, text: str) -> tuple[str, int, str] | None:
    """The values file with its client's `timeout_ms` line rewritten in a notation drawn for the
    row (maybe under an old value commented out, maybe after another part's time-outs): the text,
    the time-out in milliseconds and the line as written; None when the file has no such line."""
    found = re.search(r"^client:\n((?:[ \t]+.*\n)*?)([ \t]+)timeout_ms: \d+\n", text, re.M)
    if found is None:
        return None
    ms = rng.choice(MILLISECONDS)
    key, value = rng.choice(notations(ms))
    indent = found.group(2)
    line = f"{indent}{key}: {value}"
    old = ""
    if rng.random() < 0.5:
        stale = rng.choice([m for m in MILLISECONDS if m != ms])
        old_key, old_value = rng.choice(notations(stale))
        old = f"{indent}# {old_key}: {old_value.split('  #')[0]}  # {rng.choice(['до инцидента', 'старое значение', 'было до нагрузочного теста'])}\n"
    start, end = found.start(), found.end()
    rewritten = text[:start] + "client:\n" + found.group(1) + old + line + "\n" + text[end:]
    if rng.random() < 0.6:  # another part of the service has time-outs of its own
        other = rng.choice(_OTHERS).format(a=rng.randint(5, 120), b=rng.randint(2, 60), c=rng.choice(MILLISECONDS))
        above = rewritten[:start].split("\n")[:-1]  # the comments documenting `client:` stay with it
        while above and above[-1].startswith("#"):
            above.pop()
        cut = len("\n".join(above)) + 1 if above else 0
        rewritten = rewritten[:cut] + other + rewritten[cut:]
    return rewritten, ms, line.strip()


# --- the validator's reading -----------------------------------------------------------------

_UNIT = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}


def seconds_in(key: str, value: str) -> float | None:
    """A time-out line's value in seconds, read from the key's suffix, the value's unit or the comment."""
    bare, _, comment = value.partition("#")
    bare = bare.strip().strip('"')
    if m := re.fullmatch(r"PT(?:(\d+)M)?(?:([\d.]+)S)?", bare):
        return int(m.group(1) or 0) * 60 + float(m.group(2) or 0)
    if re.fullmatch(r"(?:\d+(?:\.\d+)?(?:ms|s|m|h))+", bare):
        return sum(float(n) * _UNIT[u] for n, u in re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", bare))
    if not re.fullmatch(r"\d+(?:\.\d+)?", bare):
        return None
    number = float(bare)
    if key.endswith("_ms") or "мс" in comment:
        return number / 1000
    if key.endswith("_min"):
        return number * 60
    if key.endswith(("_s", "_seconds")) or "сек" in comment:
        return number
    return None


def read_client_timeout(text: str) -> float | None:
    """The client's live time-out in seconds: the `timeout…` key under `client:`, comments skipped."""
    block = re.search(r"^client:\n((?:[ \t]+.*\n?)*)", text, re.M)
    if block is None:
        return None
    for line in block.group(1).split("\n"):
        if m := re.match(r"^\s+(timeout\w*):\s*(.+)$", line):
            return seconds_in(m.group(1), m.group(2))
    return None
