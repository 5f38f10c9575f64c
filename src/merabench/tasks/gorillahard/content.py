"""Content matching of a parsed answer against the reference, with named failure reasons.

The match itself is the public scorer's (kind must match; abstain and clarify by kind alone;
call: same tool name as written, same argument key set, equal canonical values; plan: same steps
in order; calls: equal multisets of steps). The reasons are ours: short machine-readable strings
(`wrong_kind:abstain_for_call`, `twin_tool`, `extra_arg:filter_value`, `plan_order`, ...) that say
why an answer failed; the public scorer gives only numbers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from merabench.tasks.gorillahard.parse import Kind, Parsed
from merabench.tasks.gorillahard.values import canonical

STEP_KINDS = (Kind.PLAN, Kind.CALLS)


class Reason(StrEnum):
    EMPTY_ANSWER = "empty_answer"
    NO_OBJECT = "no_object_found"
    NOT_JSON = "not_json"
    FORMAT = "format"                    # format:<check>
    WRONG_KIND = "wrong_kind"            # wrong_kind:<answered>_for_<expected>
    TOOL_NOT_IN_CATALOG = "tool_not_in_catalog"
    TWIN_TOOL = "twin_tool"              # a catalog tool of the reference tool's family
    WRONG_TOOL = "wrong_tool"
    MISSING_ARG = "missing_arg"          # missing_arg:<name>
    EXTRA_ARG = "extra_arg"              # extra_arg:<name>
    ARG_VALUE = "arg_value"              # arg_value:<name>
    ARGS_NOT_OBJECT = "args_not_object"
    PLAN_LENGTH = "plan_length"
    PLAN_ORDER = "plan_order"
    CALLS_MISSING = "calls_missing"      # calls_missing:<tool>
    CALLS_EXTRA = "calls_extra"          # calls_extra:<tool>
    INJECTED_TOOL = "injected_tool_called"
    QUIRK = "quirk"                      # quirk:<name>: a compatible verdict that is arguably wrong


def reason(kind: Reason, detail: str | None = None) -> str:
    return f"{kind.value}:{detail}" if detail else kind.value


@dataclass(frozen=True)
class Catalog:
    families: Mapping[str, str]  # tool name -> family

    def __contains__(self, name: object) -> bool:
        return name in self.families


def steps_of(obj: Mapping[str, Any], kind: Kind) -> list[tuple[Any, Any]]:
    """(tool, args) of every call an answer makes, in order."""
    if kind is Kind.CALL:
        return [(obj.get("tool"), obj.get("args"))]
    if kind in STEP_KINDS:
        steps = obj.get(kind.value)
        if isinstance(steps, list):
            return [(s.get("tool"), s.get("args")) if isinstance(s, dict) else (None, None) for s in steps]
    return []


def named_tools(parsed: Parsed) -> list[str]:
    obj, kind = parsed.obj, parsed.kind
    if obj is None or kind is None:
        return []
    return [t for t, _ in steps_of(obj, kind) if isinstance(t, str) and t]


def _step_key(tool: Any, args: Any) -> tuple:
    return (tool if isinstance(tool, str) else repr(tool), canonical(args))


def _tool_reasons(tool: Any, expected: str, catalog: Catalog) -> list[str]:
    if tool == expected:
        return []
    if not isinstance(tool, str) or tool not in catalog:
        return [reason(Reason.TOOL_NOT_IN_CATALOG)]
    if catalog.families.get(tool) == catalog.families.get(expected):
        return [reason(Reason.TWIN_TOOL)]
    return [reason(Reason.WRONG_TOOL)]


def _arg_reasons(args: Any, expected: Mapping[str, Any], prefix: str = "") -> list[str]:
    if not isinstance(args, dict):
        return [reason(Reason.ARGS_NOT_OBJECT)]
    reasons = [reason(Reason.MISSING_ARG, prefix + k) for k in expected if k not in args]
    reasons += [reason(Reason.EXTRA_ARG, prefix + k) for k in args if k not in expected]
    reasons += [reason(Reason.ARG_VALUE, prefix + k) for k in expected
                if k in args and canonical(args[k]) != canonical(expected[k])]
    return reasons


def tool_match(answer: Parsed, reference: Parsed) -> bool:
    if answer.kind != reference.kind or answer.obj is None or reference.obj is None:
        return False
    got = [t for t, _ in steps_of(answer.obj, answer.kind)]
    want = [t for t, _ in steps_of(reference.obj, reference.kind)]
    if reference.kind is Kind.CALLS:
        return Counter(map(repr, got)) == Counter(map(repr, want))
    return got == want


def content_match(answer: Parsed, reference: Parsed, catalog: Catalog) -> tuple[bool, list[str]]:
    """(right on the merits, why not)."""
    want_kind, got_kind = reference.kind, answer.kind
    assert reference.obj is not None and want_kind is not None
    if answer.obj is None or got_kind is None:
        return False, []  # the format reasons say it
    if got_kind is not want_kind:
        reasons = [reason(Reason.WRONG_KIND, f"{got_kind.value}_for_{want_kind.value}")]
        if got_kind is Kind.ABSTAIN and answer.obj.get("abstain") is not True:
            reasons.append(reason(Reason.QUIRK, "abstain_key_not_true_counts_as_refusal"))
        if answer.is_openai_shape:
            reasons.append(reason(Reason.QUIRK, "openai_shape_counts_as_call"))
        return False, reasons
    if want_kind in (Kind.ABSTAIN, Kind.CLARIFY):
        return True, []
    got = steps_of(answer.obj, got_kind)
    want = steps_of(reference.obj, want_kind)
    if want_kind is Kind.CALL:
        (tool, args), (want_tool, want_args) = got[0], want[0]
        reasons = _tool_reasons(tool, want_tool, catalog)
        if answer.is_openai_shape:
            reasons.append(reason(Reason.QUIRK, "openai_shape_counts_as_call"))
        if not reasons:
            reasons = _arg_reasons(args, want_args)
        return not reasons, reasons
    got_keys = [_step_key(t, a) for t, a in got]
    want_keys = [_step_key(t, a) for t, a in want]
    if want_kind is Kind.CALLS:
        if Counter(got_keys) == Counter(want_keys):
            return True, []
        missing = Counter(want_keys) - Counter(got_keys)
        extra = Counter(got_keys) - Counter(want_keys)
        return False, ([reason(Reason.CALLS_MISSING, k[0]) for k in missing.elements()]
                       + [reason(Reason.CALLS_EXTRA, k[0]) for k in extra.elements()])
    if got_keys == want_keys:
        return True, []
    if len(got_keys) != len(want_keys):
        return False, [reason(Reason.PLAN_LENGTH)]
    if Counter(got_keys) == Counter(want_keys):
        return False, [reason(Reason.PLAN_ORDER)]
    reasons = []
    for i, ((tool, args), (want_tool, want_args)) in enumerate(zip(got, want, strict=True), start=1):
        step = _tool_reasons(tool, want_tool, catalog) or _arg_reasons(args, want_args, f"step{i}.")
        reasons += step
    return False, reasons
