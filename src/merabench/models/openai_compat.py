"""Any OpenAI-compatible chat-completions endpoint (vLLM, SGLang, TGI, llama.cpp, Ollama, APIs).

Retries: timeouts, connection errors, truncated or malformed bodies, 408/409 and 5xx are retried
with exponential back-off, possibly on another replica; a 429/503 pauses its endpoint instead
(models/endpoints.py: once for all its requests, and the run stops when the server asks for more
than the back-off ceiling). Other 4xx fail at once, except that the `auto` profile learns from a
400 that names an unsupported parameter and sends the request again (models/shaping.py). How many
requests each endpoint is sent at once, and when a request's time-out starts, is the pool's
business (models/endpoints.py, models/concurrency.py). The API key goes only
into the Authorization header; credentials in a URL are used and never written anywhere.

A reply keeps what reasoning servers send beside the answer (`reasoning_content` or
`reasoning`, and `usage.completion_tokens_details.reasoning_tokens`); a null `content` is an
empty answer with its `finish_reason` (`length`: the budget went on thinking), not an error.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp

from merabench.errors import BackendError, ConfigError, NotSent
from merabench.models import server_word
from merabench.models.base import MAX_ARGUMENT_DEPTH, Backend, Completion, GenerationOptions, Request
from merabench.models.bodies import read_capped
from merabench.models.concurrency import sent_for_slots
from merabench.models.endpoints import Endpoint, EndpointPool, jittered_backoff
from merabench.models.shaping import ApiProfile, RequestShaper
from merabench.models.tool_support import refusal_line, refuses_tools
from merabench.models.usage import usage_counts
from merabench.rows.jsonio import dumps_any_depth, dumps_kept, has_non_finite, loads, nested_deeper_than
from merabench.support.redaction import redact_url, register_secret, register_url

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
THROTTLE_STATUS = {429, 503}
AUTO = "auto"


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number or an HTTP date; None when it says nothing
    usable (NaN, text). A wait of 0, a negative one or a past date is 0: the pool's own back-off
    is the floor of every pause (models/endpoints.py), whatever the server says."""
    if not value:
        return None
    try:
        seconds = float(value)
        return None if math.isnan(seconds) else max(0.0, seconds)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _tries(failures: int, throttled: int) -> str:
    """What a request's last error adds: the attempts that failed, and apart from them the sends a
    429/503 turned back (the endpoint's pause, not the request's failure: they use no retry)."""
    if throttled:
        return (f" (after {failures} attempt{'s' if failures != 1 else ''}, not counting {throttled} "
                f"send{'s' if throttled != 1 else ''} throttled by HTTP 429/503)")
    return f" (after {failures} attempts)" if failures > 1 else ""


class OpenAICompatBackend(Backend):
    def __init__(self, model: str, base_urls: list[str], *, api_key: str | None = None,
                 options: GenerationOptions | None = None, concurrency: int | str = AUTO,
                 max_retries: int = 5, timeout_s: float = 600.0, retry_base_delay_s: float = 1.0,
                 unreachable_after: int | None = None, hung_after: int | None = None) -> None:
        """`unreachable_after`: give an endpoint up once that many retries in a row (no answer
        between) found it refusing or dropping connections (models/endpoints.py); `hung_after`:
        once that many timed out; None: never."""
        if not base_urls:
            raise ConfigError("an openai: model needs --base-url (or OPENAI_BASE_URL)")
        register_secret(api_key)  # masked wherever it appears in what the run writes (redaction.py)
        for url in base_urls:
            register_url(url)
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ConfigError(f"--base-url {redact_url(url)}: not an http(s) URL")
            if (parts.username or parts.password) and api_key:
                raise ConfigError(f"--base-url {redact_url(url)} carries credentials and an API key is set too "
                                  "(--api-key or OPENAI_API_KEY): give one of them")
        self.model = model
        self.name = f"openai:{model}"
        self.options = options or GenerationOptions()
        try:
            profile = ApiProfile(self.options.api_profile)
        except ValueError:
            raise ConfigError(f"unknown --api-profile '{self.options.api_profile}'; known: "
                              f"{', '.join(p.value for p in ApiProfile)}") from None
        self.shaper = RequestShaper(profile, frozenset(self.options.drop_params))
        self.urls = [u.rstrip("/") for u in base_urls]
        self._api_key = api_key
        self._concurrency = concurrency
        self.max_retries = max_retries
        self.timeout_s = timeout_s
        self.retry_base_delay_s = retry_base_delay_s
        self.unreachable_after = unreachable_after
        self.hung_after = hung_after
        self._delivered = 0    # requests a server replied to, cut off mid-reply, or held until the time-out
        self._unconnected = 0  # attempts that found no connection (refused, reset, closed before any reply)
        self._pool: EndpointPool | None = None
        self._session: aiohttp.ClientSession | None = None
        self._notes: list[str] = []
        self._slots: dict[str, int] = {}  # what the servers said they serve at once
        self._gauged: list[str] = []      # servers whose /metrics show their queue (vLLM, SGLang)
        self._watchers: list[asyncio.Task[None]] | None = None
        self._limit_ignored = False

    def __repr__(self) -> str:  # never show the key
        return f"OpenAICompatBackend(model={self.model!r}, urls={[redact_url(u) for u in self.urls]!r})"

    def cache_scope(self) -> dict[str, Any]:
        """The endpoints (credentials removed): another server behind the same model name is
        another model until the user says otherwise (--cache-scope model)."""
        return {"endpoints": sorted(redact_url(u) for u in self.urls)}

    def notes(self) -> list[str]:
        adapted = self.shaper.adaptations()
        return self._notes + ([f"the endpoint refused parameters; from then on: {', '.join(adapted)}"] if adapted else [])

    async def preflight(self) -> list[str]:
        """Fail at once, naming the URL, when no endpoint accepts a connection; leave out the ones
        that do not when others do."""
        async def reach(url: str) -> str | None:
            parts = urlsplit(url)
            port = parts.port or (443 if parts.scheme == "https" else 80)
            try:
                _, writer = await asyncio.wait_for(asyncio.open_connection(parts.hostname, port),
                                                   timeout=min(10.0, self.timeout_s))
            except (OSError, TimeoutError) as exc:
                return f"{redact_url(url)}: {exc.strerror or type(exc).__name__}" if isinstance(exc, OSError) else \
                    f"{redact_url(url)}: no answer in {min(10.0, self.timeout_s):g} s"
            writer.close()
            return None

        failures = await asyncio.gather(*(reach(u) for u in self.urls))
        down = [f for f in failures if f]
        if len(down) == len(self.urls):
            raise ConfigError("cannot connect to " + "; ".join(down) + " (is the server running?)")
        if down:
            self.urls = [u for u, f in zip(self.urls, failures, strict=True) if not f]
            self._notes.append(f"left out {len(down)} endpoint(s) that refused connections: {'; '.join(down)}")
        await self._ask_slots()
        return list(self._notes)

    async def _ask_slots(self) -> None:
        """What each server says of its load (models/server_word.py): llama.cpp's slots; with
        `auto`, whether vLLM's or SGLang's /metrics show their queue."""
        async def ask(session: aiohttp.ClientSession, url: str) -> None:
            slots = await server_word.total_slots(session, url)
            if slots is not None:
                self._slots[url] = slots
                sending = (f"sending {sent_for_slots(slots)} at once" if self._concurrency == AUTO
                           else "time-outs count from when one of them could take a request")
                claim = f"{slots:,}" + (" or more" if slots == server_word.MOST_SLOTS else "")
                self._notes.append(f"{redact_url(url)} says it serves {claim} request(s) at once (its /props): "
                                   f"{sending}")
            elif self._concurrency == AUTO and await server_word.read_gauges(session, url) is not None:
                self._gauged.append(url)
                self._notes.append(f"{redact_url(url)} shows its queue (/metrics): --concurrency auto reads it "
                                   f"every {server_word.POLL_S:g} s")

        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else None
        async with aiohttp.ClientSession(headers=headers, timeout=aiohttp.ClientTimeout(total=3.0)) as session:
            await asyncio.gather(*(ask(session, u) for u in self.urls))

    def _watch(self) -> list[asyncio.Task[None]]:
        """Read the queue gauges of the servers that show them, in the run's own loop."""
        return [asyncio.get_running_loop().create_task(server_word.watch_gauges(
            self._client(), url, functools.partial(self.pool.told_gauges, url)))
            for url in self._gauged]

    @property
    def pool(self) -> EndpointPool:
        if self._pool is None:
            self._pool = EndpointPool(self.urls, None if self._concurrency == AUTO else int(self._concurrency),
                                      timeout_s=self.timeout_s, retry_base_delay_s=self.retry_base_delay_s,
                                      unreachable_after=self.unreachable_after, hung_after=self.hung_after,
                                      refusals_allowed=self.max_retries)
            for url, slots in self._slots.items():
                self._pool.told_slots(url, slots)
        return self._pool

    def run_facts(self) -> dict[str, Any]:
        """Per endpoint, how many requests it was sent at once over the run; what `auto` changed
        in the requests' shape."""
        facts: dict[str, Any] = {"concurrency": self.pool.describe()}
        if self.shaper.learned:
            facts["adaptations"] = self.shaper.adaptations()
        return facts

    def requests_delivered(self) -> tuple[int, int]:
        return self._delivered, self._unconnected

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            headers = {"Content-Type": "application/json"}
            if self._api_key:
                headers["Authorization"] = f"Bearer {self._api_key}"
            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            # the whole request's time-out is the pool's clock (it starts when the server could
            # start the request); aiohttp bounds only the connecting
            self._session = aiohttp.ClientSession(headers=headers, connector=connector, timeout=aiohttp.ClientTimeout(
                total=None, sock_connect=min(30.0, self.timeout_s)))
        return self._session

    def payload(self, request: Request) -> dict[str, Any]:
        return with_tools(self.shaper.body(self.model, list(request.messages), request.options(self.options)),
                          request.tools)

    async def generate(self, request: Request) -> Completion:
        if self._watchers is None:
            self._watchers = self._watch()
        started = time.monotonic()
        attempt = failures = throttled = 0  # sends; failed attempts; sends a 429/503 turned back (not failures)
        while True:
            body = self.payload(request)
            endpoint = await self.pool.acquire()  # ServerRefused when every endpoint is given up
            if not request.may_send():  # every send, after its wait for room: the run's caps and deadline
                self.pool.release(endpoint, ok=False)
                raise NotSent("the run stopped sending")
            attempt += 1
            epoch = endpoint.pause_epoch
            sent = time.monotonic()
            try:
                reply = await self._post(endpoint, dumps_kept(body))
            except BackendError as exc:
                if exc.status in THROTTLE_STATUS:  # the endpoint's state: it pauses, everyone waits once
                    # paused before the slot is freed: a worker waiting for it must not be sent now
                    self.pool.throttled(endpoint, exc.status, exc.retry_after, epoch)
                    self.pool.release(endpoint, ok=False)
                    throttled += 1
                    continue
                self.pool.release(endpoint, ok=exc.status == 400)
                said = error_message(exc.body) or str(exc)
                if request.tools and refuses_tools(exc.status, said):  # the next acquire raises ServerRefused
                    self.pool.refuses_tools(endpoint, refusal_line(redact_url(endpoint.url), exc.status, said))
                    attempt -= 1
                    continue
                if exc.status == 400 and self.shaper.adapt(exc.body, body):
                    attempt -= 1  # the same request again, shaped as the server wants: not a retry
                    continue
                failures += 1
                if exc.connection and failures > 1:  # a retry found the server still unreachable
                    self.pool.unreachable(endpoint, str(exc))
                elif exc.timed_out and failures > 1:  # a retry found it still not replying
                    self.pool.hung(endpoint, str(exc))
                if not exc.retryable or failures > self.max_retries:
                    raise BackendError(f"{exc}{_tries(failures, throttled)}", retryable=False, status=exc.status,
                                       attempts=attempt) from None
                if not await pause_unless_stopped(self._backoff(failures), request.may_send):
                    raise NotSent("the run stopped sending while a retry waited out its back-off") from None
                continue
            except BaseException:
                self.pool.release(endpoint, ok=False)
                raise
            self.pool.release(endpoint, ok=True, latency_s=time.monotonic() - sent)
            if reply["completion_tokens"] is not None and reply["completion_tokens"] > self.options.max_tokens:
                self._ignored_limit(body, reply["completion_tokens"], endpoint.url)
            return Completion(**reply, latency_s=time.monotonic() - started, endpoint=redact_url(endpoint.url),
                              attempts=attempt)

    def _ignored_limit(self, body: dict[str, Any], got: int, url: str) -> None:
        """Said once: the server's usage shows more completion tokens than the request allowed."""
        if self._limit_ignored:
            return
        self._limit_ignored = True
        sent = next((k for k in ("max_tokens", "max_completion_tokens") if k in body), None)
        asked = f"{sent}={body[sent]}" if sent else f"no limit field (the limit {self.options.max_tokens} was dropped)"
        hint = (" (llama.cpp's server ignores max_completion_tokens: --api-profile chat sends max_tokens)"
                if sent == "max_completion_tokens" else "")
        self._notes.append(f"{redact_url(url)} ignored the token limit: asked {asked}, an answer used {got} completion "
                           f"tokens{hint}")

    def _backoff(self, attempt: int) -> float:
        return jittered_backoff(self.retry_base_delay_s, attempt)  # retrying workers do not arrive together

    async def _post(self, endpoint: Endpoint, body: bytes) -> dict[str, Any]:
        url = endpoint_url(endpoint.url, "chat/completions")
        shown = redact_url(url)
        try:
            async with asyncio.timeout(None) as clock:  # started by the pool: see models/endpoints.py
                self.pool.clock_in(endpoint, clock)
                timed_out = False
                try:
                    async with self._client().post(url, data=body) as resp:
                        raw = await read_capped(resp, shown)
                    self._delivered += 1
                except BaseException as exc:
                    timed_out = clock.expired()
                    if isinstance(exc, aiohttp.ClientError) and is_connection_failure(exc):
                        self._unconnected += 1  # refused, reset, or closed before any reply: maybe never read
                    else:
                        self._delivered += 1  # timed out, cut off mid-body, cancelled: the server held it
                    raise
                finally:
                    self.pool.clock_out(endpoint, clock, timed_out=timed_out)
        except TimeoutError:  # the request was cancelled: its connection closed, the server can stop
            raise BackendError(f"timed out after {self.timeout_s:g} s at {shown} (counted from when the server "
                               "could start it)", retryable=True, timed_out=True) from None
        except aiohttp.ClientError as exc:  # refused, reset, dropped, truncated payload
            raise BackendError(transport_problem(exc, shown), retryable=True,
                               connection=is_connection_failure(exc)) from None
        if resp.status != 200:
            try:
                parsed = loads(raw)
            except ValueError:
                parsed = None
            said = error_message(parsed) or raw[:300].decode("utf-8", "replace")
            hint = " (does the base URL need /v1?)" if resp.status == 404 and not _has_v1(endpoint.url) else ""
            raise BackendError(f"HTTP {resp.status} from {shown}: {said[:300]}{hint}",
                               retryable=resp.status in RETRYABLE_STATUS or resp.status >= 500,
                               retry_after=parse_retry_after(resp.headers.get("Retry-After")),
                               status=resp.status, body=parsed)
        return parse_reply(raw, shown)

    async def aclose(self) -> None:
        for watcher in self._watchers or ():
            watcher.cancel()
        self._watchers = None
        if self._session is not None:
            await self._session.close()
            self._session = None


def with_tools(body: dict[str, Any], tools: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A chat body offering native tools, when there are any: the model may call any of them, or
    answer in text (a batch input line carries the same, runner/batchfile.py)."""
    if tools:
        body["tools"] = list(tools)
        body["tool_choice"] = "auto"
    return body


async def pause_unless_stopped(seconds: float, may_send: Callable[[], bool], step_s: float = 0.25) -> bool:
    """Wait `seconds` (a retry's back-off), asking `may_send` every `step_s`: False as soon as the
    run stops sending (a --deadline passed while the retry waited), True after the whole wait."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        if not may_send():
            return False
        await asyncio.sleep(min(step_s, left))
    return may_send()


def endpoint_url(base_url: str, path: str) -> str:
    """`path` under the base URL, its query string kept after it (`…/v1?api-version=…`)."""
    parts = urlsplit(base_url)
    return urlunsplit(parts._replace(path=f"{parts.path.rstrip('/')}/{path}"))


def _has_v1(base_url: str) -> bool:
    """Whether the base URL's path has the /v1 that OpenAI-compatible servers serve under."""
    return "/v1" in urlsplit(base_url).path


def error_message(body: Any) -> str | None:
    """The message an error body carries (OpenAI's `error.message`, vLLM's `message`, FastAPI's
    `detail`), or None."""
    if not isinstance(body, dict):
        return None
    inner = body.get("error")
    for value in ((inner or {}).get("message") if isinstance(inner, dict) else inner, body.get("message"),
                  body.get("detail")):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def transport_problem(exc: aiohttp.ClientError, url: str) -> str:
    """What went wrong on the wire, in words (aiohttp's class names say little to a user)."""
    if isinstance(exc, aiohttp.ClientPayloadError):
        return f"the reply from {url} was cut off: the connection closed before the whole body arrived"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return f"{url} closed the connection without replying"
    if isinstance(exc, aiohttp.ClientConnectorError):
        return f"could not connect to {url} ({exc.os_error.strerror or type(exc.os_error).__name__})"
    if isinstance(exc, aiohttp.ClientOSError):
        return f"the connection to {url} failed ({exc.strerror or 'a network error'})"
    return f"the request to {url} failed on the connection ({type(exc).__name__})"


def is_connection_failure(exc: aiohttp.ClientError) -> bool:
    """No reply came at all: the connection was refused, reset or closed before any answer (a
    server that died or is not listening; a reset while sending, aiohttp's
    ClientConnectionResetError, included); a reply cut off mid-body is not one."""
    return isinstance(exc, aiohttp.ClientOSError | aiohttp.ServerDisconnectedError | ConnectionResetError)


def body_excerpt(raw: bytes, limit: int = 200) -> str:
    """A reply body as text for a message: decoded, on one line, cut at `limit` characters."""
    text = " ".join(raw.decode("utf-8", "replace").split())
    if not text:
        return "(an empty body)"
    return f"'{text[:limit]}…' ({len(raw):,} bytes)" if len(text) > limit else f"'{text}'"


def _text(content: Any) -> str | None:
    """A message's content: a string, or the text parts of a list of parts; None if neither."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type", "text") == "text"]
        texts = [p for p in parts if isinstance(p, str)]
        if len(texts) == len(parts):
            return "".join(texts)
    return None


def parse_reply(raw: bytes, url: str) -> dict[str, Any]:
    """The Completion fields of a chat-completions reply body."""
    try:
        doc = loads(raw)
    except ValueError:
        doc = _counted_by_constants(raw)
        if doc is None:
            raise BackendError(f"malformed response body from {url} (not JSON): {body_excerpt(raw)}",
                               retryable=True) from None
    return reply_fields(doc, url, lambda: body_excerpt(raw))


def _counted_by_constants(raw: bytes) -> dict[str, Any] | None:
    """A body whose one fault is NaN or Infinity in its usage (a server's counter gone wrong, not
    JSON): read with them, so that the answer is kept and the counts are recorded as missing
    (models/usage.py); None when it is not JSON otherwise, or holds them anywhere else."""
    try:
        doc = loads(raw, constants=True)
    except ValueError:
        return None
    if not isinstance(doc, dict) or has_non_finite({k: v for k, v in doc.items() if k != "usage"}):
        return None
    return doc


def reply_fields(doc: Any, url: str, excerpt: Callable[[], str]) -> dict[str, Any]:
    """The Completion fields of a chat-completions reply already parsed (a batch output's body is
    read as it is, not written out again: it may nest past what a writer takes); `excerpt()`
    shows the body in a message."""
    try:
        choice = doc["choices"][0]
        message = choice.get("message") or {}
        if not isinstance(message, dict):  # e.g. "message": "hi"
            raise TypeError("not an object")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise BackendError(f"malformed response body from {url} (JSON, but not a chat-completions reply): "
                           f"{excerpt()}", retryable=True) from None
    text = _text(message.get("content"))
    if text is None:
        raise BackendError(f"message content from {url} is neither text nor text parts", retryable=False)
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    calls = tool_calls_of(message.get("tool_calls"))
    if (message.get("content") is None and not reasoning and not calls
            and not isinstance(choice.get("finish_reason"), str)):
        # no text, no reasoning and no reason for stopping: the server failed to answer, not the model
        raise BackendError(f"no answer from {url}: the message content is null and no finish_reason says why",
                           retryable=True)
    counts, note = usage_counts(doc.get("usage"))  # counts that cannot be right are missing: the answer is kept
    return {"text": text, **counts, "usage_note": note,
            "finish_reason": choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None,
            "reasoning": reasoning if isinstance(reasoning, str) else None, "tool_calls": calls}


def tool_calls_of(value: Any) -> tuple[dict[str, Any], ...]:
    """A message's `tool_calls` as {"id", "name", "arguments"} each, `arguments` as it came (a JSON
    string by the API; some servers send an object): what it holds is the model's answer, read by
    the task (tasks/gorillahard/native/envelope.py), never here. A call without a function name
    keeps an empty name, so that it shows and is scored, not dropped; arguments nested past
    MAX_ARGUMENT_DEPTH are kept as their text (`bounded`)."""
    if not isinstance(value, list):
        return ()
    calls = []
    for entry in value:
        function = entry.get("function") if isinstance(entry, dict) else None
        function = function if isinstance(function, dict) else {}
        name = function.get("name")
        calls.append({"id": entry.get("id") if isinstance(entry, dict) and isinstance(entry.get("id"), str) else None,
                      "name": name if isinstance(name, str) else "", "arguments": bounded(function.get("arguments"))})
    return tuple(calls)


def bounded(arguments: Any) -> Any:
    """A call's arguments as they came, unless an object or array nested deeper than
    MAX_ARGUMENT_DEPTH: then its JSON text, so that nothing after the reply's parse holds it."""
    if isinstance(arguments, dict | list) and nested_deeper_than(arguments, MAX_ARGUMENT_DEPTH):
        return dumps_any_depth(arguments)
    return arguments
