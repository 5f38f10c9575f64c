"""An endpoint's Batch API on the wire, in OpenAI's shape (which providers and gateways copy).

    POST /files                 a JSONL file, with purpose `batch`          -> {"id": "file-..."}
    POST /batches               {input_file_id, endpoint, completion_window, metadata} -> a batch
    GET  /batches/{id}          the batch: status, request_counts, output_file_id, error_file_id
    GET  /batches?after=...     the batches, newest first (a batch whose id was never written is found here)
    GET  /files/{id}/content    the output or error file

What the server refuses for a while (429, 5xx, a dropped connection, a time-out) is asked again
after its Retry-After, never sooner than our own back-off, at most `max_retries` times; then the
run stops with a line and the same command continues (errors.RunPaused: nothing is lost, the
batches the run folder records are kept). Any other 4xx is the request's fault: one line with the
server's message. A batch the server answers 404 for is `BatchUnknown`: the caller says what it
means. JSON replies are read with the cap every reply has (models/bodies.py); a file's content is
streamed to disk through the secret masking, up to MAX_FILE_BYTES. The API key goes only into the
Authorization header.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from merabench.errors import ConfigError, MerabenchError, RunPaused
from merabench.models.bodies import CHUNK_BYTES, read_capped
from merabench.models.endpoints import jittered_backoff, shown_wait
from merabench.models.openai_compat import (
    RETRYABLE_STATUS,
    endpoint_url,
    error_message,
    parse_retry_after,
    transport_problem,
)
from merabench.rows.jsonio import loads
from merabench.support.files import replacing
from merabench.support.redaction import redact, redact_url, register_secret, register_url

CHAT_ENDPOINT = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
MAX_FILE_BYTES = 4 << 30      # an output file read no further (50,000 answers are far below)
LONGEST_WAIT_S = 900.0        # a Retry-After past this stops the run instead (the same command continues)
MAX_LIST_PAGES = 20           # pages of 100 batches looked through for one whose id was never written


class BatchUnknown(MerabenchError):
    """The server answers 404 for a batch id merabench recorded."""


@dataclass(frozen=True)
class BatchInfo:
    """What the server says of one batch."""

    id: str
    status: str
    input_file_id: str | None = None
    output_file_id: str | None = None
    error_file_id: str | None = None
    total: int = 0
    completed: int = 0
    failed: int = 0
    created_at: float | None = None
    expires_at: float | None = None
    errors: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @classmethod
    def of(cls, doc: Any, where: str) -> BatchInfo:
        if not isinstance(doc, dict) or not isinstance(doc.get("id"), str) or not isinstance(doc.get("status"), str):
            raise ConfigError(f"{where} did not answer with a batch (an object with an id and a status): does the "
                              "base URL serve the Batch API?")
        counts = given if isinstance(given := doc.get("request_counts"), dict) else {}
        # the status in lower case: some providers that copy the API write COMPLETED
        return cls(id=doc["id"], status=doc["status"].lower(), input_file_id=_text(doc.get("input_file_id")),
                   output_file_id=_text(doc.get("output_file_id")), error_file_id=_text(doc.get("error_file_id")),
                   total=_count(counts.get("total")), completed=_count(counts.get("completed")),
                   failed=_count(counts.get("failed")), created_at=_time(doc.get("created_at")),
                   expires_at=_time(doc.get("expires_at")), errors=_errors(doc.get("errors")),
                   metadata=doc["metadata"] if isinstance(doc.get("metadata"), dict) else {})


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _count(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


def _time(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else None


def _errors(value: Any) -> tuple[str, ...]:
    """A batch's `errors`: OpenAI's {"data": [{"code", "message", "line"}]}, or a list of strings."""
    entries = value.get("data") if isinstance(value, dict) else value
    if not isinstance(entries, list):
        return (value,) if isinstance(value, str) and value else ()
    said = []
    for entry in entries[:5]:
        if isinstance(entry, dict):
            line = f" (line {entry['line']})" if isinstance(entry.get("line"), int) else ""
            said.append(f"{entry.get('code') or 'error'}: {entry.get('message') or ''}{line}".strip())
        elif isinstance(entry, str):
            said.append(entry)
    return tuple(said)


@dataclass(frozen=True)
class _Reply:
    status: int
    body: bytes = b""
    retry_after: float | None = None


Send = Callable[[aiohttp.ClientSession, str], Awaitable[_Reply]]


class BatchClient:
    """One endpoint's Batch API (see the module's docstring); use as `async with`."""

    def __init__(self, base_url: str, api_key: str | None, *, max_retries: int = 5, timeout_s: float = 600.0,
                 retry_delay_s: float = 1.0) -> None:
        register_url(base_url)
        register_secret(api_key)
        self.base_url = base_url.rstrip("/")
        self.shown = redact_url(self.base_url)
        self._api_key = api_key
        self.max_retries = max_retries
        self.timeout_s = timeout_s
        self.retry_delay_s = retry_delay_s
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> BatchClient:
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        self._session = aiohttp.ClientSession(headers=headers, timeout=aiohttp.ClientTimeout(
            total=None, sock_connect=min(30.0, self.timeout_s), sock_read=self.timeout_s))
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def upload(self, path: Path) -> str:
        """The file's id once uploaded with purpose `batch`."""
        async def send(session: aiohttp.ClientSession, url: str) -> _Reply:
            with path.open("rb") as fh:
                form = aiohttp.FormData()
                form.add_field("purpose", "batch")
                form.add_field("file", fh, filename=path.name, content_type="application/jsonl")
                async with session.post(url, data=form) as resp:
                    return await self._reply(resp, url)

        doc = self._json(await self._request("files", f"the upload of {path.name}", send), "the upload")
        file_id = doc.get("id") if isinstance(doc, dict) else None
        if not isinstance(file_id, str) or not file_id:
            raise ConfigError(f"the Batch API at {self.shown} answered the upload of {path.name} without a file id")
        return file_id

    async def create(self, file_id: str, metadata: Mapping[str, str]) -> BatchInfo:
        body = {"input_file_id": file_id, "endpoint": CHAT_ENDPOINT, "completion_window": COMPLETION_WINDOW,
                "metadata": dict(metadata)}
        reply = await self._request("batches", f"creating a batch from {file_id}", self._posting(body))
        return BatchInfo.of(self._json(reply, "creating a batch"), f"the Batch API at {self.shown}")

    async def retrieve(self, batch_id: str) -> BatchInfo:
        reply = await self._request(f"batches/{batch_id}", f"about batch {batch_id}", self._getting())
        if reply.status == 404:
            raise BatchUnknown(f"the Batch API at {self.shown} does not know batch {batch_id} (HTTP 404)")
        return BatchInfo.of(self._json(reply, f"batch {batch_id}"), f"the Batch API at {self.shown}")

    async def find(self, input_file_id: str) -> tuple[BatchInfo | None, bool]:
        """The batch made from this input file, if the server lists one; and whether it lists
        batches at all (a server without the listing answers 404 or 405)."""
        after: str | None = None
        for _ in range(MAX_LIST_PAGES):
            path = "batches?limit=100" + (f"&after={after}" if after else "")
            reply = await self._request(path, "the list of batches", self._getting())
            if reply.status in (404, 405):
                return None, False
            doc = self._json(reply, "the list of batches")
            entries = doc.get("data") if isinstance(doc, dict) else None
            if not isinstance(entries, list):
                return None, False
            for entry in entries:
                if isinstance(entry, dict) and entry.get("input_file_id") == input_file_id:
                    return BatchInfo.of(entry, f"the Batch API at {self.shown}"), True
            if not doc.get("has_more") or not entries or not isinstance(entries[-1], dict):
                return None, True
            after = entries[-1].get("id")
        return None, True

    async def download(self, file_id: str, dest: Path) -> None:
        """The file's content into `dest` (replaced whole once complete; secrets masked)."""
        async def send(session: aiohttp.ClientSession, url: str) -> _Reply:
            async with session.get(url) as resp:
                if resp.status != 200:
                    return await self._reply(resp, url)
                await _save(resp, dest, redact_url(url))
                return _Reply(200)

        reply = await self._request(f"files/{file_id}/content", f"the file {file_id}", send)
        if reply.status != 200:
            self._json(reply, f"the file {file_id}")  # raises with the server's message

    def _posting(self, body: Mapping[str, Any]) -> Send:
        async def send(session: aiohttp.ClientSession, url: str) -> _Reply:
            async with session.post(url, data=orjson.dumps(body), headers={"Content-Type": "application/json"}) as resp:
                return await self._reply(resp, url)
        return send

    def _getting(self) -> Send:
        async def send(session: aiohttp.ClientSession, url: str) -> _Reply:
            async with session.get(url) as resp:
                return await self._reply(resp, url)
        return send

    @staticmethod
    async def _reply(resp: aiohttp.ClientResponse, url: str) -> _Reply:
        return _Reply(resp.status, await read_capped(resp, redact_url(url)),
                      parse_retry_after(resp.headers.get("Retry-After")))

    async def _request(self, path: str, what: str, send: Send) -> _Reply:
        """The server's final reply to one call: a 200 or a refusal that is not for a while;
        retried as the module's docstring says, else RunPaused."""
        if self._session is None:
            raise RuntimeError("BatchClient is used as `async with`")
        url = endpoint_url(self.base_url, path)
        failures = 0
        while True:
            try:
                reply = await send(self._session, url)
            except (aiohttp.ClientError, TimeoutError) as exc:
                problem = (transport_problem(exc, redact_url(url)) if isinstance(exc, aiohttp.ClientError)
                           else f"no answer within {self.timeout_s:g} s")
                retry_after = None
            else:
                if reply.status == 200 or (reply.status not in RETRYABLE_STATUS and reply.status < 500):
                    return reply
                problem, retry_after = f"HTTP {reply.status}: {self._said(reply)}", reply.retry_after
            failures += 1
            wait = max(jittered_backoff(self.retry_delay_s, failures), retry_after or 0.0)
            if failures > self.max_retries or wait > LONGEST_WAIT_S:
                asked = f"; it asked to wait {shown_wait(wait)}" if wait > LONGEST_WAIT_S else ""
                raise RunPaused(f"the Batch API at {self.shown} did not answer {what} ({problem}; {failures} "
                                f"attempt(s){asked}); nothing is lost: the batches the run folder records are "
                                "kept, and the same command continues")
            await asyncio.sleep(wait)

    def _json(self, reply: _Reply, what: str) -> Any:
        if reply.status != 200:
            hint = " (does the base URL serve the Batch API, and end in /v1?)" if reply.status in (404, 405) else ""
            raise ConfigError(f"the Batch API at {self.shown} refused {what}: HTTP {reply.status}: "
                              f"{self._said(reply)}{hint}")
        try:
            return loads(reply.body)
        except ValueError:
            raise ConfigError(f"the Batch API at {self.shown} answered {what} with a body that is not JSON") from None

    @staticmethod
    def _said(reply: _Reply) -> str:
        try:
            parsed = loads(reply.body)
        except ValueError:
            parsed = None
        return (error_message(parsed) or reply.body[:200].decode("utf-8", "replace").strip() or "no message")[:300]


async def _save(resp: aiohttp.ClientResponse, dest: Path, shown: str) -> None:
    """A file's content written line by line, secrets masked, into `dest` once whole."""
    size = 0
    pending = bytearray()
    with replacing(dest, binary=False) as fh:
        async for chunk in resp.content.iter_chunked(CHUNK_BYTES):
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                raise ConfigError(f"the file at {shown} is larger than {MAX_FILE_BYTES >> 30} GiB: not read further")
            pending += chunk
            end = pending.rfind(b"\n")
            if end >= 0:
                fh.write(redact(pending[:end + 1].decode("utf-8", "replace")))
                del pending[:end + 1]
        if pending:
            fh.write(redact(pending.decode("utf-8", "replace")) + "\n")
