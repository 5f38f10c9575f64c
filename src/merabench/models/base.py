"""The backend seam: one async `generate` per backend, and the records that cross it.

A backend sees a Request (the chat messages) and its own GenerationOptions; it never sees a task
or a row. It returns a Completion or raises BackendError (after its own retries).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from merabench.prompts import Message


@dataclass(frozen=True)
class GenerationOptions:
    """Endpoint-independent generation settings; they are part of the cache key."""

    max_tokens: int = 4096
    temperature: float = 0.0
    seed: int | None = None
    stop: tuple[str, ...] = ()
    extra_body: Mapping[str, Any] = field(default_factory=dict)

    def fingerprint(self) -> dict[str, Any]:
        return {"max_tokens": self.max_tokens, "temperature": self.temperature, "seed": self.seed,
                "stop": list(self.stop), "extra_body": dict(self.extra_body)}


@dataclass(frozen=True)
class Request:
    messages: Sequence[Message]


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None
    latency_s: float = 0.0
    endpoint: str | None = None
    attempts: int = 1
    reasoning: str | None = None
    reasoning_tokens: int | None = None


class Backend(ABC):
    """A model behind an API or in this process. `generate` raises BackendError when a request
    fails for good."""

    #: the model spec as the user gave it (e.g. "openai:qwen3-8b"); part of the cache key
    name: str
    options: GenerationOptions = GenerationOptions()

    @abstractmethod
    async def generate(self, request: Request) -> Completion: ...

    def cache_scope(self) -> dict[str, Any]:
        """What, besides the name and options, tells this model's answers apart in the cache."""
        return {}

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        pass
