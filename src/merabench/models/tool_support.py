"""Whether a server takes OpenAI `tools` (native tool calling), told from how it refuses them.

A server that cannot call tools answers every request that carries them with the same 4xx: vLLM
started without `--enable-auto-tool-choice --tool-call-parser …` ("auto" tool choice requires …),
llama.cpp without `--jinja` ("tools param requires --jinja flag"), Ollama for a model without a
tool template ("… does not support tools"). That endpoint is then given up with one line saying
what to enable, rather than the run filling with an error row per question.
"""

from __future__ import annotations

REFUSING_STATUS = frozenset({400, 404, 422, 500, 501})
ENABLE = ("start vLLM with --enable-auto-tool-choice --tool-call-parser <parser for the model> (merabench's "
          "--serve vllm adds them with --tool-mode native), SGLang with --tool-call-parser <parser>, llama.cpp's "
          "server with --jinja; or run --tool-mode text")
_WORDS = ("tool", "function call", "jinja")


def refuses_tools(status: int | None, message: str) -> bool:
    """Whether a reply to a request that carried `tools` says the server cannot take them."""
    lowered = message.lower()
    return status in REFUSING_STATUS and any(word in lowered for word in _WORDS)


def refusal_line(url: str, status: int | None, message: str) -> str:
    return f"{url} does not take native tool calls (HTTP {status}: {message[:200]}): {ENABLE}"
