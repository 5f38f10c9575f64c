"""The red-team solver's reading of the catalog: the tool for a recipe's operation under any
provider (the live one before a deprecated twin), the column statistic or switch the question's
own word names, the side of a same-capability pair the question's priority names, and the
limits a call's values must keep."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from redteam import files as rf


def tool_for(prompt: Any, op: str, desc: str = "") -> rf.Tool | None:
    """The catalog's tool for a recipe's operation: the same operation name under any provider,
    told from other families' tools of that name (`flags.get`, `cache.get`) by its description;
    the live one before a deprecated twin."""
    same = [t for t in prompt.tools if t.op == op]
    if not same and op in _STAT_WORDS:  # a column statistic another provider words otherwise: its question words
        same = [t for t in prompt.tools if "column" in t.params and re.search(_STAT_WORDS[op], t.description.lower())]
        desc = ""
    if desc and same:
        mine = set(re.findall(r"\w{3,}", desc.lower()))

        def overlap(tool: rf.Tool) -> float:
            theirs = set(re.findall(r"\w{3,}", tool.description.lower()))
            return len(mine & theirs) / max(1, len(mine | theirs))
        told = [t for t in same if t.description == desc] or [t for t in same if overlap(t) >= 0.5]
        if not told and len({t.family for t in same}) == 1:
            told = same  # another provider's words for it: one family holds the operation
        elif not told:  # several families hold it: the one whose stems the recipe's description shares
            best = max(same, key=lambda t: len(rf.stems_of(desc) & rf.stems_of(t.description)))
            told = [best] if rf.stems_of(desc) & rf.stems_of(best.description) else []
        same = told
    live = [t for t in same if not t.deprecated]
    return (live or same or [None])[0]


_STATISTICS = (("median", r"медиан"), ("max", r"максим|наибольш|сам\w+ больш|наивысш"),
               ("min", r"миним|наименьш|сам\w+ маленьк|сам\w+ меньш"), ("mean", r"средн"), ("sum", r"сумм|итог"))
_STAT_WORDS = dict(_STATISTICS)
_STAT_DESC = {"median": "Медиана числового столбца таблицы.", "max": "Максимум числового столбца таблицы.",
              "min": "Минимум числового столбца таблицы.", "mean": "Среднее арифметическое числового столбца таблицы.",
              "sum": "Сумма значений числового столбца таблицы."}


def statistic(op: str, desc: str, question: str) -> tuple[str, str]:
    """A column statistic is the one the question's own word names, whatever the neighbour's was;
    so is switching on or off."""
    if op in ("enable", "disable"):
        q = question.lower()
        # the verb asked, not a state the question mentions ("включи там, где он выключен")
        if re.search(r"(?<!вы)(?<!от)включ(?:и|ите|ить)\b", q) and not re.search(r"(?:вы|от)ключ(?:и|ите|ить)\b", q):
            return "enable", ""
        if re.search(r"(?:вы|от)ключ(?:и|ите|ить)\b|погас|выруб|\boff\b|деактивир", q):
            return "disable", ""
        # (v19's seed 23: "доведи … до включённого состояния там, где он отключён", "активируй")
        if re.search(r"до включённого|(?<!де)активируй", q):
            return "enable", ""
        if re.search(r"выключ|отключ", q):
            return "disable", ""
        if re.search(r"(?<!вы)(?<!от)включ|\bon\b", q):
            return "enable", ""
        return op, desc
    if op not in _STAT_DESC:
        return op, desc
    q = question.lower()
    for name, pattern in _STATISTICS:
        if re.search(pattern, q):
            return name, _STAT_DESC[name]
    return op, desc


_CHEAP = re.compile(r"дёшев|дешев|сэконом|недорог|экономн|подешевле|бюджет (?:огранич|мал|скром)")
_QUALITY = re.compile(r"точн|кажд\w* (?:фраз|слов)|не ограничен|сразу|срочн|немедленн|без задерж|в любой момент")


def cost_pick(prompt: Any, tool: rf.Tool | None) -> rf.Tool | None:
    """Of a same-capability pair (one description, a caveat apart: cheap or dear), the side the
    question's priority names."""
    if tool is None:
        return None
    twins = [t for t in prompt.tools if t.description == tool.description and t.name != tool.name
             and t.name.split(".", 1)[0] == tool.name.split(".", 1)[0]]
    if not twins:
        return tool
    q = prompt.question.lower()
    wants = "Дёшево" if _CHEAP.search(q) and not _QUALITY.search(q) else ("Дорого" if _QUALITY.search(q) else None)
    if wants is None:
        return tool
    for candidate in [tool, *twins]:
        if wants in candidate.limits:
            return candidate
    return tool


def within_limits(tool: rf.Tool, args: Mapping[str, Any]) -> str | None:
    for name, value in args.items():
        spec = tool.params.get(name) if isinstance(tool.params, Mapping) else None
        if not isinstance(spec, Mapping) or isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            if "maximum" in spec and value > spec["maximum"]:
                return f"{name} = {value} больше допустимого {tool.name} ({spec['maximum']})"
            if "minimum" in spec and value < spec["minimum"]:
                return f"{name} = {value} меньше допустимого {tool.name} ({spec['minimum']})"
        if isinstance(value, str) and "pattern" in spec and value != "$1":
            try:
                if not re.search(spec["pattern"], value):
                    return f"{name} не подходит {tool.name}"
            except re.error:
                pass
    return None
