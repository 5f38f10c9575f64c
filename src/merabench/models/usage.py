"""Token counts are the server's word, not a fact: a count that cannot be right is recorded as
missing, with a note, and never reaches a cost.

A count is kept when it is an integer from 0 to MAX_TOKENS_PER_REQUEST (no model's context holds
more), reasoning tokens are not more than the completion's, and it fits the bytes it counts
(`held_to_bytes`): the prompt's count is not more than its text has UTF-8 bytes, plus
TEMPLATE_SLACK_TOKENS for the chat template (every token of a byte-level or byte-fallback
tokenizer covers at least one byte of the text), and neither the prompt's nor the completion's is
fewer than their bytes over MAX_BYTES_PER_TOKEN (vocabularies' longest tokens are runs of spaces
or punctuation; SmolLM2's is 81 bytes, a newline and 80 spaces): 0 tokens for a text that is not
empty cannot be.

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
#: the most bytes of text one token covers: a count under a text's bytes over this cannot be right.
#: Vocabularies' longest tokens are runs of spaces or punctuation (SmolLM2's: 81 bytes); real text
#: is 3 to 6 bytes a token, so only a count far below the truth is refused
MAX_BYTES_PER_TOKEN = 128
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


def usage_counts(usage: Any) -> tuple[dict[str, int | None], str | None]:
    """The counts of a reply's `usage` (`token_counts`). No usage, or null, has none and no note;
    a usage that is not an object (`"usage": "a"`) has none, with a note: the answer is kept."""
    if usage is None:
        return token_counts({})
    if not isinstance(usage, dict):
        return token_counts({})[0], _note([f"usage {repr(usage)[:40]} is not an object"])
    details = usage.get("completion_tokens_details")
    return token_counts({"prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": usage.get("completion_tokens"),
                         "reasoning_tokens": details.get("reasoning_tokens") if isinstance(details, dict) else None})


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
    and the tools sent beside them) and received (`held_to_bytes`); then an endpoint's answer whose
    counts cannot price it gets an estimate (`estimate`)."""
    sent, received = sent_bytes(messages, tools), received_bytes(completion)
    checked = held_to_bytes(completion, sent, received)
    if checked.endpoint is None or priced(checked.prompt_tokens, checked.completion_tokens):
        return checked  # priced by its counts, or no endpoint's (a baseline, a batch job's output)
    return dataclasses.replace(checked, estimated_tokens=estimate(checked, sent + TEMPLATE_TOKENS_PER_MESSAGE
                                                                  * len(messages), received))


def sent_bytes(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = ()) -> int:
    """UTF-8 bytes of a request's text: the messages' contents, and their tool calls and the tools
    sent beside them as JSON."""
    size = sum(len(m["content"].encode("utf-8", "surrogatepass")) for m in messages if isinstance(m.get("content"), str))
    calls = [m["tool_calls"] for m in messages if m.get("tool_calls")]
    if tools or calls:
        size += len(json.dumps([list(tools), calls], ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return size


def received_bytes(completion: Completion) -> int:
    """UTF-8 bytes of what came back: the answer, its reasoning and its tool calls (as JSON)."""
    came = [completion.text, completion.reasoning or ""]
    if completion.tool_calls:
        came.append(json.dumps([dict(c) for c in completion.tool_calls], ensure_ascii=False))
    return sum(len(part.encode("utf-8", "surrogatepass")) for part in came)


def held_to_bytes(completion: Completion, sent: int, received: int) -> Completion:
    """The completion with each count its bytes rule out dropped, and said in its note: the
    prompt's held to the `sent` bytes, the completion's to the `received` ones."""
    prompt = _bytes_problem("prompt_tokens", completion.prompt_tokens, "a prompt", sent, TEMPLATE_SLACK_TOKENS)
    answer = _bytes_problem("completion_tokens", completion.completion_tokens, "an answer", received, None)
    problems = [p for p in (prompt, answer) if p]
    if not problems:
        return completion
    note = "; ".join([completion.usage_note, *problems]) if completion.usage_note else _note(problems)
    return dataclasses.replace(completion, usage_note=note,
                               prompt_tokens=None if prompt else completion.prompt_tokens,
                               completion_tokens=None if answer else completion.completion_tokens)


def _bytes_problem(name: str, count: int | None, text: str, size: int, slack: int | None) -> str | None:
    """Why `count` tokens cannot be `size` bytes of `text`: fewer than `fewest_tokens`, or (with
    a `slack` for the chat template's own tokens) more than the bytes, since a token covers at
    least one; None when it can."""
    if count is None:
        return None
    if slack is not None and count > size + slack:
        return f"{name} {count} is more than {text} of {size:,} bytes can have"
    if count < fewest_tokens(size):
        return (f"{name} {count} is fewer than {text} of {size:,} bytes can have (a token covers at most "
                f"{MAX_BYTES_PER_TOKEN} bytes)")
    return None


def fewest_tokens(size: int) -> int:
    """The fewest tokens `size` bytes of text can be: one per MAX_BYTES_PER_TOKEN, rounded up."""
    return -(-size // MAX_BYTES_PER_TOKEN)


def estimate(completion: Completion, sent: int, received: int) -> dict[str, int]:
    """The tokens an answer's cost counts when its counts cannot price it: each usable count as
    it is, the rest from bytes (the module's docstring): `sent`, the prompt's bytes with its
    messages' template markers, and `received`, what came back."""
    return {"prompt": sent if completion.prompt_tokens is None else completion.prompt_tokens,
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
    if prompt_tokens is not None and completion_tokens is not None:  # priced()
        return prompt_tokens, completion_tokens
    return None
