"""A native tool-calling conversation: one row's requests, until the model stops calling tools.

The model is sent the tools with each request. A reply with tool calls is answered with a stub
result per call that names that step's result ("$1" for the first call, "$2" for the next, ...),
so a model that passes a result on to a later step writes "$1" there, as the text protocol's
plans do; then the model is asked again. The conversation ends at a reply without calls (its text
is the last word), at a call to one of the spec's `ends_on` tools (clarify, abstain: nothing is
left to run), or after `max_replies` replies. Every request goes through the backend as any other
(its retries, the endpoint pool, the run's `may_send`: a run stopped mid-conversation leaves the
row unasked, and the rerun asks it from the start). The result is one Completion: the text the
spec's `finish` maps the replies to, the token counts and attempts summed, the reasoning of every
reply kept apart, and the replies themselves in `exchange` (what the samples file and the report
show).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from merabench.models.base import Backend, Completion, Request, ToolSpec
from merabench.models.tool_wire import arguments_text, stub_result
from merabench.models.usage import billable_tokens, within_prompt
from merabench.rows.prompts import Message


def call_message(reply: Completion, first_step: int, used: set[str]) -> Message:
    """The assistant's turn as the next request replays it: its text and its calls, each with an
    id: the server's, or one made for it when it gave none or one already used in the conversation
    (a tool result must name the one call it answers)."""
    calls = []
    for n, call in enumerate(reply.tool_calls):
        given = call.get("id")
        made = given if isinstance(given, str) and given and given not in used else f"call_{first_step + n}"
        used.add(made)
        calls.append({"id": made, "type": "function",
                      "function": {"name": call["name"], "arguments": arguments_text(call.get("arguments"))}})
    return {"role": "assistant", "content": reply.text, "tool_calls": calls}


def _sum(values: Sequence[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _reply_record(reply: Completion) -> dict[str, Any]:
    out: dict[str, Any] = {"content": reply.text, "tool_calls": [dict(c) for c in reply.tool_calls]}
    if reply.finish_reason is not None:
        out["finish_reason"] = reply.finish_reason
    return out


def joined(replies: Sequence[Completion], spec: ToolSpec, started: float) -> Completion:
    """The conversation as one Completion (see the module's docstring)."""
    text, via = spec.finish(replies)
    reasoning = [r.reasoning for r in replies if r.reasoning]
    last = replies[-1]
    return Completion(
        text=text, prompt_tokens=_sum([r.prompt_tokens for r in replies]),
        completion_tokens=_sum([r.completion_tokens for r in replies]), finish_reason=last.finish_reason,
        latency_s=time.monotonic() - started, endpoint=last.endpoint, attempts=sum(r.attempts for r in replies),
        reasoning="\n\n".join(reasoning) if reasoning else None,
        reasoning_tokens=_sum([r.reasoning_tokens for r in replies]),
        usage_note=next((r.usage_note for r in replies if r.usage_note), None),
        exchange={"via": via, "requests": len(replies), "replies": [_reply_record(r) for r in replies]},
        estimated_tokens=_estimated(replies))


def _estimated(replies: Sequence[Completion]) -> dict[str, int] | None:
    """The conversation's tokens as its cost counts them, when a reply's counts could not price it:
    each reply's counts or estimate, summed (the partial sums of the counts would price it low);
    None when every reply's counts price it."""
    if all(r.estimated_tokens is None for r in replies):
        return None
    bills = [billable_tokens(r.prompt_tokens, r.completion_tokens, r.estimated_tokens) for r in replies]
    known = [b for b in bills if b is not None]  # every reply came from an endpoint: all are known
    return {"prompt": sum(p for p, _ in known), "completion": sum(c for _, c in known)}


async def converse(backend: Backend, messages: Sequence[Message], spec: ToolSpec,
                   may_send: Callable[[], bool], seed_offset: int = 0) -> Completion:
    """Ask until the conversation ends (see the module's docstring); raises what the backend
    raises (BackendError: the row fails; NotSent: it stays unasked)."""
    started = time.monotonic()
    history = list(messages)
    replies: list[Completion] = []
    step, used = 0, set[str]()
    while len(replies) < spec.max_replies:
        reply = await backend.generate(Request(tuple(history), spec.tools, may_send, seed_offset))
        replies.append(within_prompt(reply, history, spec.tools))  # each request's count, checked against it
        if not reply.tool_calls or any(c["name"] in spec.ends_on for c in reply.tool_calls):
            break
        turn = call_message(reply, step + 1, used)
        history.append(turn)
        for call in turn["tool_calls"]:
            step += 1
            history.append({"role": "tool", "tool_call_id": call["id"], "content": stub_result(step)})
    return joined(replies, spec, started)
