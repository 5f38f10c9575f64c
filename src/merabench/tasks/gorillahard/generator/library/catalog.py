"""Per-question tool catalogs: 14-22 tools, the reference tools, their twin and the tools the
question is about, filled up from the library; the reference's family always has another member
there, and the reference lands at a uniformly random place (mean relative position 0.5)."""

from __future__ import annotations

import json
import random
from typing import Any

from merabench.tasks.gorillahard.generator.library.tools import NOT_FILLERS, TOOLS, family_of
from merabench.tasks.gorillahard.generator.model import Question, reference_tools

MIN_TOOLS, MAX_TOOLS = 14, 22
_LIBRARY_ORDER = sorted(TOOLS)


def build_catalog(question: Question, rng: random.Random, size: int | None = None) -> list[dict[str, Any]]:
    """`size` tools (drawn in MIN_TOOLS..MAX_TOOLS when not given), more if the question needs more."""
    needed = list(dict.fromkeys(reference_tools(question.reference) + [question.twin, *question.extra_tools]))
    # every size in the range, the larger ones more often (catalogs and files bring prompts to the card's lengths)
    size = round(rng.triangular(MIN_TOOLS, MAX_TOOLS, MAX_TOOLS)) if size is None else size
    excluded = {*needed, *question.withheld}
    # an alias or a decoy stands only where a refusal's question asks for it (never a filler)
    pool = [name for name in _LIBRARY_ORDER if name not in excluded and name not in NOT_FILLERS]
    # no reference tool is its family's only member: add a relative wherever one is missing
    kin: list[str] = []
    for tool in reference_tools(question.reference):
        family = family_of(tool)
        if sum(family_of(name) == family for name in needed + kin) < 2:
            relatives = [name for name in pool if family_of(name) == family and name not in kin]
            kin += [rng.choice(relatives)] if relatives else []
    others = [name for name in pool if name not in kin]
    # drawn, not the whole library shuffled: a catalog takes a few of its 186 tools
    chosen = needed + kin + rng.sample(others, min(len(others), max(0, size - len(needed) - len(kin))))
    references = reference_tools(question.reference)
    rest = [name for name in chosen if name not in references]
    rng.shuffle(rest)
    # the first reference tool goes to a uniformly drawn slot: no positional bias
    slot = rng.randint(0, len(rest))
    ordered = rest[:slot] + list(dict.fromkeys(references)) + rest[slot:]
    return [TOOLS[name] for name in ordered]


_TOOL_JSON: dict[str, str] = {}  # a tool's name (the library's or a provider's) always lists the same tool


def _tool_json(tool: dict[str, Any]) -> str:
    text = _TOOL_JSON.get(tool["name"])
    if text is None:
        text = _TOOL_JSON[tool["name"]] = json.dumps(tool, ensure_ascii=False)
    return text


def catalog_json(catalog: list[dict[str, Any]]) -> str:
    """json.dumps(catalog, ensure_ascii=False), joined from each tool's text (written once)."""
    return "[" + ", ".join(_tool_json(tool) for tool in catalog) + "]"


def catalog_chars(catalog: list[dict[str, Any]]) -> int:
    """len(catalog_json(catalog)), from each tool's length."""
    return 2 + sum(len(_tool_json(tool)) for tool in catalog) + 2 * max(0, len(catalog) - 1)


def relative_position(catalog_names: list[str], tool: str) -> float:
    if len(catalog_names) < 2:
        return 0.5
    return catalog_names.index(tool) / (len(catalog_names) - 1)
