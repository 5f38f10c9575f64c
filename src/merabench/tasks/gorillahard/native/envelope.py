"""A native conversation's replies mapped back to the card's envelope, for the one scorer.

    no call at all                      the reply's text, read as an envelope (how clarify and abstain
                                        may also be answered; the text mode's parser reads it)
    clarify(question) / abstain(reason) {"clarify": question} / {"abstain": true, "reason": reason}, when
    as the first reply's only call      it is the whole answer (the conversation ends there)
    one call, then no more              {"tool": ..., "args": ...}
    several calls in one reply          {"calls": [...]} (independent: order irrelevant)
    one call a reply, over replies      {"plan": [...]} in the order made; a later step that passes an
                                        earlier result on writes "$1", "$2" as the stubs named them
    several calls in a reply, and more  {"plan": [...]} of every call in order (the card has no plan of
    calls in later replies              parallel groups: scored as a plan, it fails unless that fits)

Names are mapped back to the catalog's; a name not sent (invented) is kept as the model wrote it,
so the scorer counts it outside the catalog; a meta-tool beside other calls, or after one, is such
a name too. Arguments are the JSON object the API's string holds; an object sent as is is taken as
is; a string that is not a JSON object, or one nested deeper than MAX_ARGUMENT_DEPTH levels (as
models/openai_compat.py keeps such objects), is kept as that string (the scorer: args not an object).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from merabench.models.base import MAX_ARGUMENT_DEPTH, Completion
from merabench.rows.jsonio import nested_deeper_than
from merabench.tasks.gorillahard.native.tools import ABSTAIN, CLARIFY

VIA_TEXT, VIA_CALLS = "text", "tool_calls"


def arguments_of(raw: Any) -> Any:
    """A call's arguments as the envelope carries them (see the module's docstring)."""
    if raw is None or raw == "":
        return {}
    if not isinstance(raw, str):
        return raw
    try:
        parsed = json.loads(raw)
    except (ValueError, RecursionError):
        return raw
    return parsed if isinstance(parsed, dict) and not nested_deeper_than(parsed, MAX_ARGUMENT_DEPTH) else raw


def _meta(call: Mapping[str, Any]) -> tuple[dict[str, Any], str] | None:
    args = arguments_of(call.get("arguments"))
    args = args if isinstance(args, dict) else {}
    if call["name"] == CLARIFY:
        return {"clarify": args.get("question", "")}, "clarify tool"
    if call["name"] == ABSTAIN:
        return {"abstain": True, "reason": args.get("reason", "")}, "abstain tool"
    return None


def _step(call: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    return {"tool": names.get(call["name"], call["name"]), "args": arguments_of(call.get("arguments"))}


def envelope_of(replies: Sequence[Completion], names: Mapping[str, str]) -> tuple[str, str]:
    """(the envelope's text, how it was answered): see the module's docstring."""
    turns = [r.tool_calls for r in replies if r.tool_calls]
    if not turns:
        return replies[-1].text, VIA_TEXT
    if len(turns) == 1 and len(turns[0]) == 1 and (meta := _meta(turns[0][0])) is not None:
        envelope, via = meta
    elif len(turns) == 1:
        steps = [_step(c, names) for c in turns[0]]
        envelope = steps[0] if len(steps) == 1 else {"calls": steps}
        via = VIA_CALLS
    else:
        envelope, via = {"plan": [_step(c, names) for calls in turns for c in calls]}, VIA_CALLS
    return json.dumps(envelope, ensure_ascii=False), via
