"""The red-team solver's time-out arithmetic, as seed 23's requests say it: the client's own
time-out or a part the request names (the database's, the server's read or idle one, the
cache's), the sum, the longer or the shorter of two parts, then changed: twice, three times, one
and a half, by a quarter, so many seconds or minutes (digits or words, half a minute) more or less."""

from __future__ import annotations

import re

from redteam import layouts

# (v19's seed 23 adds: "приёма запросов", "бездействующих"/"неактивных соединений", "СУБД", "кеширующего слоя")
_PARTS = ((r"баз|субд|\bбд\b", "database", "connect_timeout"), (r"чтени|read|при[её]м\w* запрос", "server", "read_timeout"),
          (r"просто|idle|бездейств|неактивн", "server", "idle_timeout"), (r"кеш", "cache", "timeout"))
_WORDS = {"одну": 1, "один": 1, "две": 2, "два": 2, "три": 3, "пять": 5, "десять": 10, "пятнадцать": 15,
          "двадцать": 20, "тридцать": 30, "сорок": 40, "шестьдесят": 60, "полторы": 1.5}
_TIMES = ((r"вдвое|в два раза|в 2 раза|удво", 2.0), (r"втрое|в три раза|в 3 раза|утро", 3.0),
          (r"вчетверо|в четыре раза|в 4 раза", 4.0), (r"в полтора раза|полтора|в 1[,.]5 раза|наполовину", 1.5))
# "сложи таймауты", "самому длинному из", "более долгий из", "смотря где он короче"
_COMBINE = ((r"сумм\w*|сложи", "sum"), (r"больш\w+ из|длинн\w+ из|долг\w+ из|где он длиннее", "max"),
            (r"меньш\w+ из|коротк\w+ из|где он короче", "min"))
_LESS = r"меньше|уменьш|срежь|сократ|убав"


def _amount(word: str) -> float | None:
    return float(word.replace(",", ".")) if re.fullmatch(r"\d+(?:[.,]\d+)?", word) else _WORDS.get(word)


def _added(q: str) -> float:
    """The seconds the request adds or takes away: "на 20 секунд", "двадцать секунд", "на минуту", "полминуты"."""
    total = 0.0
    if "полминут" in q:
        total += 30
    for word, unit in re.findall(r"([\d.,]+|[а-яё]+)\s*(секунд\w*|сек\b|с\b|минут\w*|мин\b)", q):
        n = _amount(word)
        if n is not None:
            total += n * (60 if unit.startswith("мин") else 1)
    if not total and re.search(r"\bна минуту\b|\bминуту\b", q):
        total = 60
    return total


def asked_timeout(q: str, text: str) -> float | None:
    """The time-out the question means, in seconds, changed as it says."""
    said = sorted((m.start(), section, key) for cue, section, key in _PARTS for m in [re.search(cue, q)] if m)
    parts = list(dict.fromkeys((section, key) for _, section, key in said)) or [("client", "timeout")]
    values = [layouts.section_timeout(text, section, key) for section, key in parts]
    if any(v is None for v in values):
        return None
    how = next((name for cue, name in _COMBINE if re.search(cue, q)), None)
    base = (sum(values) if how == "sum" else max(values) if how == "max" else min(values) if how == "min"
            else values[0])
    rest = q
    for cue, _ in _COMBINE:
        rest = re.sub(cue, " ", rest)
    less = bool(re.search(_LESS, rest))
    factor = next((n for cue, n in _TIMES if re.search(cue, rest)), None)
    if factor is not None:
        base = base / factor if less else base * factor
    elif "четверт" in rest:
        base = base * (0.75 if less else 1.25)
    elif percent := re.search(r"на (\d+)\s*%", rest):  # "на 25 % больше"
        share = int(percent.group(1)) / 100
        base = base * (1 - share if less else 1 + share)
    elif re.search(r"на треть", rest):
        base = base * (2 / 3 if less else 4 / 3)
    added = _added(rest)
    return round(base + (-added if less else added), 3)
