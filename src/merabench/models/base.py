"""The backend seam: one async `generate` per backend, and the records that cross it.

A backend sees a Request (the chat messages) and its own GenerationOptions; it never sees a task
or a row. It returns a Completion or raises BackendError (after its own retries).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from merabench.rows.prompts import Message

#: the seeds merabench takes, a sampling seed and a GorillaHard generator seed alike: a signed
#: 64-bit integer (what request bodies, torch and sqlite carry)
SEED_MIN, SEED_MAX = -(2**63), 2**63 - 1
#: how deep a tool call's arguments may nest and still be held as an object; deeper ones are kept
#: as their JSON text (models/openai_compat.py `tool_calls_of`), which scores as arguments that are
#: not an object. No tool takes such arguments, and every later step that writes them out (the
#: replayed conversation, the cache, the samples file) recurses once a level: orjson gives up at
#: 255 levels, Python's json near 1,000.
MAX_ARGUMENT_DEPTH = 64


@dataclass(frozen=True)
class GenerationOptions:
    """What shapes an answer, endpoint aside; all of it is part of the cache key."""

    max_tokens: int = 4096
    temperature: float | None = None      # None: 0 for chat endpoints, the server's own for reasoning ones
    seed: int | None = None
    stop: tuple[str, ...] = ()
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    reasoning_effort: str | None = None
    api_profile: str = "chat"             # models/shaping.py
    drop_params: tuple[str, ...] = ()

    def recorded(self) -> dict[str, Any]:
        """The settings as results.json records them: the fingerprint, with the temperature that
        was sent where none was given (0 for chat requests), so the file says what the model got."""
        return self.fingerprint() | {"temperature": sent_temperature(self.temperature, self.api_profile)}

    def fingerprint(self) -> dict[str, Any]:
        out: dict[str, Any] = {"max_tokens": self.max_tokens, "temperature": self.temperature, "seed": self.seed,
                               "stop": list(self.stop), "extra_body": dict(self.extra_body)}
        if self.reasoning_effort is not None:
            out["reasoning_effort"] = self.reasoning_effort
        if self.api_profile != "chat":
            out["api_profile"] = self.api_profile
        if self.drop_params:
            out["drop_params"] = sorted(self.drop_params)
        return out


def sent_temperature(temperature: float | None, api_profile: str | None) -> float | None:
    """The temperature a request carries: the one given, else 0 (greedy, as a local model
    decodes too), except under the openai-reasoning profile, which sends none (its server's own)."""
    if temperature is not None or api_profile == "openai-reasoning":
        return temperature
    return 0.0


def always() -> bool:
    return True


@dataclass(frozen=True)
class Request:
    messages: Sequence[Message]
    #: OpenAI `tools` (function definitions), sent with tool_choice "auto"; () in text mode, which
    #: sends neither field (GorillaHard's --tool-mode native: tasks/gorillahard/native/)
    tools: Sequence[Mapping[str, Any]] = ()
    #: asked as the request is about to leave, after any wait for room (an endpoint's in-flight
    #: limit, a local model's turn), and only then: False and it is not sent, the backend raises
    #: NotSent. A run's --max-cost and --deadline reach every concurrency mode through it.
    may_send: Callable[[], bool] = field(default=always, compare=False)
    #: added to the run's seed, when one is set (the k-th repeat of `run --repeats`: runner/work.py)
    seed_offset: int = 0

    def options(self, options: GenerationOptions) -> GenerationOptions:
        """The run's options as this request sends them (its seed offset applied)."""
        if not self.seed_offset or options.seed is None:
            return options
        return replace(options, seed=options.seed + self.seed_offset)


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
    usage_note: str | None = None    # token counts the server reported that cannot be right (usage.py)
    #: the share of the prices given that the answer was bought at: a Batch API's discount (0.5)
    price_share: float = 1.0
    #: the reply's tool calls, each {"id", "name", "arguments"} with `arguments` as it came (a JSON
    #: string, or whatever else a server put there); () when it made none
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    #: a tool-calling conversation's replies, as runner/tool_loop.py records them (the final
    #: Completion's `text` is then the envelope they map to); None for one request
    exchange: Mapping[str, Any] | None = None
    #: {"prompt", "completion"}: the tokens the cost counts for an endpoint's answer whose counts
    #: cannot price it (missing or impossible): the usable counts, the rest estimated from the bytes
    #: sent and received (models/usage.py); None when the counts price it
    estimated_tokens: Mapping[str, int] | None = None


@dataclass(frozen=True)
class ToolSpec:
    """A request answered by native tool calling: a conversation (runner/tool_loop.py), not one
    request. Each reply's tool calls get a stub result naming the step's result ("$1", "$2", ...)
    and the model is asked again, until it answers without a call, calls one of `ends_on`, or has
    replied `max_replies` times; `finish` maps the replies to the task's answer text and a word on
    how it was answered. `policy` names this shape: part of the request's identity (cache, resume)."""

    tools: tuple[Mapping[str, Any], ...]
    finish: Callable[[Sequence[Completion]], tuple[str, str]] = field(compare=False)
    ends_on: frozenset[str] = frozenset()
    max_replies: int = 4
    policy: str = ""


@dataclass(frozen=True)
class Generating:
    """A row an in-process model is generating: tokens so far, for how long, and their rate since
    the first one (reading a long prompt takes seconds before it); `loading` while the row waits
    for the model to load."""

    tokens: int
    elapsed_s: float
    loading: bool = False
    tokens_per_s: float | None = None


class Backend(ABC):
    """A model behind an API or in this process. `generate` raises BackendError when a request
    fails for good, NotSent when `request.may_send()` said no as its first attempt was to leave."""

    #: the model spec as the user gave it (e.g. "openai:qwen3-8b"); part of the cache key
    name: str
    options: GenerationOptions = GenerationOptions()

    @abstractmethod
    async def generate(self, request: Request) -> Completion: ...

    def cache_scope(self) -> dict[str, Any]:
        """What, besides the name and options, tells this model's answers apart in the cache."""
        return {}

    async def preflight(self) -> list[str]:
        """Checks before the first request (raising a MerabenchError when the run cannot work);
        returns notes on what it found."""
        return []

    def notes(self) -> list[str]:
        """What the backend learned or changed during the run, for results.json."""
        return []

    def speak_through(self, say: Callable[[str], None]) -> None:  # noqa: B027 - optional hook
        """Where the backend tells the user, while the run goes on, what keeps them waiting (a local
        model's load); backends with nothing to say ignore it."""

    def run_facts(self) -> dict[str, Any]:
        """What the backend learnt, as data for results.json (`concurrency`, `adaptations`)."""
        return {}

    def requests_delivered(self) -> tuple[int, int] | None:
        """(requests a server replied to or held until their time-out, retries included; attempts
        that found no connection: refused, reset or closed before any reply, which the server may
        never have read), or None when the backend sends none."""
        return None

    def generating(self) -> Generating | None:
        """What an in-process model is producing right now (the live line's tokens and tokens/s), or
        None: a server's requests are seen only as in flight."""
        return None

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        pass
