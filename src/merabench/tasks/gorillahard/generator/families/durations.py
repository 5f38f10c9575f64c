"""A client time-out as configs write it: in milliseconds or seconds by the key's suffix, by the
value's unit (1500ms, 1.5s, 2m30s, PT1M30S), or by a comment beside a bare number («# сек»);
with an old value commented out above it, and time-outs of other parts of the service nearby."""

from __future__ import annotations

import random
import re

from merabench.tasks.gorillahard.generator.wording import surface

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


def notations(ms: int, key: str = "timeout") -> list[tuple[str, str]]:
    """(key, value as written) pairs that all mean `ms` milliseconds, for a key named `key`."""
    s = f"{ms / 1000:g}"
    found = [(f"{key}_ms", str(ms)), (key, f"{ms}ms"), (key, f"{s}s"), (f"{key}_s", s),
             (f"{key}_seconds", s), (key, f'"{_go(ms)}"'), (key, f'"{_iso(ms)}"'),
             (key, f"{s}  # сек"), (key, f"{ms}  # мс"), (key, f"{s}  # в секундах")]
    if ms % 30000 == 0:
        found.append((f"{key}_min", f"{ms / 60000:g}"))
    return found


# the other parts of a service whose time-outs a values file may hold: (section, key)
PARTS = {"database": ("database", "connect_timeout"), "server_read": ("server", "read_timeout"),
         "server_idle": ("server", "idle_timeout"), "cache": ("cache", "timeout")}


def _written(rng: random.Random, indent: str, key: str, ms: int) -> str:
    name, value = rng.choice(notations(ms, key))
    return f"{indent}{name}: {value}"


def client_timeout(rng: random.Random, text: str) -> tuple[str, dict[str, int]] | None:
    """The values file with its client's `timeout_ms` line rewritten in a notation drawn for the
    row (maybe under an old value commented out) and, before the client, other parts of the
    service with time-outs of their own in notations of their own: the text and {part: ms}
    ("client", "database", "server_read", "server_idle", "cache"); None when the file has no
    client time-out line."""
    found = re.search(r"^client:\n((?:[ \t]+.*\n)*?)([ \t]+)timeout_ms: \d+\n", text, re.M)
    if found is None:
        return None
    indent = found.group(2)
    values = {"client": rng.choice(MILLISECONDS)}
    old = ""
    if rng.random() < 0.5:
        stale = rng.choice([m for m in MILLISECONDS if m != values["client"]])
        note = rng.choice(["до инцидента", "старое значение", "было до нагрузочного теста"])
        old = f"{indent}# {_written(rng, '', 'timeout', stale).split('  #')[0]}  # {note}\n"
    start, end = found.start(), found.end()
    rewritten = text[:start] + "client:\n" + found.group(1) + old + _written(rng, indent, "timeout", values["client"]) \
        + "\n" + text[end:]
    sections = []
    for section in rng.sample(("database", "server", "cache"), rng.randint(1, 3)):
        lines = [f"{section}:"]
        for part, (owner, key) in PARTS.items():
            if owner == section:
                values[part] = rng.choice([m for m in MILLISECONDS if m not in values.values()])
                lines.append(_written(rng, indent, key, values[part]))
        lines.append(f"{indent}{ {'database': 'pool', 'server': 'workers', 'cache': 'ttl_s'}[section] }: {rng.randint(2, 60)}")
        sections.append("\n".join(lines) + "\n")
    above = rewritten[:start].split("\n")[:-1]  # the comments documenting `client:` stay with it
    while above and above[-1].startswith("#"):
        above.pop()
    cut = len("\n".join(above)) + 1 if above else 0
    return rewritten[:cut] + "".join(sections) + rewritten[cut:], values


# how a question names each part's time-out (after "как у …")
# (each set says each part, change and combination in a share of its pool's wordings: `surface`)
SOURCES = {"client": ("у самого клиента", "у клиента в файле", "сейчас у клиента по файлу", "у клиента в конфиге"),
           "database": ("у подключения к базе", "у соединения с базой данных", "у коннекта к БД",
                        "у установки соединения с БД", "у подключения к СУБД", "у коннекта к базе данных"),
           "server_read": ("у чтения запросов на сервере", "у чтения запроса сервером", "у приёма запросов сервером",
                           "у сервера на приём запроса", "у серверного приёма запросов", "у приёма запроса на сервере"),
           "server_idle": ("у простоя соединений на сервере", "у простоя соединения с сервером",
                           "у бездействующих соединений на сервере", "у неактивного соединения с сервером",
                           "у бездействия соединения на сервере", "у неактивных соединений сервера"),
           "cache": ("у обращений к кешу", "у кеша", "у запросов в кеш", "у кеширующего слоя", "у похода в кеш",
                     "у обращения к кешу")}
# a change to the figure: (wording, multiplier, seconds added: "+"/"-" the row's n, or a number of its own)
MODIFIERS: tuple[tuple[str, float, int | str], ...] = ((", только вдвое больше", 2, 0), (", но в два раза больше", 2, 0), (", но в полтора раза больше", 1.5, 0),
             (", плюс {n} с запаса", 1, "+"), (", но на {n} секунд больше", 1, "+"), (", но на {n} секунд меньше", 1, "-"),
             (", но втрое больше", 3, 0), (", только вдвое меньше", 0.5, 0), (", но на четверть больше", 1.25, 0),
             (", но на четверть меньше", 0.75, 0), (", плюс ещё полминуты", 1, 30), (", но на минуту больше", 1, 60),
             (", но на {w} секунд больше", 1, "+"), (", только на {w} секунд меньше", 1, "-"),
             (", но в 2 раза длиннее", 2, 0), (", только наполовину больше", 1.5, 0), (", но в 1,5 раза длиннее", 1.5, 0),
             (", но в три раза длиннее", 3, 0), (", только наполовину меньше", 0.5, 0), (", но на 25 % больше", 1.25, 0),
             (", но на 25 % меньше", 0.75, 0), (", но на тридцать секунд больше", 1, 30),
             (", но на 60 секунд больше", 1, 60), (", но на одну минуту больше", 1, 60),
             (", и ещё {n} с сверху", 1, "+"), (", но на {n} с больше", 1, "+"), (", только на {n} с меньше", 1, "-"))
# the row's n in words (a modifier's {w})
IN_WORDS = {5: "пять", 10: "десять", 15: "пятнадцать", 20: "двадцать"}
# how a question names a part's time-out in the genitive (after "сумме таймаутов …")
GENITIVE = {"database": ("подключения к базе", "соединения с базой данных", "коннекта к БД",
                         "установки соединения с БД", "подключения к СУБД", "коннекта к базе данных"),
            "server_read": ("чтения запросов на сервере", "приёма запросов сервером", "приёма запроса на сервере",
                            "серверного приёма запросов"),
            "server_idle": ("простоя соединений на сервере", "бездействующих соединений на сервере",
                            "неактивных соединений сервера", "бездействия соединения на сервере"),
            "cache": ("обращений к кешу", "кеша", "запросов в кеш", "кеширующего слоя", "походов в кеш",
                      "обращения к кешу")}
# the client's time-out out of two other parts': (how, wordings with {a} {b} in the genitive and {mod})
COMBINED = {"max": ("Выставь клиенту сервиса таймаут, равный большему из таймаутов {a} и {b}{mod}.",
                    "таймаут клиента сделай как у {a} или у {b} — смотря где он длиннее{mod}",
                    "Выставь клиенту сервиса таймаут, равный самому длинному из таймаутов {a} и {b}{mod}.",
                    "Возьми таймауты {a} и {b}, выбери из них тот, что дольше, и поставь клиенту сервиса его{mod}.",
                    "Пусть клиент сервиса ждёт столько же, сколько длится более долгий из таймаутов {a} и {b}{mod}."),
            "min": ("Выставь клиенту сервиса таймаут, равный меньшему из таймаутов {a} и {b}{mod}.",
                    "Нужен таймаут клиента как у {a} или у {b} — смотря где он короче{mod}; настрой, пожалуйста.",
                    "Выставь клиенту сервиса таймаут, равный самому короткому из таймаутов {a} и {b}{mod}.",
                    "Возьми таймауты {a} и {b}, выбери из них тот, что короче, и поставь клиенту сервиса его{mod}.",
                    "Пусть клиент сервиса ждёт столько же, сколько длится более короткий из таймаутов {a} и {b}{mod}."),
            "sum": ("Задай клиенту сервиса таймаут, равный сумме таймаутов {a} и {b}{mod}.",
                    "Пусть таймаут клиента будет суммой таймаутов {a} и {b}{mod}; выставь.",
                    "Сложи таймауты {a} и {b} и поставь клиенту сервиса столько{mod}.",
                    "Пусть клиент сервиса ждёт столько, сколько таймауты {a} и {b} вместе взятые{mod}.",
                    "Выставь клиенту сервиса таймаут, равный таймаутам {a} и {b}, сложенным вместе{mod}.")}
# the same with a change said as a comparison (not "равный большему …, но на четверть больше"): {change}
# a modifier's comparative ("на четверть больше", "вдвое меньше")
COMPARED = {"max": "Выставь клиенту сервиса таймаут {change}, чем больший из таймаутов {a} и {b}.",
            "min": "Выставь клиенту сервиса таймаут {change}, чем меньший из таймаутов {a} и {b}.",
            "sum": "Задай клиенту сервиса таймаут {change}, чем сумма таймаутов {a} и {b}."}


def combined_question(rng: random.Random, how: str, a: str, b: str, mod: str) -> str:
    """The question asking for two parts' time-outs combined (`a`, `b` in the genitive; one "на
    сервере" for two of the server's), changed by `mod` (a modifier's wording or "")."""
    if a.endswith(" на сервере") and b.endswith(" на сервере"):
        a = a.removesuffix(" на сервере")
    comparative = re.fullmatch(r", (?:но|только) (.+(?:больше|меньше|длиннее))", mod)
    if comparative:
        return COMPARED[how].format(change=comparative.group(1), a=a, b=b)
    return surface.choose(rng, COMBINED[how], f"combined:{how}").format(a=a, b=b, mod=mod)


def changed(ms: int, factor: float, how: int | str, n: int) -> float | None:
    """`ms` changed by a modifier, in seconds (None when the change leaves a fraction of a millisecond or
    under a second)."""
    scaled = ms * factor
    if scaled != int(scaled):
        return None
    added = how if isinstance(how, int) else {"+": n, "-": -n}[how]
    seconds = (int(scaled) + 1000 * added) / 1000
    return seconds if seconds >= 1 else None


# --- the validator's reading of a question: which parts, combined how, changed how ----------

_WORD_NUMBERS = {w: n for n, w in IN_WORDS.items()} | {"тридцать": 30}


def asked_change(q: str) -> tuple[float, int]:
    """(multiplier, seconds added) a lowered question asks for; (1, 0) when it asks for none."""
    less = re.search(r"меньше\b|уменьш|срежь|сократ|убав|урежь|ужми", q) is not None
    factor: float = 1
    if re.search(r"втрое|в три раза|утро[ий]", q):
        factor = 3
    elif re.search(r"вдвое|в два раза|в 2 раза|удво", q):
        factor = 0.5 if less else 2
    elif re.search(r"полтора|1,5 раза", q):
        factor = 1.5
    elif "наполовину" in q:
        factor = 0.5 if less else 1.5
    elif re.search(r"на четверть|на 25 %", q):
        factor = 0.75 if less else 1.25
    added = re.search(r"(\d+|" + "|".join(_WORD_NUMBERS) + r")\s*(?:секунд|с\b)", q)
    seconds = 0
    if added:
        seconds = int(_WORD_NUMBERS.get(added.group(1), added.group(1)))
    elif "полминуты" in q:
        seconds = 30
    elif re.search(r"на (?:одну )?минуту", q):
        seconds = 60
    return factor, -seconds if less and seconds else seconds


def asked_combination(q: str) -> str | None:
    """How a lowered question combines two parts' time-outs: "sum", "max", "min", or None."""
    if re.search(r"сумм\w* таймаутов|сложи таймауты|вместе взятые|сложенным вместе", q):
        return "sum"
    if re.search(r"больш(?:ему|ий) из таймаутов|где он длиннее|самому длинному из|тот, что дольше|более долгий из", q):
        return "max"
    # not a lead-in's "Короче,"
    if re.search(r"меньш(?:ему|ий) из таймаутов|где он короче|самому короткому из|тот, что короче|более короткий из", q):
        return "min"
    return None


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


def read_timeout(text: str, section: str, key: str) -> float | None:
    """A part's live time-out in seconds: the `key…` line under `section:`, comments skipped."""
    block = re.search(rf"^{section}:\n((?:[ \t]+.*\n?)*)", text, re.M)
    if block is None:
        return None
    for line in block.group(1).split("\n"):
        if m := re.match(rf"^\s+({key}\w*):\s*(.+)$", line):
            return seconds_in(m.group(1), m.group(2))
    return None
