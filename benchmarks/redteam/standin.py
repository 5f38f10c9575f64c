"""The red-team solver's stand-ins for an operation the catalog lacks: a dev recipe of the same
arguments whose tool the catalog has, when the question says that tool's description, its dev
question was near, or the dev set's near misses served the operation under that tool's name."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from redteam.clauses import pick_clause

SIBLING_SHARE = 0.6  # how much of a stand-in tool's description the question must say
SIBLING_NEAR = 0.45  # or how similar its dev question must be


def _stems(text: str) -> set[str]:
    return {w[:4] for w in re.findall(r"[а-яёa-z]{3,}", text.lower())}


def sibling(prompt: Any, index: Any, best: int, skip: frozenset[int],
            near: Mapping[int, float], apply: Callable[[dict[str, Any]], dict[str, Any] | None]) -> dict[str, Any] | None:
    """The nearest recipe names a tool this catalog lacks: a recipe of the same arguments whose
    tool the catalog has stands in when the question says its description nearly word for word
    ("удали A-запись" and "Удаляет A-запись") or its own question was near this one (the same
    request served by another name: "untag" for "delete_tag"); else it is a refusal."""
    shape = [sorted(st["args"]) for st in index.recipes[best]["steps"]]
    asked = _stems(pick_clause(prompt) and prompt.question.replace(pick_clause(prompt), " ")
                   or prompt.question)
    offered = {t.op: t for t in prompt.tools}
    known_as = aliases(index, skip).get(index.recipes[best]["steps"][0]["op"], set()) if index.recipes[best]["steps"] else set()
    options = []
    for n, recipe in enumerate(index.recipes):
        if n in skip or recipe["kind"] != index.recipes[best]["kind"] or [sorted(st["args"]) for st in recipe["steps"]] != shape:
            continue
        tools = [offered.get(st["op"]) for st in recipe["steps"]]
        if any(t is None for t in tools):
            continue
        said = _stems(" ".join(t.description for t in tools if t))
        named = _stems(" ".join(t.op.replace("_", " ") for t in tools if t))
        share = max(len(said & asked) / max(1, len(said)), len(named & asked) / max(1, len(named)))
        if share >= SIBLING_SHARE or near.get(n, 0.0) >= SIBLING_NEAR or \
                (recipe["steps"] and recipe["steps"][0]["op"] in known_as):
            options.append((share, json.dumps(recipe["steps"], sort_keys=True), recipe))
    if not options:
        return None
    options.sort(key=lambda o: (-o[0], o[1]))
    answer = apply(options[0][2])
    return answer if answer is not None and "abstain" not in answer else None


def aliases(index: Any, skip: frozenset[int] = frozenset()) -> dict[str, set[str]]:
    """Operations the dev set served under another name: a near-miss call whose nearest ordinary
    call of the same arguments names another operation (`untag` where `delete_tag` was asked), a
    name no ordinary call uses; only what recipes outside `skip` show."""
    out: dict[str, set[str]] = defaultdict(set)
    for (asked, alias), support in _alias_support(index).items():
        if any(n not in skip and i not in skip for n, i in support):
            out[asked].add(alias)
    return dict(out)


_SUPPORT: dict[int, dict[tuple[str, str], list[tuple[int, int]]]] = {}


def _alias_support(index: Any) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """(asked operation, alias) -> the (near miss, ordinary call) recipe pairs that show it, once
    per index (`index`: the dev recipes and their `ranked` similarity search)."""
    if id(index) in _SUPPORT:
        return _SUPPORT[id(index)]
    recipes = index.recipes
    shape = [json.dumps([r["kind"], [sorted(st["args"]) for st in r["steps"]]]) for r in recipes]
    ordinary = {st["op"] for r in recipes if r.get("lever") != "near_miss" for st in r["steps"]}
    found: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for n, recipe in enumerate(recipes):
        if recipe.get("lever") != "near_miss" or recipe["kind"] != "call" or recipe["steps"][0]["op"] in ordinary:
            continue
        for score, i in index.ranked(recipe["words"][:recipe.get("asked", len(recipe["words"]))], frozenset({n})):
            other = recipes[i]
            if other.get("lever") == "near_miss" or shape[i] != shape[n] or score < 0.3:
                continue
            found[(other["steps"][0]["op"], recipe["steps"][0]["op"])].append((n, i))
            break
    _SUPPORT[id(index)] = dict(found)
    return _SUPPORT[id(index)]


