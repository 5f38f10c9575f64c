"""Request bodies per API profile, and what a server's refusals teach about it.

    chat              max_tokens, temperature (0 unless set), seed and stop when set: what vLLM,
                      SGLang, llama.cpp and most hosted chat APIs take
    openai-reasoning  max_completion_tokens, no temperature or stop unless set, reasoning_effort:
                      what hosted reasoning models take (they reject max_tokens and temperature)
    auto              chat, until a 400 names a parameter the server does not support: then that
                      parameter is renamed (max_tokens -> max_completion_tokens) or dropped, the
                      request is sent again, and every later request goes out the same way; the
                      changes chain (max_tokens, then temperature, then stop, ...), and a request
                      already in flight when one was learnt is sent again in the new shape

`--drop-param NAME` removes a field from every request, whatever the profile. What `auto` learned
is reported (results.json `settings.adaptations`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from merabench.models.base import GenerationOptions

RENAMES = {"max_tokens": "max_completion_tokens"}
PROTECTED = frozenset({"model", "messages", "tools", "tool_choice"})  # never dropped: the request would mean another thing
_REFUSAL_WORDS = ("unsupported", "not supported", "unrecognized", "unknown", "does not support", "not allowed",
                  "extra inputs", "not permitted", "invalid parameter", "only the default")


class ApiProfile(StrEnum):
    CHAT = "chat"
    REASONING = "openai-reasoning"
    AUTO = "auto"


@dataclass
class RequestShaper:
    profile: ApiProfile = ApiProfile.CHAT
    drop: frozenset[str] = frozenset()
    learned: dict[str, str | None] = field(default_factory=dict)   # parameter -> its new name, or None: dropped

    def body(self, model: str, messages: list[Any], options: GenerationOptions) -> dict[str, Any]:
        body: dict[str, Any] = {"model": model, "messages": messages}
        if self.profile is ApiProfile.REASONING:
            body["max_completion_tokens"] = options.max_tokens
            if options.temperature is not None:
                body["temperature"] = options.temperature
        else:
            body["max_tokens"] = options.max_tokens
            body["temperature"] = 0.0 if options.temperature is None else options.temperature
        if options.seed is not None:
            body["seed"] = options.seed
        if options.stop:
            body["stop"] = list(options.stop)
        if options.reasoning_effort is not None:
            body["reasoning_effort"] = options.reasoning_effort
        body.update(options.extra_body)
        for name, renamed in self.learned.items():
            if name in body:
                value = body.pop(name)
                if renamed is not None:
                    body[renamed] = value
        for name in self.drop:
            body.pop(name, None)
        return body

    def adapt(self, error: Any, body: dict[str, Any]) -> bool:
        """In `auto`, whether a 400 for `body` is answered by sending the request again in the
        shape learnt now or before: it names a parameter we sent that is (now) renamed or dropped.
        A request in flight when another one taught the rename is resent, not an error."""
        if self.profile is not ApiProfile.AUTO:
            return False
        name = refused_parameter(error, body)
        if name is None:
            return False
        if name not in self.learned:
            self.learn(error, body)
        return True

    def learn(self, error: Any, body: dict[str, Any]) -> str | None:
        """In `auto`, from a 400's body: the parameter it refuses, renamed or dropped from now on
        (a description of what changed), or None when it names none we sent."""
        if self.profile is not ApiProfile.AUTO:
            return None
        name = refused_parameter(error, body)
        if name is None or name in self.learned:
            return None
        renamed = RENAMES.get(name)
        self.learned[name] = renamed
        return f"{name} renamed to {renamed}" if renamed else f"{name} dropped"

    def adaptations(self) -> list[str]:
        return [f"{name} renamed to {renamed}" if renamed else f"{name} dropped" for name, renamed in self.learned.items()]


def _error_parts(error: Any) -> tuple[str | None, str]:
    """(the parameter an error names, its message) from OpenAI's, vLLM's and similar bodies."""
    if not isinstance(error, dict):
        return None, str(error or "")
    inner = error.get("error")
    if isinstance(inner, dict):
        param = inner.get("param")
        return (param if isinstance(param, str) else None), str(inner.get("message") or "")
    return None, str(error.get("message") or error.get("detail") or error.get("error") or "")


def refused_parameter(error: Any, body: dict[str, Any]) -> str | None:
    param, message = _error_parts(error)
    sendable = [k for k in body if k not in PROTECTED]
    if param in sendable:
        return param
    lowered = message.lower()
    if not any(word in lowered for word in _REFUSAL_WORDS):
        return None
    quoted = re.findall(r"['\"`]([A-Za-z_][A-Za-z0-9_.]*)['\"`]", message)
    for name in quoted:
        if name in sendable:
            return name
    for name in sendable:  # named without quotes
        if re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message):
            return name
    return None
