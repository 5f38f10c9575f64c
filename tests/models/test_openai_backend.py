"""The OpenAI-compatible backend against a real, misbehaving server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import time

import pytest

from merabench.errors import BackendError
from merabench.models import GenerationOptions
from merabench.models.base import Request
from merabench.models.openai_compat import OpenAICompatBackend, parse_reply, parse_retry_after
from merabench.models.shaping import refused_parameter
from merabench.rows.row import Row

ROW = Row("{source}", {"source": "Превет"}, "Привет", {"id": 1})


def request(text: str = "Превет") -> Request:
    return Request([{"role": "user", "content": text}])


def backend(urls: list[str], **kwargs) -> OpenAICompatBackend:
    kwargs.setdefault("retry_base_delay_s", 0.01)
    return OpenAICompatBackend("fake-model", urls, **kwargs)


def generate(b: OpenAICompatBackend, req: Request):
    async def go():
        try:
            return await b.generate(req)
        finally:
            await b.aclose()
    return asyncio.run(go())


def test_answer_usage_and_request_body(make_server) -> None:
    server = make_server()
    options = GenerationOptions(max_tokens=123, seed=7, stop=("\n\n",), extra_body={"chat_template_kwargs": {"enable_thinking": False}})
    completion = generate(backend([server.url], options=options, api_key="sk-secret"), request())
    assert completion.text == "echo:Превет"
    assert (completion.prompt_tokens, completion.completion_tokens, completion.attempts) == (11, 7, 1)
    body = server.requests[0]
    assert body["model"] == "fake-model" and body["max_tokens"] == 123 and body["temperature"] == 0.0
    assert body["seed"] == 7 and body["stop"] == ["\n\n"]
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert server.headers[0]["Authorization"] == "Bearer sk-secret"


@pytest.mark.parametrize("failure", ["500", "503", "truncate", "drop"])
def test_transient_failures_are_retried(make_server, failure: str) -> None:
    server = make_server(plan=lambda n, body: failure if n <= 2 else "ok")
    completion = generate(backend([server.url]), request())
    assert completion.text == "echo:Превет" and completion.attempts == 3
    assert len(server.requests) == 3


def test_client_errors_are_not_retried(make_server) -> None:
    server = make_server(plan=lambda n, body: "400")
    with pytest.raises(BackendError, match="HTTP 400") as info:
        generate(backend([server.url]), request())
    assert not info.value.retryable and len(server.requests) == 1


def test_a_404_from_a_base_url_without_v1_asks_whether_it_needs_it(make_server) -> None:
    server = make_server()  # serves /v1/chat/completions only
    root = server.url.removesuffix("/v1")
    with pytest.raises(BackendError) as info:
        generate(backend([root]), request())
    assert str(info.value).startswith(f"HTTP 404 from {root}/chat/completions: ")
    assert str(info.value).endswith(" (does the base URL need /v1?)") and not info.value.retryable
    with pytest.raises(BackendError) as info:  # a /v1 that 404s is another problem: no such hint
        generate(backend([server.url + "/v1"]), request())
    assert "HTTP 404" in str(info.value) and "/v1?" not in str(info.value)


def test_retries_are_bounded(make_server) -> None:
    server = make_server(plan=lambda n, body: "500")
    with pytest.raises(BackendError, match="after 3 attempts") as info:
        generate(backend([server.url], max_retries=2), request())
    assert len(server.requests) == 3 and info.value.attempts == 3


@pytest.mark.parametrize(("plan", "retries", "says"), [
    (["429", "500"], 0, "(after 1 attempt, not counting 1 send throttled by HTTP 429/503)"),
    (["429", "500", "503", "429", "500"], 1, "(after 2 attempts, not counting 3 sends throttled by HTTP 429/503)"),
])
def test_the_attempts_a_failure_names_leave_out_throttled_sends(make_server, plan: list[str], retries: int,
                                                                 says: str) -> None:
    """A 429/503 pauses the endpoint and the request is sent again without spending a retry; the
    error of a request that then fails says how many attempts failed and, apart, how many sends
    were throttled (it said 'after 2 attempts' for one 429 and one 500 with --max-retries 0)."""
    server = make_server(plan=lambda n, body: plan[n - 1], retry_after="0.05")
    with pytest.raises(BackendError, match="HTTP 500") as info:
        generate(backend([server.url], max_retries=retries), request())
    assert str(info.value).endswith(says), str(info.value)
    assert len(server.requests) == len(plan) and info.value.attempts == len(plan)  # requests sent, as recorded


def test_429_honours_retry_after(make_server) -> None:
    server = make_server(plan=lambda n, body: "429" if n == 1 else "ok", retry_after="0.6")
    started = time.monotonic()
    completion = generate(backend([server.url], retry_base_delay_s=0.001), request())
    assert completion.attempts == 2
    assert time.monotonic() - started >= 0.55


def test_timeout_is_retried_then_reported(make_server) -> None:
    server = make_server(plan=lambda n, body: "slow", slow_s=2.0)
    with pytest.raises(BackendError, match="timed out"):
        generate(backend([server.url], timeout_s=0.2, max_retries=1), request())
    assert len(server.requests) == 2


def test_dead_endpoint_is_a_clear_error() -> None:
    with pytest.raises(BackendError, match="127.0.0.1:9"):
        generate(backend(["http://127.0.0.1:9/v1"], max_retries=1), request())


def test_replicas_share_the_load_and_a_throttled_one_is_avoided(make_server) -> None:
    a = make_server(latency_s=0.02)
    b = make_server(latency_s=0.02, plan=lambda n, body: "429" if n == 1 else "ok", retry_after="1.0")
    be = backend([a.url, b.url], concurrency=4)

    async def go():
        try:
            return await asyncio.gather(*(be.generate(request(f"текст {i}")) for i in range(40)))
        finally:
            await be.aclose()

    results = asyncio.run(go())
    assert len(results) == 40 and all(r.text.startswith("echo:") for r in results)
    assert len(a.requests) >= 10 and len(b.requests) >= 2, (len(a.requests), len(b.requests))
    # while b was paused by its Retry-After, a took the work
    assert len(a.requests) > len(b.requests)


def test_retry_after_parsing() -> None:
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert 0 <= parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") < 1  # a past date: go now


def reasoning_refusals(body: dict) -> dict:
    """A hosted reasoning model's 400s, as OpenAI words them."""
    if "max_tokens" in body:
        return {"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                                     "Use 'max_completion_tokens' instead.", "type": "invalid_request_error",
                          "param": "max_tokens", "code": "unsupported_parameter"}}
    return {"error": {"message": "Unsupported value: 'temperature' does not support 0 with this model. Only the "
                                 "default (1) value is supported.", "type": "invalid_request_error",
                      "param": None, "code": "unsupported_value"}}


def refuses_reasoning_parameters(n: int, body: dict) -> str:
    return "400" if "max_tokens" in body or "temperature" in body else "ok"


def test_auto_learns_each_refused_parameter_once(make_server) -> None:
    server = make_server(plan=refuses_reasoning_parameters, error_body=reasoning_refusals)
    be = backend([server.url], options=GenerationOptions(max_tokens=500, api_profile="auto"))

    async def go():
        try:
            first = await be.generate(request("раз"))
            rest = [await be.generate(request(f"ещё {i}")) for i in range(3)]
            return first, rest
        finally:
            await be.aclose()

    first, rest = asyncio.run(go())
    assert first.text == "echo:раз" and first.attempts == 1  # the adaptations are not retries
    assert len(server.requests) == 3 + 3  # two refusals, then every request shaped right at once
    last = server.requests[-1]
    assert last["max_completion_tokens"] == 500 and "max_tokens" not in last and "temperature" not in last
    assert be.notes() == ["the endpoint refused parameters; from then on: max_tokens renamed to "
                          "max_completion_tokens, temperature dropped"]


def test_chat_profile_does_not_learn(make_server) -> None:
    server = make_server(plan=refuses_reasoning_parameters, error_body=reasoning_refusals)
    with pytest.raises(BackendError, match="max_tokens"):
        generate(backend([server.url]), request())
    assert len(server.requests) == 1


def test_reasoning_profile_and_dropped_parameters(make_server) -> None:
    server = make_server()
    options = GenerationOptions(max_tokens=32768, stop=("\n\n",), reasoning_effort="high",
                                api_profile="openai-reasoning", drop_params=("stop",))
    generate(backend([server.url], options=options), request())
    body = server.requests[0]
    assert body["max_completion_tokens"] == 32768 and body["reasoning_effort"] == "high"
    assert "max_tokens" not in body and "temperature" not in body and "stop" not in body
    generate(backend([server.url], options=GenerationOptions(temperature=1.0, api_profile="openai-reasoning")),
             request())
    assert server.requests[1]["temperature"] == 1.0  # set explicitly, so sent


@pytest.mark.parametrize(("reply", "text", "reasoning", "tokens", "finish"), [
    ({"content": "Ответ", "reasoning_content": "думаю", "usage": {
        "prompt_tokens": 5, "completion_tokens": 9, "completion_tokens_details": {"reasoning_tokens": 7}}},
     "Ответ", "думаю", 7, "stop"),
    ({"content": None, "reasoning": "долго думал", "finish_reason": "length"}, "", "долго думал", None, "length"),
    ({"content": [{"type": "text", "text": "Отв"}, {"type": "text", "text": "ет"}]}, "Ответ", None, None, "stop"),
])
def test_replies_keep_reasoning_tokens_and_why_they_ended(make_server, reply, text, reasoning, tokens, finish) -> None:
    server = make_server(reply=lambda body: reply)
    completion = generate(backend([server.url]), request())
    assert (completion.text, completion.reasoning, completion.reasoning_tokens, completion.finish_reason) == (
        text, reasoning, tokens, finish)


def test_the_refusal_reader_on_other_servers_wordings() -> None:
    body = {"model": "m", "messages": [], "max_tokens": 5, "temperature": 0.0, "stop": ["x"], "seed": 1}
    assert refused_parameter({"object": "error", "message": "stop is not supported by this model"}, body) == "stop"
    assert refused_parameter({"detail": "Extra inputs are not permitted: `seed`"}, body) == "seed"
    assert refused_parameter({"error": {"message": "context length exceeded"}}, body) is None
    assert refused_parameter({"error": {"message": "unsupported: 'messages'"}}, body) is None  # never the messages


@pytest.mark.parametrize("raw", [b'{"choices": [{"message": "hi"}]}', b'{"choices": ["hi"]}'])
def test_a_reply_whose_parts_are_not_objects_is_a_malformed_body(raw: bytes) -> None:
    with pytest.raises(BackendError, match="malformed response body"):
        parse_reply(raw, "http://127.0.0.1:1/v1")
