"""A Batch API on 127.0.0.1, in OpenAI's shape, that misbehaves on purpose.

`/v1/files` takes an upload (multipart, `purpose=batch`) and gives a file's content back;
`/v1/batches` creates, retrieves, lists (newest first, `after` and `has_more`) and cancels
batches; `/v1/chat/completions` answers directly, as the endpoint itself (for
`--batch-fallback direct`). A batch is `validating` for `validate_s`, then `in_progress`, answering
a line every `line_s` (each answered with `reply(body)`, as tests/fakeserver.py answers), then
`finalizing` and `completed`, with an output file and, when some lines failed, an error file.

What can go wrong, each on purpose:
- `fail(n, custom_id, attempt)`: a status (500, 400) for the batch's n-th line (1-based), the
  `attempt`-th time its custom id is in a batch, or None;
- `expire_after`: after that many lines the batch expires; the rest go to the error file as
  `batch_expired`;
- `cancel_after`: after that many lines the batch is cancelled (as from the provider's console);
  the rest get no line at all; `POST /v1/batches/{id}/cancel` does the same at once;
- `invalid`: the batch fails validation with this message (no file at all);
- `forget(id)`: the server no longer knows the batch (404);
- `throttle`: the first that many retrievals answer 429 with `Retry-After: retry_after`;
- `listing=False`: no `GET /v1/batches` (404);
- `hold`: batches stay `in_progress` until `release()`;
- `on_create(phase)`: called with "before" as a create arrives (False: no batch is made) and
  "after" once the batch exists, before the answer leaves (a test kills the client there).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from fakeserver import _completion_payload, default_reply, serve_in_thread


@dataclass
class BatchServer:
    reply: Callable[[dict[str, Any]], Any] = default_reply
    validate_s: float = 0.05
    line_s: float = 0.0
    fail: Callable[[int, str, int], int | None] = lambda n, custom_id, attempt: None
    expire_after: int | None = None
    cancel_after: int | None = None
    invalid: str | None = None
    throttle: int = 0
    retry_after: str = "0.3"
    listing: bool = True
    hold: bool = False
    on_create: Callable[[str], bool | None] = lambda phase: None
    port: int = 0
    files: dict[str, bytes] = field(default_factory=dict)
    purposes: dict[str, str] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    forgotten: set[str] = field(default_factory=set)
    attempts: Counter = field(default_factory=Counter)   # custom id -> how many batches held it
    direct: list[dict[str, Any]] = field(default_factory=list)
    retrievals: list[float] = field(default_factory=list)  # when each GET /v1/batches/{id} came
    authorization: set[str] = field(default_factory=set)   # the Authorization headers seen
    throttled: int = 0
    _ids: Any = field(default_factory=lambda: itertools.count(1))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def lines_of(self, batch_id: str) -> list[dict[str, Any]]:
        """The input lines a batch was created with."""
        raw = self.files[self.batches[batch_id]["input_file_id"]].decode("utf-8")
        return [json.loads(line) for line in raw.splitlines() if line.strip()]

    def forget(self, batch_id: str) -> None:
        self.forgotten.add(batch_id)

    def release(self) -> None:
        self._loop.call_soon_threadsafe(self._released.set)

    # ---- files

    async def _upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form.get("file")
        if form.get("purpose") != "batch" or upload is None or isinstance(upload, str):
            return web.json_response({"error": {"message": "purpose must be batch, with a file"}}, status=400)
        file_id = f"file-{next(self._ids)}"
        self.files[file_id] = upload.file.read()
        self.purposes[file_id] = "batch"
        return web.json_response({"id": file_id, "object": "file", "bytes": len(self.files[file_id]),
                                  "created_at": int(time.time()), "filename": upload.filename, "purpose": "batch"})

    async def _content(self, request: web.Request) -> web.Response:
        found = self.files.get(request.match_info["file_id"])
        if found is None:
            return web.json_response({"error": {"message": "no such file"}}, status=404)
        return web.Response(body=found, content_type="application/octet-stream")

    # ---- batches

    async def _create(self, request: web.Request) -> web.Response:
        body = await request.json()
        if self.on_create("before") is False:  # the create never happens (the client was killed first)
            return web.json_response({"error": {"message": "gone"}}, status=500)
        if body.get("input_file_id") not in self.files or body.get("endpoint") != "/v1/chat/completions" \
                or body.get("completion_window") != "24h":
            return web.json_response({"error": {"message": f"bad batch request {body}"}}, status=400)
        now = int(time.time())
        batch_id = f"batch_{next(self._ids)}"
        batch = {"id": batch_id, "object": "batch", "endpoint": body["endpoint"], "errors": None,
                 "input_file_id": body["input_file_id"], "completion_window": "24h", "status": "validating",
                 "output_file_id": None, "error_file_id": None, "created_at": now, "expires_at": now + 86400,
                 "request_counts": {"total": 0, "completed": 0, "failed": 0}, "metadata": body.get("metadata")}
        self.batches[batch_id] = batch
        self._tasks.append(asyncio.get_running_loop().create_task(self._process(batch)))
        self.on_create("after")
        return web.json_response(batch)

    async def _retrieve(self, request: web.Request) -> web.Response:
        batch_id = request.match_info["batch_id"]
        self.retrievals.append(time.monotonic())
        if self.throttled < self.throttle:
            self.throttled += 1
            return web.json_response({"error": {"message": "slow down"}}, status=429,
                                     headers={"Retry-After": self.retry_after})
        if batch_id not in self.batches or batch_id in self.forgotten:
            return web.json_response({"error": {"message": f"No batch found with id '{batch_id}'"}}, status=404)
        return web.json_response(self.batches[batch_id])

    async def _list(self, request: web.Request) -> web.Response:
        if not self.listing:
            return web.json_response({"error": {"message": "not found"}}, status=404)
        newest = [b for b in reversed(list(self.batches.values())) if b["id"] not in self.forgotten]
        after = request.query.get("after")
        if after:
            ids = [b["id"] for b in newest]
            newest = newest[ids.index(after) + 1:] if after in ids else []
        limit = int(request.query.get("limit", "20"))
        page = newest[:limit]
        return web.json_response({"object": "list", "data": page, "has_more": len(newest) > limit,
                                  "first_id": page[0]["id"] if page else None,
                                  "last_id": page[-1]["id"] if page else None})

    async def _cancel(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["batch_id"])
        if batch is None:
            return web.json_response({"error": {"message": "no such batch"}}, status=404)
        batch["cancel"] = True
        if batch["status"] in ("validating", "in_progress"):
            batch["status"] = "cancelling"
        return web.json_response(batch)

    async def _process(self, batch: dict[str, Any]) -> None:
        await asyncio.sleep(self.validate_s)
        if self.invalid:
            batch.update(status="failed", errors={"object": "list", "data": [
                {"code": "invalid_request", "message": self.invalid, "line": 1}]})
            return
        lines = self.lines_of(batch["id"])
        batch["request_counts"]["total"] = len(lines)
        if batch["status"] == "validating":
            batch["status"] = "in_progress"
        outputs, errors = [], []
        for n, line in enumerate(lines, start=1):
            if batch.get("cancel") or (self.cancel_after is not None and n > self.cancel_after):
                return self._finish(batch, "cancelled", outputs, errors)
            if self.expire_after is not None and n > self.expire_after:
                errors += [_expired(rest) for rest in lines[n - 1:]]
                batch["request_counts"]["failed"] += len(lines) - n + 1
                return self._finish(batch, "expired", outputs, errors)
            await asyncio.sleep(self.line_s)
            self.attempts[line["custom_id"]] += 1
            status = self.fail(n, line["custom_id"], self.attempts[line["custom_id"]])
            (errors if status else outputs).append(self._answer(line, status))
            batch["request_counts"]["failed" if status else "completed"] += 1
        while self.hold and not self._released.is_set():
            await self._released.wait()
        batch["status"] = "finalizing"
        await asyncio.sleep(0.01)
        self._finish(batch, "completed", outputs, errors)

    def _answer(self, line: dict[str, Any], status: int | None) -> dict[str, Any]:
        n = next(self._ids)
        if status:
            body: Any = {"error": {"message": f"fake {status}: the server had an error", "type": "server_error"}}
        else:
            body = json.loads(_completion_payload(n, line["body"], self.reply(line["body"])))
        return {"id": f"batch_req_{n}", "custom_id": line["custom_id"],
                "response": {"status_code": status or 200, "request_id": f"req_{n}", "body": body}, "error": None}

    def _finish(self, batch: dict[str, Any], status: str, outputs: list[dict], errors: list[dict]) -> None:
        for kind, lines in (("output_file_id", outputs), ("error_file_id", errors)):
            if lines:
                file_id = f"file-{next(self._ids)}"
                self.files[file_id] = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines).encode()
                batch[kind] = file_id
        batch["status"] = status

    # ---- the endpoint itself

    async def _chat(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.direct.append(body)
        return web.Response(body=_completion_payload(len(self.direct), body, self.reply(body)),
                            content_type="application/json")

    @web.middleware
    async def _seen(self, request: web.Request, handler: Callable) -> web.StreamResponse:
        self.authorization.add(request.headers.get("Authorization", ""))
        return await handler(request)

    def start(self) -> BatchServer:
        def app() -> web.Application:
            self._released = asyncio.Event()
            self._tasks: list[asyncio.Task] = []
            app = web.Application(client_max_size=1 << 30, middlewares=[self._seen])
            app.router.add_post("/v1/files", self._upload)
            app.router.add_get("/v1/files/{file_id}/content", self._content)
            app.router.add_post("/v1/batches", self._create)
            app.router.add_get("/v1/batches", self._list)
            app.router.add_get("/v1/batches/{batch_id}", self._retrieve)
            app.router.add_post("/v1/batches/{batch_id}/cancel", self._cancel)
            app.router.add_post("/v1/chat/completions", self._chat)
            return app

        serve_in_thread(self, app)
        return self

    def stop(self) -> None:
        async def shutdown() -> None:
            for task in self._tasks:
                task.cancel()
            await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


def _expired(line: dict[str, Any]) -> dict[str, Any]:
    return {"id": None, "custom_id": line["custom_id"], "response": None,
            "error": {"code": "batch_expired", "message": "This request could not be executed before the completion "
                                                          "window expired."}}
