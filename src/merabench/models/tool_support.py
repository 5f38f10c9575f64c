"""Whether a server takes OpenAI `tools` (native tool calling), told from how it refuses them.

A server that cannot call tools answers every request that carries them with the same 4xx: vLLM
started without `--enable-auto-tool-choice --tool-call-parser …` ("auto" tool choice requires …),
llama.cpp without `--jinja` ("tools param requires --jinja flag"), Ollama for a model without a
tool template ("… does not support tools"). That endpoint is then given up with one line saying
what to enable, rather than the run filling with an error row per question.
"""

from __future__ import annotations

from merabench.errors import BackendError
from merabench.models.bodies import read_capped
from merabench.rows.jsonio import loads

REFUSING_STATUS = frozenset({400, 404, 422, 500, 501})
#: what engines say when they cannot take tools at all (vLLM's "auto" tool choice, llama.cpp without
#: --jinja answering 500, Ollama for a model without a tool template, hosted APIs); a complaint about
#: one request's tool messages ("tool_call_id ... not found") is no refusal of tools
REFUSAL_PHRASES = ("--jinja", "tool choice requires", "auto-tool-choice", "tool-call-parser", "tools param")
_CANNOT = ("not support", "unsupported", "not enabled", "not available", "not allowed")
ENABLE = ("start vLLM with --enable-auto-tool-choice --tool-call-parser <parser for the model> (merabench's "
          "--serve vllm adds them with --tool-mode native), SGLang with --tool-call-parser <parser>, llama.cpp's "
          "server with --jinja; or run --tool-mode text")


def refuses_tools(status: int | None, message: str) -> bool:
    """Whether a reply to a request that carried `tools` says the server cannot take them."""
    if status not in REFUSING_STATUS:
        return False
    lowered = message.lower()
    return any(phrase in lowered for phrase in REFUSAL_PHRASES) or (
        "tool" in lowered and any(word in lowered for word in _CANNOT))


def refusal_line(url: str, status: int | None, message: str) -> str:
    return f"{url} does not take native tool calls (HTTP {status}: {message[:200]}): {ENABLE}"


#: the tool-call parser each engine needs, by a word of the model's name (first match; the engines'
#: documented parsers); a model none names gets the engine's most common one, and a note says so
PARSERS = {
    "vllm": (("qwen3-coder", "qwen3_coder"), ("qwen", "hermes"), ("hermes", "hermes"), ("llama-4", "llama4_pythonic"),
             ("llama4", "llama4_pythonic"), ("llama", "llama3_json"), ("mistral", "mistral"), ("mixtral", "mistral"),
             ("deepseek", "deepseek_v3"), ("gpt-oss", "openai"), ("granite", "granite"), ("glm", "glm45"),
             ("kimi", "kimi_k2"), ("internlm", "internlm")),
    "sglang": (("qwen", "qwen25"), ("llama", "llama3"), ("mistral", "mistral"), ("deepseek", "deepseekv3"),
               ("gpt-oss", "gpt-oss"), ("glm", "glm45"), ("kimi", "kimi_k2")),
}
DEFAULT_PARSER = {"vllm": "hermes", "sglang": "qwen25"}


def serving_flags(engine: str | None, model: str, args: tuple[str, ...]) -> tuple[tuple[str, ...], str | None]:
    """The flags an engine started by --serve needs for native tool calls, beyond those in `args`
    (what the user gave wins), and a line saying what was added (None: nothing)."""
    if engine not in PARSERS:
        return (), None
    added: list[str] = []
    if engine == "vllm" and "--enable-auto-tool-choice" not in args:
        added.append("--enable-auto-tool-choice")
    if not any(a == "--tool-call-parser" or a.startswith("--tool-call-parser=") for a in args):
        lowered = model.lower()
        parser = next((p for word, p in PARSERS[engine] if word in lowered), None)
        added += ["--tool-call-parser", parser or DEFAULT_PARSER[engine]]
        if parser is None:
            return tuple(added), (f"--tool-mode native: {engine} started with {' '.join(added)} (no parser is known "
                                  f"for {model}: set the right one with --serve-args '--tool-call-parser NAME')")
    return tuple(added), (f"--tool-mode native: {engine} started with {' '.join(added)}" if added else None)


PROBE_TOOL = "merabench_probe_tool"


async def template_drops_tools(base_url: str, headers: dict[str, str]) -> bool:
    """Whether the server renders a prompt without the `tools` it is sent: llama.cpp's
    /apply-template shows the prompt its chat template makes, and a template with no tool support
    (SmolLM2's, for one) leaves them out without a word, so the model would never see the catalog.
    False when the server has no such endpoint or says nothing clear (nothing is known then); its
    body is read no further than the chat replies' cap (models/bodies.py)."""
    import aiohttp

    root = base_url.rstrip("/").removesuffix("/v1")
    body = {"messages": [{"role": "user", "content": "?"}],
            "tools": [{"type": "function", "function": {"name": PROBE_TOOL, "description": "probe",
                                                        "parameters": {"type": "object", "properties": {}}}}]}
    try:
        async with aiohttp.ClientSession(headers=headers, timeout=aiohttp.ClientTimeout(total=5.0)) as session, \
                session.post(f"{root}/apply-template", json=body) as resp:
            if resp.status != 200:
                return False
            doc = loads(await read_capped(resp, f"{root}/apply-template"))
    except (aiohttp.ClientError, TimeoutError, ValueError, BackendError):  # BackendError: a body past the cap
        return False
    prompt = doc.get("prompt") if isinstance(doc, dict) else None
    return isinstance(prompt, str) and PROBE_TOOL not in prompt


def dropped_line(url: str) -> str:
    return (f"{url} renders its chat prompt without the tools it is sent (its /apply-template): the model would never "
            "see the catalog. Its chat template has no tool support: serve a model whose template has, or give "
            "llama.cpp's server one with --chat-template-file; or run --tool-mode text")
