"""Any OpenAI-compatible chat-completions endpoint (vLLM, SGLang, TGI, llama.cpp, Ollama, APIs).

Retries: timeouts, connection errors, truncated or malformed bodies, 408/409/429 and 5xx are
retried with exponential back-off (or the server's Retry-After), possibly on another replica;
other 4xx fail at once. The API key goes only into the Authorization header.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time
from typing import Any

import aiohttp
import orjson

from merabench.errors import BackendError, ConfigError
from merabench.models.base import Backend, Completion, GenerationOptions, Request
from merabench.models.endpoints import EndpointPool
from merabench.urls import redact

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
THROTTLE_STATUS = {429, 503}
MAX_BACKOFF_S = 60.0


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _loads(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        # orjson rejects lone surrogate escapes ("\\ud800") that the json module accepts; a model
        # can emit them, and the answer must not be lost over it
        return json.loads(raw)


class OpenAICompatBackend(Backend):
    def __init__(self, model: str, base_urls: list[str], *, api_key: str | None = None,
                 options: GenerationOptions | None = None, concurrency: int = 32,
                 max_retries: int = 5, timeout_s: float = 600.0, retry_base_delay_s: float = 1.0) -> None:
        if not base_urls:
            raise ConfigError("an openai: model needs --base-url (or OPENAI_BASE_URL)")
        self.model = model
        self.name = f"openai:{model}"
        self.options = options or GenerationOptions()
        self.urls = [u.rstrip("/") for u in base_urls]
        self._api_key = api_key
        self._concurrency = concurrency
        self.max_retries = max_retries
        self.timeout_s = timeout_s
        self.retry_base_delay_s = retry_base_delay_s
        self._pool: EndpointPool | None = None
        self._session: aiohttp.ClientSession | None = None

    def __repr__(self) -> str:  # never show the key
        return f"OpenAICompatBackend(model={self.model!r}, urls={[redact(u) for u in self.urls]!r})"

    def cache_scope(self) -> dict[str, Any]:
        """The endpoints (credentials removed): another server behind the same model name is
        another model until the user says otherwise (--cache-scope model)."""
        return {"endpoints": sorted(redact(u) for u in self.urls)}

    @property
    def pool(self) -> EndpointPool:
        if self._pool is None:
            self._pool = EndpointPool(self.urls, self._concurrency)
        return self._pool

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            headers = {"Content-Type": "application/json"}
            if self._api_key:
                headers["Authorization"] = f"Bearer {self._api_key}"
            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(headers=headers, connector=connector,
                                                  timeout=aiohttp.ClientTimeout(total=self.timeout_s))
        return self._session

    def payload(self, request: Request) -> dict[str, Any]:
        opts = self.options
        body: dict[str, Any] = {"model": self.model, "messages": list(request.messages),
                                "max_tokens": opts.max_tokens, "temperature": opts.temperature}
        if opts.seed is not None:
            body["seed"] = opts.seed
        if opts.stop:
            body["stop"] = list(opts.stop)
        body.update(opts.extra_body)
        return body

    async def generate(self, request: Request) -> Completion:
        body = orjson.dumps(self.payload(request))
        started = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            endpoint = await self.pool.acquire()
            try:
                completion = await self._post(endpoint.url, body)
            except BackendError as exc:
                throttle = None
                if exc.status in THROTTLE_STATUS:
                    throttle = exc.retry_after if exc.retry_after is not None else self._backoff(attempt)
                self.pool.release(endpoint, ok=False, throttle_for=throttle)
                if not exc.retryable or attempt > self.max_retries:
                    suffix = f" (after {attempt} attempts)" if attempt > 1 else ""
                    raise BackendError(f"{exc}{suffix}", retryable=False, status=exc.status) from None
                delay = exc.retry_after if exc.retry_after is not None else self._backoff(attempt)
                await asyncio.sleep(delay)
                continue
            except BaseException:
                self.pool.release(endpoint, ok=False)
                raise
            self.pool.release(endpoint, ok=True)
            return Completion(text=completion["text"], prompt_tokens=completion["prompt_tokens"],
                              completion_tokens=completion["completion_tokens"],
                              finish_reason=completion["finish_reason"],
                              latency_s=time.monotonic() - started, endpoint=redact(endpoint.url), attempts=attempt)

    def _backoff(self, attempt: int) -> float:
        """Exponential with full jitter, so retrying workers do not arrive together."""
        ceiling = min(MAX_BACKOFF_S, self.retry_base_delay_s * 2 ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)

    async def _post(self, base_url: str, body: bytes) -> dict[str, Any]:
        url = f"{base_url}/chat/completions"
        try:
            async with self._client().post(url, data=body) as resp:
                raw = await resp.read()
                if resp.status != 200:
                    snippet = raw[:300].decode("utf-8", "replace")
                    raise BackendError(f"HTTP {resp.status} from {url}: {snippet}",
                                       retryable=resp.status in RETRYABLE_STATUS or resp.status >= 500,
                                       retry_after=parse_retry_after(resp.headers.get("Retry-After")),
                                       status=resp.status)
        except TimeoutError:
            raise BackendError(f"timed out after {self.timeout_s:g} s at {url}", retryable=True) from None
        except aiohttp.ClientError as exc:  # refused, reset, dropped, truncated payload
            raise BackendError(f"{type(exc).__name__} at {url}: {exc}", retryable=True) from None
        return self._parse(raw, url)

    @staticmethod
    def _parse(raw: bytes, url: str) -> dict[str, Any]:
        try:
            doc = _loads(raw)
            choice = doc["choices"][0]
            message = choice.get("message") or {}
            text = message.get("content") or ""
            usage = doc.get("usage") or {}
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise BackendError(f"malformed response body from {url}: {raw[:200]!r}", retryable=True) from None
        if not isinstance(text, str):
            raise BackendError(f"non-text message content from {url}", retryable=False)
        return {"text": text, "prompt_tokens": usage.get("prompt_tokens"),
                "completion_tokens": usage.get("completion_tokens"),
                "finish_reason": choice.get("finish_reason")}

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
