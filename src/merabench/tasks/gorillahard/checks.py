"""The nine format checks of GorillaHard, the same for every kind of answer (scoring.md)."""

from __future__ import annotations

import json
from typing import Any

from merabench.tasks.gorillahard.parse import Kind, Parsed

CHECKS = ("json_parsable", "exactly_one_object", "top_level_is_object", "no_text_around", "single_line",
          "no_code_fence", "no_duplicate_keys", "keys_exact", "value_types")

KEYS_BY_KIND = {Kind.CALL: {"tool", "args"}, Kind.ABSTAIN: {"abstain", "reason"}, Kind.PLAN: {"plan"},
                Kind.CALLS: {"calls"}, Kind.CLARIFY: {"clarify"}}


def _nonempty_str(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _is_step(step: Any) -> bool:
    return (isinstance(step, dict) and set(step) == {"tool", "args"} and _nonempty_str(step["tool"])
            and isinstance(step["args"], dict))


def value_types_ok(obj: dict[str, Any], kind: Kind) -> bool:
    if kind is Kind.CALL:
        return _nonempty_str(obj.get("tool")) and isinstance(obj.get("args"), dict)
    if kind is Kind.ABSTAIN:
        return obj.get("abstain") is True and _nonempty_str(obj.get("reason"))
    if kind is Kind.CLARIFY:
        return _nonempty_str(obj.get("clarify"))
    steps = obj.get(kind.value)
    return isinstance(steps, list) and len(steps) >= 2 and all(_is_step(s) for s in steps)


def _whole_text_is_other_json(text: str) -> bool:
    """`[{...}]` or `"{...}"`: the answer is JSON, but its top level is not an object."""
    if not text or text[0] not in '["0123456789-tfn':
        return False
    try:
        return not isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def format_checks(parsed: Parsed) -> dict[str, bool]:
    text, obj, kind = parsed.text, parsed.obj, parsed.kind
    chosen = parsed.chosen
    return {
        "json_parsable": parsed.parsed,
        "exactly_one_object": len(parsed.spans) == 1,
        "top_level_is_object": obj is not None and not _whole_text_is_other_json(text),
        "no_text_around": chosen is not None and chosen == (0, len(text)),
        "single_line": bool(text) and "\n" not in text and "\r" not in text,
        "no_code_fence": "```" not in text and "~~~" not in text,
        "no_duplicate_keys": parsed.parsed and not parsed.duplicate_keys,
        "keys_exact": obj is not None and kind is not None and set(obj) == KEYS_BY_KIND[kind],
        "value_types": obj is not None and kind is not None and value_types_ok(obj, kind),
    }
