"""The red-team solver's replica counts a request works out over the attached files: the active
servers of one rack or of two (a named server's rack), below or above a CPU or memory threshold;
the hosts of a runbook, so many replicas a host and so many spares."""

from __future__ import annotations

import re
from typing import Any

from redteam import files as rf

_SMALL = {"одн": 1, "один": 1, "две": 2, "два": 2, "три": 3, "четыр": 4, "пят": 5, "шест": 6}
_TIMES = {"вдвое": 2, "втрое": 3, "вчетверо": 4, "впятеро": 5}
_SMALL_RE = r"\d+|одн\w*|один|две|два|три|четыр\w*|пят\w*|шест\w*"


def small_number(word: str) -> int | None:
    """A count as a request writes it: digits or a small number in words ("две", "одну")."""
    if word.isdigit():
        return int(word)
    return next((n for stem, n in _SMALL.items() if word.startswith(stem)), None)


def _servers(prompt: Any) -> list[dict[str, str]]:
    for path, text in prompt.files.items():
        table = rf.table(text, path)
        if table and "host" in table.header and "status" in table.header and "rack" in table.header:
            return table.records()
    return []


def _threshold(q: str, cue: str) -> tuple[str, float] | None:
    """("<", 50) for "по процессору меньше чем на 50%", (">=", 32) for "с памятью от 32 ГБ"."""
    said = re.search(rf"{cue}\w*\s+((?:не\s+)?(?:меньше|больше|ниже|выше|до|от|менее|более))\D{{0,12}}?(\d+(?:[.,]\d+)?)", q)
    if not said:
        return None
    word, n = said.group(1), float(said.group(2).replace(",", "."))
    below = re.search(r"меньше|ниже|менее|до", word)
    if word.startswith("не"):
        return (">=" if below else "<="), n
    if word == "от":
        return ">=", n
    if word == "до":
        return "<=", n
    return ("<" if below else ">"), n


def _meets(value: float | None, test: tuple[str, float] | None) -> bool:
    if test is None:
        return True
    if value is None:
        return False
    op, n = test
    return {"<": value < n, "<=": value <= n, ">": value > n, ">=": value >= n}[op]


def by_servers(q: str, prompt: Any) -> int | None:
    """Active servers of the racks the request names (or of a named server's rack), kept by its thresholds."""
    records = _servers(prompt)
    if not records or "актив" not in q:
        return None
    named = re.search(r"(?:где|котор\w+)\s+стоит\s+(srv-\d+)", q)
    if named:
        racks = {r.get("rack", "").lower() for r in records if r.get("host") == named.group(1)}
    else:
        racks = set(re.findall(r"\b(r\d+)\b", " ".join(re.findall(r"сто(?:йк|ек)\w*\s+(?:r\d+(?:\s*(?:и|,)\s*)?)+", q))))
    if not racks:
        return None
    cpu, ram = _threshold(q, "процессор"), _threshold(q, "памят")
    return sum(1 for r in records if r.get("rack", "").lower() in racks and r.get("status") == "active"
               and _meets(rf.number(r.get("cpu_pct", "")), cpu) and _meets(rf.number(r.get("ram_gb", "")), ram))


def by_hosts(q: str, hosts: int) -> int:
    """So many replicas per listed host ("по две реплики на каждый хост", "втрое больше, чем хостов"),
    and so many spares ("на две больше", "и ещё две про запас")."""
    per = re.search(rf"по\s+({_SMALL_RE})\s+реплик\w*\s+на\s+(?:каждый\s+)?хост|на каждый хост[^.—]*?по\s+({_SMALL_RE})", q)
    times = next((n for word, n in _TIMES.items() if word in q), None)
    factor = small_number(per.group(1) or per.group(2)) if per else times
    spare = re.search(rf"на\s+({_SMALL_RE})\s+больше|ещё\s+({_SMALL_RE})\s+(?:реплик\w*\s+)?про запас", q)
    extra = small_number(spare.group(1) or spare.group(2)) if spare else None
    return hosts * (factor or 1) + (extra or 0)
