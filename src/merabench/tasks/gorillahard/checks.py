"""The nine format checks of GorillaHard, the same for every kind of answer (scoring.md).

The kind an answer is judged as is the kind it emitted, else the kind the reference expects,
else a call: a refusal where a call was due is a content error, never a format error too.
"""

from __future__ import annotations

from typing import Any

from merabench.tasks.gorillahard.parse import Kind, Parsed

CHECKS = ("json_parsable", "exactly_one_object", "top_level_is_object", "no_text_around", "single_line",
          "no_code_fence", "no_duplicate_keys", "keys_exact", "value_types")

KEYS_BY_KIND = {Kind.CALL: {"tool", "args"}, Kind.ABSTAIN: {"abstain", "reason"}, Kind.PLAN: {"plan"},
                Kind.CALLS: {"calls"}, Kind.CLARIFY: {"clarify"}}


def _nonblank(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _is_step(step: Any) -> bool:
    return (isinstance(step, dict) and set(step) == {"tool", "args"} and _nonblank(step["tool"])
            and isinstance(step["args"], dict))


def value_types_ok(obj: dict[str, Any], kind: Kind) -> bool:
    if kind is Kind.CALL:
        return _nonblank(obj.get("tool")) and isinstance(obj.get("args"), dict)
    if kind is Kind.ABSTAIN:
        return obj.get("abstain") is True and _nonblank(obj.get("reason"))
    if kind is Kind.CLARIFY:
        return _nonblank(obj.get("clarify"))
    steps = obj.get(kind.value)
    return isinstance(steps, list) and len(steps) >= 2 and all(_is_step(s) for s in steps)


def judged_kind(parsed: Parsed, expected: Kind | None) -> Kind:
    return parsed.kind or expected or Kind.CALL


def format_checks(parsed: Parsed, expected: Kind | None) -> dict[str, bool]:
    text, obj = parsed.text, parsed.obj
    kind = judged_kind(parsed, expected)
    whole_parses, whole_is_object = parsed.whole
    scope = parsed.object_text if parsed.object_text is not None else text
    return {
        "json_parsable": obj is not None,
        "exactly_one_object": len(parsed.spans) == 1,
        "top_level_is_object": whole_is_object if whole_parses else obj is not None,
        "no_text_around": obj is not None and not parsed.text_around.strip(),
        "single_line": "\n" not in scope and "\r" not in scope,
        "no_code_fence": "```" not in text and "~~~" not in text,
        "no_duplicate_keys": not parsed.duplicate_keys,
        "keys_exact": obj is not None and set(obj) == KEYS_BY_KIND[kind],
        "value_types": obj is not None and value_types_ok(obj, kind),
    }
