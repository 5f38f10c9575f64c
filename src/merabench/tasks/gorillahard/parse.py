"""Answer normalisation and parsing for GorillaHard, as the public scorer does it (scoring.md).

Normalise: think blocks removed (matched, then an unmatched `<think>` with all after it, then
stray `</think>`), stripped; nothing else, so code fences stay and are a format error.

Parse: one left-to-right pass finds the balanced top-level `{...}` spans, tracking JSON strings
(and escapes) only inside a span, so braces in string values do not count while quotes in prose
do not confuse the scan. One span: it is the answer. Several: the last one that parses and has an
envelope key (else the last that parses, else the last). JSON is parsed strictly as Python's
`json` does (a raw TAB in a string is invalid; NaN is accepted); duplicate keys at any depth are
tracked. The kind is decided by key, `abstain` > `clarify` > `plan` > `calls`, and any other
object is a call — so `{"abstain": false}` is a refusal and the OpenAI shape
`{"name", "arguments"}` a call whose tool matches nothing (both quirks of the public scorer).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from merabench.think import strip_think


class Kind(StrEnum):
    CALL = "call"
    PLAN = "plan"
    CALLS = "calls"
    CLARIFY = "clarify"
    ABSTAIN = "abstain"


ENVELOPE_KEYS = ("abstain", "clarify", "plan", "calls", "tool")
KIND_BY_KEY = {"abstain": Kind.ABSTAIN, "clarify": Kind.CLARIFY, "plan": Kind.PLAN, "calls": Kind.CALLS}


@dataclass(frozen=True)
class Parsed:
    text: str                         # the normalised answer
    spans: tuple[tuple[int, int], ...]  # balanced top-level {...} spans, [start, end)
    chosen: tuple[int, int] | None    # the span taken as the answer
    value: Any = None                 # its parsed JSON, if it parsed
    parsed: bool = False
    duplicate_keys: tuple[str, ...] = field(default=())

    @property
    def obj(self) -> dict[str, Any] | None:
        return self.value if self.parsed and isinstance(self.value, dict) else None

    @property
    def kind(self) -> Kind | None:
        obj = self.obj
        if obj is None:
            return None
        for key, kind in KIND_BY_KEY.items():
            if key in obj:
                return kind
        return Kind.CALL

    @property
    def is_openai_shape(self) -> bool:
        obj = self.obj
        return obj is not None and "name" in obj and "arguments" in obj and not any(k in obj for k in ENVELOPE_KEYS)


def normalize(answer: str) -> str:
    return strip_think(answer)


def find_spans(text: str) -> list[tuple[int, int]]:
    """Balanced top-level {...} spans in one linear pass."""
    spans = []
    depth = 0
    start = 0
    in_string = escaped = False
    for i, ch in enumerate(text):
        if depth == 0:
            if ch == "{":
                depth, start = 1, i
            continue
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                spans.append((start, i + 1))
    return spans


def _loads(blob: str) -> tuple[bool, Any, tuple[str, ...]]:
    duplicates: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in items:
            if key in seen:
                duplicates.append(key)
            seen[key] = value
        return seen

    try:
        return True, json.loads(blob, object_pairs_hook=pairs), tuple(duplicates)
    except (ValueError, RecursionError):
        return False, None, ()


def parse_answer(answer: str) -> Parsed:
    text = normalize(answer)
    spans = find_spans(text)
    if not spans:
        return Parsed(text, (), None)
    attempts = [(span, *_loads(text[span[0]:span[1]])) for span in spans]
    if len(attempts) == 1:
        chosen = attempts[0]
    else:
        ok = [a for a in attempts if a[1] and isinstance(a[2], dict)]
        with_envelope = [a for a in ok if any(k in a[2] for k in ENVELOPE_KEYS)]
        chosen = (with_envelope or ok or attempts)[-1]
    span, parsed, value, duplicates = chosen
    return Parsed(text, tuple(spans), span, value, parsed, duplicates)
