"""Answer normalisation and parsing for GorillaHard, as the public scorer does it (scoring.md).

Normalise: think blocks removed (tags in any case: matched blocks, then an unmatched `<think>`
with all after it, then stray tags), stripped; nothing else, so code fences and prose stay.

Parse: one left-to-right pass finds the balanced top-level `{...}` spans, tracking JSON strings
(and escapes) only inside a span; the first `{` that never closes ends the scan for good. The
chosen object: with one span, that span if it parses to an object (any keys); with several, the
last one that parses to an object holding an envelope marker (`tool`, `abstain`, `plan`,
`calls`, `clarify`, `name`); else none. JSON is read as Python's `json` reads it (NaN accepted,
a raw TAB in a string rejected). Duplicate keys count inside the chosen object only. The text
around the object is cut at the FIRST occurrence of its exact text in the answer.

The emitted kind comes from the chosen object's keys: `abstain` (any value, even `false`) >
`clarify` > `plan` > `calls` > `tool`; the OpenAI shape `{"name", "arguments"}` is a call whose
tool matches nothing; any other object has no kind.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Any

from merabench.support.think import remove_think


class Kind(StrEnum):
    CALL = "call"
    PLAN = "plan"
    CALLS = "calls"
    CLARIFY = "clarify"
    ABSTAIN = "abstain"


#: Top-level keys that make an object a candidate answer when an answer holds several objects.
ENVELOPE_MARKERS = ("tool", "abstain", "plan", "calls", "clarify", "name")
#: Kinds by key, in the order they are tried.
KIND_BY_KEY = (("abstain", Kind.ABSTAIN), ("clarify", Kind.CLARIFY), ("plan", Kind.PLAN),
               ("calls", Kind.CALLS), ("tool", Kind.CALL))


def normalize(answer: str) -> str:
    """The task's answer normalisation: think blocks out, outer whitespace out, nothing else."""
    return remove_think(answer).strip()


def find_spans(text: str) -> list[tuple[int, int]]:
    """Balanced top-level {...} spans, [start, end), in one linear pass."""
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


def loads(blob: str) -> tuple[bool, Any, tuple[str, ...]]:
    """(parsed, value, duplicate keys at any depth) with Python's json rules."""
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


def kind_of(obj: dict[str, Any]) -> Kind | None:
    for key, kind in KIND_BY_KEY:
        if key in obj:
            return kind
    if "name" in obj and "arguments" in obj:
        return Kind.CALL
    return None


@dataclass(frozen=True)
class Parsed:
    text: str                             # the normalised answer
    spans: tuple[tuple[int, int], ...]    # balanced top-level {...} spans
    chosen: tuple[int, int] | None        # the span taken as the answer object
    obj: dict[str, Any] | None            # its value
    duplicate_keys: tuple[str, ...] = ()

    @property
    def kind(self) -> Kind | None:
        return None if self.obj is None else kind_of(self.obj)

    @property
    def is_openai_shape(self) -> bool:
        obj = self.obj
        return obj is not None and self.kind is Kind.CALL and "tool" not in obj

    @property
    def object_text(self) -> str | None:
        return None if self.chosen is None else self.text[self.chosen[0]:self.chosen[1]]

    @cached_property
    def text_around(self) -> str:
        """The text before and after the chosen object (its first occurrence), or the spans."""
        raw = self.object_text
        if raw is not None:
            at = self.text.index(raw)
            return self.text[:at] + self.text[at + len(raw):]
        if self.spans:
            return self.text[:self.spans[0][0]] + self.text[self.spans[-1][1]:]
        return self.text

    @cached_property
    def whole(self) -> tuple[bool, bool]:
        """(the whole answer parses as JSON, and it is an object)."""
        if not self.text:
            return False, False
        ok, value, _ = loads(self.text)
        return ok, ok and isinstance(value, dict)

    def steps(self) -> list[dict[str, Any]]:
        """The calls the answer makes: the object itself for a call, the dict items of a
        plan/calls list (other items are skipped)."""
        kind = self.kind
        if self.obj is None or kind is None:
            return []
        if kind is Kind.CALL:
            return [self.obj]
        if kind in (Kind.PLAN, Kind.CALLS):
            items = self.obj.get(kind.value)
            if isinstance(items, list):
                return [s for s in items if isinstance(s, dict)]
        return []

    def named_tools(self) -> list[Any]:
        """The `tool` value of every step, whatever its type (None for the OpenAI shape)."""
        return [step.get("tool") for step in self.steps()]


def choose(text: str, spans: list[tuple[int, int]]) -> tuple[tuple[int, int] | None, Any, tuple[str, ...]]:
    """The answer object among the spans: (span, value, duplicate keys), or (None, None, ())."""
    candidates = spans if len(spans) == 1 else reversed(spans)
    for start, end in candidates:
        ok, value, duplicates = loads(text[start:end])
        if not ok or not isinstance(value, dict):
            continue
        if len(spans) == 1 or any(key in value for key in ENVELOPE_MARKERS):
            return (start, end), value, duplicates
    return None, None, ()


def parse_answer(answer: str) -> Parsed:
    text = normalize(answer)
    spans = find_spans(text)
    chosen, obj, duplicates = choose(text, spans)
    return Parsed(text, tuple(spans), chosen, obj, duplicates)


def parse_reference(reference: str) -> dict[str, Any] | None:
    """The reference envelope: the stripped `outputs` parsed, if it is an object."""
    text = reference.strip()
    if not text:
        return None
    ok, value, _ = loads(text)
    return value if ok and isinstance(value, dict) else None


def expected_kind(reference: dict[str, Any]) -> Kind:
    """`abstain` must be `true` here (unlike in an answer); then clarify, plan, calls, else a call."""
    if reference.get("abstain") is True:
        return Kind.ABSTAIN
    for key, kind in KIND_BY_KEY[1:4]:
        if key in reference:
            return kind
    return Kind.CALL


def reference_problem(reference: dict[str, Any]) -> str | None:
    """Why a reference envelope cannot be scored (None: it can): every call it expects names its
    tool and gives its arguments as an object (`{"tool": ..., "argz": ...}` is no reference)."""
    kind = expected_kind(reference)
    if kind in (Kind.ABSTAIN, Kind.CLARIFY):
        return None
    steps = [reference] if kind is Kind.CALL else reference[kind.value]
    if not isinstance(steps, list) or not steps:
        return f"'{kind.value}' must be a non-empty list of calls"
    for n, step in enumerate(steps):
        where = "" if kind is Kind.CALL else f"{kind.value}[{n}]: "
        if not isinstance(step, dict) or not isinstance(step.get("tool"), str):
            return f"{where}a call needs a string 'tool'"
        if not isinstance(step.get("args"), dict):
            return f"{where}a call needs its arguments as an object under 'args'"
    return None
