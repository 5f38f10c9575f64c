"""A row's catalog as OpenAI `tools`, and the names sent mapped back to the catalog's.

Each catalog entry becomes a function: its name in the form the APIs accept (`[A-Za-z0-9_-]`, at
most 64 characters: `table.mean` is sent as `table_mean`, a clash gets `_2`), its description
followed by its family and its operational constraints (what the text protocol shows in the
pasted JSON: cost_pick questions turn on a caveat), and its parameters as JSON Schema (type,
description, pattern, minimum, maximum; `required` as the schema's list). Two meta-tools are
offered beside them, `clarify(question)` and `abstain(reason)`: the card's two answers that are
not calls. Neither is a catalog tool, and a catalog tool that would be sent under their names
is renamed instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ALLOWED = re.compile(r"[^A-Za-z0-9_-]")
MAX_NAME = 64
CLARIFY, ABSTAIN = "clarify", "abstain"
META_TOOLS: tuple[dict[str, Any], ...] = (
    {"type": "function", "function": {
        "name": CLARIFY, "description": "Задать пользователю уточняющий вопрос, когда запрос неоднозначен.",
        "parameters": {"type": "object", "properties": {"question": {"type": "string", "description": "вопрос"}},
                       "required": ["question"]}}},
    {"type": "function", "function": {
        "name": ABSTAIN, "description": "Отказаться от выполнения, когда выполнить запрос невозможно.",
        "parameters": {"type": "object", "properties": {"reason": {"type": "string", "description": "причина"}},
                       "required": ["reason"]}}},
)
_SCHEMA_KEYS = ("pattern", "minimum", "maximum", "enum")


@dataclass(frozen=True)
class NativeCatalog:
    """The `tools` a row's requests carry (the catalog's, then the meta-tools), and each catalog
    tool's catalog name by the name it was sent under."""

    tools: tuple[dict[str, Any], ...]
    names: Mapping[str, str]


def api_name(name: str, taken: set[str]) -> str:
    """`name` in the allowed form, unique among `taken` (which it joins)."""
    base = ALLOWED.sub("_", name)[:MAX_NAME] or "tool"
    sent, n = base, 1
    while sent in taken:
        n += 1
        suffix = f"_{n}"
        sent = base[:MAX_NAME - len(suffix)] + suffix
    taken.add(sent)
    return sent


def _parameters(parameters: Any) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required = []
    for pname, spec in (parameters.items() if isinstance(parameters, dict) else ()):
        spec = spec if isinstance(spec, dict) else {}
        prop: dict[str, Any] = {"type": spec.get("type", "string")}
        if isinstance(spec.get("description"), str):
            prop["description"] = spec["description"]
        prop.update({k: spec[k] for k in _SCHEMA_KEYS if k in spec})
        if prop["type"] == "array":
            prop["items"] = {}  # the catalog leaves the items open; the APIs want the key
        properties[pname] = prop
        if spec.get("required") is True:
            required.append(pname)
    return {"type": "object", "properties": properties, "required": required}


def _description(entry: Mapping[str, Any]) -> str:
    parts = [str(entry.get("description") or "").strip()]
    if entry.get("family"):
        parts.append(f"Семейство: {entry['family']}.")
    constraints = entry.get("constraints")
    if isinstance(constraints, dict) and constraints:
        parts.append("Ограничения: " + "; ".join(f"{k}: {v}" for k, v in constraints.items()) + ".")
    return " ".join(p for p in parts if p)


def native_catalog(tools_text: str) -> NativeCatalog:
    """The row's `inputs.tools` as OpenAI tools; entries without a string name are left out (the
    text protocol would show them, but no function can be sent without a name)."""
    try:
        entries = json.loads(tools_text)
    except (ValueError, RecursionError):
        entries = []
    taken = {CLARIFY, ABSTAIN}
    tools, names = [], {}
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        sent = api_name(entry["name"], taken)
        names[sent] = entry["name"]
        tools.append({"type": "function", "function": {"name": sent, "description": _description(entry),
                                                       "parameters": _parameters(entry.get("parameters"))}})
    return NativeCatalog((*tools, *META_TOOLS), names)
