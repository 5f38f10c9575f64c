"""The red-team solver's ambiguity detector, as an outsider writes it after reading the dev seed's
clarifications and near misses (never the generator's code): what the request names is looked
for in the files, and where two files, two columns or two environments hold it, the answer is to
ask back; where exactly one does, that one is taken (two files: the other is set aside and the
recipes answer over the one left).

Each rule returns an answer, `{"_narrow": [path]}` (answer over that file alone), or None (not
its kind of request).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from redteam import files as rf
from redteam import rules

_ASK = {"clarify": "Запрос можно понять двояко: уточните, что именно имеется в виду."}
_DATE = re.compile(r"(?<![\d.-])(?:(\d{4})-(\d\d)-(\d\d)|(\d\d)\.(\d\d)(?:\.(\d{4}))?|(\d{1,2})-(?:е|го) числ\w*)(?![\d-])")
_QUOTE = re.compile(r"«([^»]*)»")


def detect(prompt: Any, columns: Mapping[str, str]) -> dict[str, Any] | None:
    if prompt.history:
        return None
    for rule in (_logs_of_the_day, _tables_with_the_column, _values_of_the_service, _figure_twice, _flag_environments,
                 _month_unanchored, _how_many_more):
        found = rule(prompt, columns)
        if found is not None:
            return found
    return None


def _fitting(prompt: Any, paths: list[str], fits: Any) -> dict[str, Any] | None:
    """Ask back over two fitting files, narrow to one, nothing when none fits (or when the
    question picks its file by what it holds: "где строк больше")."""
    if rules.pick_clause(prompt):
        return None
    fitting = [p for p in paths if fits(p)]
    if len(fitting) >= 2:
        return _ASK
    return {"_narrow": fitting} if fitting and len(paths) >= 2 else None


# --- two files that fit ----------------------------------------------------------------------

def _logs_of_the_day(prompt: Any, columns: Mapping[str, str]) -> dict[str, Any] | None:
    logs = [p for p in prompt.files if rf.extension(p) == "log"]
    dates = _DATE.findall(prompt.question)
    if len(logs) < 2 or len(dates) != 1:
        return None
    y1, m1, d1, d2, m2, y2, d3 = dates[0]
    month, day, year = (m1, d1, y1) if y1 else (m2, d2, y2) if d2 else ("", f"{int(d3):02d}", "")
    year, month = year or "[0-9]{4}", month or "[0-9]{2}"  # "14-е число": any month
    stamp = re.compile(f"^{year}-{month}-{day} ", re.M)
    found = _fitting(prompt, logs, lambda p: bool(stamp.search(prompt.files[p])))
    return _log_request(prompt, found["_narrow"][0]) or found if found and found.get("_narrow") else found


def _log_request(prompt: Any, path: str) -> dict[str, Any] | None:
    """What the dev seed's log requests ask of the one log: lines with a quoted phrase, the last n
    lines, or how many lines of a level."""
    q = prompt.question
    quoted, last = _QUOTE.findall(q), re.search(r"последние (\d+) строк", q)
    level = re.search(r"\b(ERROR|WARN|INFO|DEBUG)\b", q)
    op, args = (("grep", {"pattern": quoted[0]}) if quoted else ("tail", {"n": int(last.group(1))}) if last
                else ("count", {"pattern": level.group(1)}) if level and re.search(r"сколько|посчитай", q.lower())
                else (None, {}))
    tool = rules.tool_for(prompt, op) if op else None
    return {"tool": tool.name, "args": {"path": path, **args}} if tool else None


def _tables_with_the_column(prompt: Any, columns: Mapping[str, str]) -> dict[str, Any] | None:
    tables = [p for p in prompt.files if rf.extension(p) in ("csv", "tsv")]
    quoted = _QUOTE.findall(prompt.question)
    if len(tables) < 2 or len(quoted) != 1:
        return None
    wanted = columns.get(quoted[0].lower())
    if wanted is None:
        return None

    def holds(path: str) -> bool:
        t = rf.table(prompt.files[path], path)
        return bool(t and wanted in t.header)
    return _fitting(prompt, tables, holds)


def _values_of_the_service(prompt: Any, columns: Mapping[str, str]) -> dict[str, Any] | None:
    values = [p for p in prompt.files if rf.extension(p) in ("yaml", "yml") and rf.key_value(prompt.files[p], "deployment")]
    if len(values) < 2:
        return None

    def names_it(path: str) -> bool:
        service = rf.key_value(prompt.files[path], "deployment") or ""
        return bool(re.search(rf"(?<![\w-]){re.escape(service)}(?![\w-])", prompt.question))
    return _fitting(prompt, values, names_it)


# --- one file that holds the thing twice -----------------------------------------------------

# the dev seed's figures and their columns' names, and the words that pick one of a pair (the pairs'
# header names read as words: gross is брутто, vat is НДС, feels is по ощущениям)
_FIGURES = {"выручк": "revenue_", "время ответа": "latency_", "вес ": "weight_", "цен": "price_", "температур": "temp_"}
_QUALIFIERS = {"рубл": "_rub", "доллар": "_usd", "p50": "_p50", "50-м": "_p50", "p95": "_p95", "95-м": "_p95",
               "брутто": "_gross", "нетто": "_net", "без ндс": "price_rub", "с ндс": "_vat", "воздух": "_air",
               "ощущени": "_feels"}
_STATS = {"суммарн": "sum", "средн": "mean", "максимал": "max", "минимал": "min", "медиан": "median"}


def _figure_twice(prompt: Any, columns: Mapping[str, str]) -> dict[str, Any] | None:
    if len(prompt.files) != 1:
        return None
    (path, text), = prompt.files.items()
    q = prompt.question.lower()
    prefix = next((p for word, p in _FIGURES.items() if word in q), None)
    t = rf.table(text, path) if rf.extension(path) in ("csv", "tsv") else None
    if prefix is None or t is None:
        return None
    held = [c for c in t.header if c.startswith(prefix)]
    said = [suffix for word, suffix in _QUALIFIERS.items() if word in q and not (word == "с ндс" and "без ндс" in q)]
    chosen = [c for c in held if any(s in c for s in said)] or held
    if len(chosen) >= 2:
        return _ASK
    op = next((op for word, op in _STATS.items() if word in q), None)
    tool = rules.tool_for(prompt, op, rules._STAT_DESC[op]) if op and chosen else None
    return {"tool": tool.name, "args": {"path": path, "column": chosen[0]}} if tool else None


# --- what the request leaves unsaid ----------------------------------------------------------

def _flag_sections(text: str) -> dict[str, set[str]]:
    sections: dict[str, set[str]] = {}
    env = None
    for line in text.splitlines():
        if m := re.match(r"^  (\w+):\s*$", line):
            env = m.group(1)
            sections[env] = set()
        elif env and (m := re.match(r"^    ([\w-]+):\s*$", line)):
            sections[env].add(m.group(1))
    return sections


def _flag_environments(prompt: Any, columns: Mapping[str, str]) -> dict[str, Any] | None:
    if len(prompt.files) != 1:
        return None
    (_, text), = prompt.files.items()
    if "environments:" not in text:
        return None
    sections = _flag_sections(text)
    flag = next((f for env in sections.values() for f in sorted(env)
                 if re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", prompt.question)), None)
    if flag is None:
        return None
    named = [e for e in sections if re.search(rf"\b{e}\b", prompt.question)]
    envs = [e for e in (named or sections) if flag in sections[e]]
    if len(envs) >= 2:
        return _ASK
    q = prompt.question.lower()
    percent = re.search(r"(\d+)\s*%", q)
    op = "rollout" if percent else "disable" if re.search(r"выключ|выруб|отключ|погас", q) else "enable"
    tool = rules.tool_for(prompt, op)
    if tool is None or not envs:
        return None
    args: dict[str, Any] = {"flag": flag, "environment": envs[0]}
    return {"tool": tool.name, "args": {**args, **({"percent": int(percent.group(1))} if percent else {})}}


_MONTHS = ("январ", "феврал", "март", "апрел", "май", "июн", "июл", "август", "сентябр", "октябр", "ноябр", "декабр")
_BACK = (("позапрошл", 2), ("прошл", 1), ("предыдущ", 1), ("минувш", 1), ("этот", 0), ("текущ", 0))


def _month_unanchored(prompt: Any, columns: Mapping[str, str]) -> dict[str, Any] | None:
    q = prompt.question.lower()
    if len(prompt.files) != 1 or not ("месяц" in q or any(re.search(rf"\b{stem}", q) for stem in _MONTHS)):
        return None
    (path, text), = prompt.files.items()
    t = rf.table(text, path) if rf.extension(path) in ("csv", "tsv") else None
    if t is None or "month" not in t.header:
        return None
    named = [n for n, stem in enumerate(_MONTHS, start=1) if re.search(rf"\b{stem}", q)]
    back = next((b for word, b in _BACK if re.search(rf"\b{word}\w* месяц", q)), None)
    months = sorted({r[t.header.index("month")] for r in t.rows})
    if re.search(r"последн\w* месяц|поздн\w* месяц", q):
        value = months[-1]
    elif back is not None and not named:
        return _ASK
    elif named:
        number = named[0] - (back or 0)
        value = next((m for m in months if m.endswith(f"-{number:02d}")), "")
    else:
        return None
    tool = rules.tool_for(prompt, "filter_eq")
    return {"tool": tool.name, "args": {"path": path, "column": "month", "value": value}} if tool and value else None


_NUMBER_WORDS = {"один": 1, "одну": 1, "два": 2, "две": 2, "двух": 2, "три": 3, "трёх": 3, "четыре": 4, "четырёх": 4,
                 "пять": 5, "пяти": 5, "шесть": 6, "шести": 6, "семь": 7, "семи": 7, "восемь": 8, "восьми": 8,
                 "девять": 9, "девяти": 9, "десять": 10, "десяти": 10}
_AMOUNT = r"(\d+|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")\b"


def _amount(said: str) -> int:
    return int(said) if said.isdigit() else _NUMBER_WORDS[said]


def _how_many_more(prompt: Any, columns: Mapping[str, str]) -> dict[str, Any] | None:
    """More or fewer replicas or retries: how many, from the question and the file's live value."""
    q = prompt.question.lower()
    what = "replicas" if "реплик" in q else "retries" if re.search(r"повтор|ретра", q) else None
    up = bool(re.search(r"увелич|подним|добав", q))
    down = bool(re.search(r"уменьш|сократ|убав", q))
    if what is None or up == down or len(prompt.files) != 1:
        return None
    (_, text), = prompt.files.items()
    current = rf.number(rf.key_value(text, what) or "")
    deployment = rf.key_value(text, "deployment")
    if current is None or not deployment:
        return None
    if m := re.search(rf"\bдо {_AMOUNT}", q):
        target = _amount(m.group(1))
    elif m := re.search(rf"\bна {_AMOUNT}", q):
        target = int(current) + _amount(m.group(1)) * (1 if up else -1)
    elif "вдвое" in q:
        target = int(current * 2 if up else current // 2)
    else:
        return _ASK
    if what == "replicas":
        tool = rules.tool_for(prompt, "scale")
        args = {"namespace": rf.key_value(text, "namespace"), "deployment": deployment, "replicas": target}
    else:
        tool = rules.tool_for(prompt, "set_retries")
        args = {"service": deployment, "retries": target}
    return {"tool": tool.name, "args": args} if tool else None
