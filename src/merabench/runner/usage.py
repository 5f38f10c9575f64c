"""Token counts are the server's word, not a fact: a count that cannot be right is recorded as
missing, with a note, and never reaches a cost.

A count is kept when it is an integer from 0 to MAX_TOKENS_PER_REQUEST (no model's context holds
more), reasoning tokens are not more than the completion's, and the prompt's count is not more
than its text has UTF-8 bytes, plus TEMPLATE_SLACK_TOKENS for the chat template (every token of a
byte-level or byte-fallback tokenizer covers at least one byte of the text).

An answer from an endpoint whose counts then cannot price it is not free: it is priced by an
estimate from what went and came back (`estimate`), by the same rule turned round: as many tokens
as the prompt has UTF-8 bytes, plus TEMPLATE_TOKENS_PER_MESSAGE for each message's chat-template
markers, and as many completion tokens as the answer, its reasoning and its tool calls have bytes.
It errs high (a token of a byte-level tokenizer covers at least one byte, and today's cover three to
six of Russian or English text), so a --max-cost stops early rather than late; it is recorded beside the counts (`estimated_tokens`),
and results.json says which part of a cost it is.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from merabench.models.base import Completion

MAX_TOKENS_PER_REQUEST = 10_000_000
TEMPLATE_SLACK_TOKENS = 4096
TEMPLATE_TOKENS_PER_MESSAGE = 8  # a chat template's role and markers around a message, in an estimate
FIELDS = ("prompt_tokens", "completion_tokens", "reasoning_tokens")


def _problem(name: str, value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return f"{name} {value!r} is not an integer"
    if value < 0:
        return f"{name} {value} is negative"
    if value > MAX_TOKENS_PER_REQUEST:
        return f"{name} {value} is more than any context holds ({MAX_TOKENS_PER_REQUEST:,})"
    return None


def token_counts(raw: Mapping[str, Any]) -> tuple[dict[str, int | None], str | None]:
    """The counts of a usage record (FIELDS, absent ones None) and a note on those left out."""
    counts: dict[str, int | None] = {}
    problems = []
    for name in FIELDS:
        value = raw.get(name)
        problem = None if value is None else _problem(name, value)
        counts[name] = None if value is None or problem else value
        if problem:
            problems.append(problem)
    reasoning, completion = counts["reasoning_tokens"], counts["completion_tokens"]
    if reasoning is not None and completion is not None and reasoning > completion:
        problems.append(f"reasoning_tokens {reasoning} is more than completion_tokens {completion}")
        counts["reasoning_tokens"] = None
    return counts, _note(problems)


def _note(problems: Sequence[str]) -> str | None:
    return f"token counts recorded as missing: {'; '.join(problems)}" if problems else None


def within_prompt(completion: Completion, messages: Sequence[Mapping[str, Any]],
                  tools: Sequence[Mapping[str, Any]] = ()) -> Completion:
    """The completion with its counts held to what was sent (the messages' text, their tool calls
    and the tools sent beside them): a prompt count the prompt cannot hold is dropped, with a note;
    then an endpoint's answer whose counts cannot price it gets an estimate (`estimate`)."""
    checked = completion
    if completion.prompt_tokens is not None and completion.prompt_tokens > TEMPLATE_SLACK_TOKENS:
        checked = _prompt_checked(completion, sent_bytes(messages, tools))
    if checked.endpoint is None or priced(checked.prompt_tokens, checked.completion_tokens):
        return checked  # priced by its counts, or no endpoint's (a baseline, a batch job's output)
    return dataclasses.replace(checked, estimated_tokens=estimate(checked, sent_bytes(messages, tools), len(messages)))


def sent_bytes(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = ()) -> int:
    """UTF-8 bytes of a request's text: the messages' contents, and their tool calls and the tools
    sent beside them as JSON."""
    size = sum(len(m["content"].encode("utf-8", "surrogatepass")) for m in messages if isinstance(m.get("content"), str))
    calls = [m["tool_calls"] for m in messages if m.get("tool_calls")]
    if tools or calls:
        size += len(json.dumps([list(tools), calls], ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return size


def _prompt_checked(completion: Completion, size: int) -> Completion:
    count = completion.prompt_tokens
    if count is None or count <= size + TEMPLATE_SLACK_TOKENS:
        return completion
    problem = f"prompt_tokens {count} is more than a prompt of {size:,} bytes can have"
    note = f"{completion.usage_note}; {problem}" if completion.usage_note else _note([problem])
    return dataclasses.replace(completion, prompt_tokens=None, usage_note=note)


def estimate(completion: Completion, sent: int, messages: int) -> dict[str, int]:
    """The tokens an answer's cost counts when its counts cannot price it: each usable count as
    it is, the rest from bytes (the module's docstring): `sent` bytes of `messages` messages, and
    what came back."""
    came = [completion.text, completion.reasoning or ""]
    if completion.tool_calls:
        came.append(json.dumps([dict(c) for c in completion.tool_calls], ensure_ascii=False))
    received = sum(len(part.encode("utf-8", "surrogatepass")) for part in came)
    return {"prompt": sent + TEMPLATE_TOKENS_PER_MESSAGE * messages if completion.prompt_tokens is None
            else completion.prompt_tokens,
            "completion": max(1, received) if completion.completion_tokens is None else completion.completion_tokens}


def priced(prompt_tokens: int | None, completion_tokens: int | None) -> bool:
    """Whether an answer's counts can go into a cost (both known)."""
    return prompt_tokens is not None and completion_tokens is not None


def billable_tokens(prompt_tokens: int | None, completion_tokens: int | None,
                    estimated: Mapping[str, int] | None) -> tuple[int, int] | None:
    """The (prompt, completion) tokens an answer's cost counts: its estimate when it has one (its
    counts could not price it), else its counts when both are known; None when it has neither."""
    if estimated is not None:
        return estimated["prompt"], estimated["completion"]
    if priced(prompt_tokens, completion_tokens):
        return prompt_tokens, completion_tokens  # type: ignore[return-value]
    return None
