"""Content matching of a parsed answer against the reference, with named failure reasons.

The verdict is the public scorer's: the kind must match; abstain and clarify by kind alone; a
call: the same `tool` value (as written: case and spaces count) and the same argument names with
equal canonical values (args that are not an object count as `{}`); a plan: the same tools in
order, then every step equal; parallel calls: the same sorted tool names, then the same multiset
of canonical calls. The reasons are ours: short machine-readable strings (`wrong_kind:abstain_for_call`,
`twin_tool`, `extra_arg:filter_value`, `plan_order`, ...) that say why an answer failed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from merabench.tasks.gorillahard.parse import Kind, Parsed
from merabench.tasks.gorillahard.values import args_equal, args_of, canonical, step_key

CALL_KINDS = (Kind.CALL, Kind.PLAN, Kind.CALLS)


class Reason(StrEnum):
    EMPTY_ANSWER = "empty_answer"
    NO_OBJECT = "no_object_found"
    NOT_JSON = "not_json"
    NO_ENVELOPE = "no_envelope"          # objects, but none with an envelope key
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
    """The row's catalog: tool names (as the public scorer reads them) and their families."""

    names: frozenset[Any]
    families: Mapping[str, str] = field(default_factory=dict)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names


@dataclass(frozen=True)
class Verdict:
    kind_correct: bool
    tool_match: bool | None      # None on abstain/clarify rows
    args_match: bool | None
    reasons: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.kind_correct and self.tool_match is not False and self.args_match is not False


def _reference_steps(reference: dict[str, Any], kind: Kind) -> list[dict[str, Any]]:
    steps = reference.get(kind.value)
    return [s if isinstance(s, dict) else {} for s in steps] if isinstance(steps, list) else []


def _tool_reasons(tool: Any, expected: Any, catalog: Catalog) -> list[str]:
    if tool == expected:
        return []
    if tool not in catalog:
        return [reason(Reason.TOOL_NOT_IN_CATALOG)]
    if catalog.families.get(tool) == catalog.families.get(expected):
        return [reason(Reason.TWIN_TOOL)]
    return [reason(Reason.WRONG_TOOL)]


def _arg_reasons(step: dict[str, Any], expected: dict[str, Any], prefix: str = "") -> list[str]:
    args = step.get("args")
    reasons = [] if isinstance(args, dict) else [reason(Reason.ARGS_NOT_OBJECT)]
    args = args_of(step)
    reasons += [reason(Reason.MISSING_ARG, prefix + k) for k in expected if k not in args]
    reasons += [reason(Reason.EXTRA_ARG, prefix + k) for k in args if k not in expected]
    reasons += [reason(Reason.ARG_VALUE, prefix + k) for k in expected
                if k in args and canonical(args[k]) != canonical(expected[k])]
    return reasons


def _call(answer: Parsed, reference: dict[str, Any], kind_correct: bool, catalog: Catalog) -> Verdict:
    got = answer.obj if answer.obj is not None else {}
    want_args = reference.get("args") or {}
    tool_match = kind_correct and got.get("tool") == reference.get("tool")
    args_match = tool_match and isinstance(want_args, dict) and args_equal(args_of(got), want_args)
    reasons: list[str] = []
    if kind_correct and not tool_match:
        reasons = _tool_reasons(got.get("tool"), reference.get("tool"), catalog)
        if answer.is_openai_shape:
            reasons.append(reason(Reason.QUIRK, "openai_shape_counts_as_call"))
    elif tool_match and not args_match and isinstance(want_args, dict):
        reasons = _arg_reasons(got, want_args)
    return Verdict(kind_correct, tool_match, args_match, tuple(reasons))


def _plan(answer: Parsed, reference: dict[str, Any], kind_correct: bool, catalog: Catalog) -> Verdict:
    want = _reference_steps(reference, Kind.PLAN)
    got = answer.steps() if kind_correct else []
    tools = (kind_correct and len(got) == len(want)
             and all(g.get("tool") == w.get("tool") for g, w in zip(got, want, strict=False)))
    args = tools and all(args_equal(args_of(g), args_of(w)) for g, w in zip(got, want, strict=False))
    reasons: list[str] = []
    if kind_correct and not args:
        if len(got) != len(want):
            reasons = [reason(Reason.PLAN_LENGTH)]
        elif Counter(map(step_key, got)) == Counter(map(step_key, want)):
            reasons = [reason(Reason.PLAN_ORDER)]
        else:
            for i, (g, w) in enumerate(zip(got, want, strict=True), start=1):
                reasons += (_tool_reasons(g.get("tool"), w.get("tool"), catalog)
                            or _arg_reasons(g, args_of(w), f"step{i}."))
    return Verdict(kind_correct, tools, args, tuple(reasons))


def _calls(answer: Parsed, reference: dict[str, Any], kind_correct: bool) -> Verdict:
    want = _reference_steps(reference, Kind.CALLS)
    got = answer.steps() if kind_correct else []
    tools = kind_correct and sorted(str(s.get("tool")) for s in got) == sorted(str(s.get("tool")) for s in want)
    args = tools and sorted(map(step_key, got)) == sorted(map(step_key, want))
    reasons: list[str] = []
    if kind_correct and not args:
        missing = Counter(map(step_key, want)) - Counter(map(step_key, got))
        extra = Counter(map(step_key, got)) - Counter(map(step_key, want))
        tool_of = {step_key(s): str(s.get("tool")) for s in want + got}
        reasons = ([reason(Reason.CALLS_MISSING, tool_of[k]) for k in missing.elements()]
                   + [reason(Reason.CALLS_EXTRA, tool_of[k]) for k in extra.elements()])
    return Verdict(kind_correct, tools, args, tuple(reasons))


def judge_content(answer: Parsed, reference: dict[str, Any], expected: Kind, catalog: Catalog) -> Verdict:
    """The public scorer's content verdict for one answer, with our reasons."""
    got = answer.kind
    kind_correct = got is expected
    if not kind_correct and got is not None:
        wrong = [reason(Reason.WRONG_KIND, f"{got.value}_for_{expected.value}")]
        if got is Kind.ABSTAIN and answer.obj is not None and answer.obj.get("abstain") is not True:
            wrong.append(reason(Reason.QUIRK, "abstain_key_not_true_counts_as_refusal"))
    else:
        wrong = []
    if expected in (Kind.ABSTAIN, Kind.CLARIFY):
        return Verdict(kind_correct, None, None, tuple(wrong))
    if expected is Kind.CALL:
        verdict = _call(answer, reference, kind_correct, catalog)
    elif expected is Kind.PLAN:
        verdict = _plan(answer, reference, kind_correct, catalog)
    else:
        verdict = _calls(answer, reference, kind_correct)
    return Verdict(verdict.kind_correct, verdict.tool_match, verdict.args_match, tuple(wrong) + verdict.reasons)
