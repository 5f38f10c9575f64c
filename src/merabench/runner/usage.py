"""Token counts are the server's word, not a fact: a count that cannot be right is recorded as
missing, with a note, and never reaches a cost.

A count is kept when it is an integer from 0 to MAX_TOKENS_PER_REQUEST (no model's context holds
more), reasoning tokens are not more than the completion's, and the prompt's count is not more
than its text has UTF-8 bytes, plus TEMPLATE_SLACK_TOKENS for the chat template (every token of a
byte-level or byte-fallback tokenizer covers at least one byte of the text).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from merabench.models.base import Completion

MAX_TOKENS_PER_REQUEST = 10_000_000
TEMPLATE_SLACK_TOKENS = 4096
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
    """The completion, its prompt count dropped (with a note) if the prompt cannot hold that many:
    the messages' text, their tool calls and the tools sent beside them (native tool calling)."""
    count = completion.prompt_tokens
    if count is None or count <= TEMPLATE_SLACK_TOKENS:
        return completion
    size = sum(len(m["content"].encode("utf-8", "surrogatepass")) for m in messages if isinstance(m.get("content"), str))
    calls = [m["tool_calls"] for m in messages if m.get("tool_calls")]
    if tools or calls:
        size += len(json.dumps([list(tools), calls], ensure_ascii=False).encode("utf-8", "surrogatepass"))
    if count <= size + TEMPLATE_SLACK_TOKENS:
        return completion
    problem = f"prompt_tokens {count} is more than a prompt of {size:,} bytes can have"
    note = f"{completion.usage_note}; {problem}" if completion.usage_note else _note([problem])
    return dataclasses.replace(completion, prompt_tokens=None, usage_note=note)


def priced(prompt_tokens: int | None, completion_tokens: int | None) -> bool:
    """Whether an answer's counts can go into a cost (both known)."""
    return prompt_tokens is not None and completion_tokens is not None
