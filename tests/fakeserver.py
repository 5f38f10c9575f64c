"""A real OpenAI-compatible chat server on 127.0.0.1 that misbehaves on purpose.

Runs aiohttp in its own thread and loop. `plan(n, body)` decides what the n-th request (1-based,
counted over all requests) gets: "ok", "slow", "429", "503", "500", "truncate" (a body shorter
than its Content-Length, then the connection closes), "drop" (the connection closes before any
response), "400" (with `error_body`, when set, as the JSON error), "401" (an error that repeats
the request's Authorization header and query string, as careless servers do), or "die" (the server
stops listening and resets every connection, as a killed process does: later requests are
refused at connect). `reply(body)` gives the
answer: a string, or a dict with `content` (None for a null content), and optionally
`reasoning_content`, `reasoning`, `tool_calls` (as the API's message carries them), `finish_reason`
and `usage`. Every request is logged with its
headers and body.

Like an engine with a batch limit (llama.cpp's slots): with `slots` set, that many requests are
served at a time and the rest wait in arrival order; a request takes `latency_s` plus
`token_latency_s` per completion token of its answer; a request whose client gave up (closed the
connection) keeps its slot until its work is done, as a real engine finishes its step
(`abandoned` counts them; one still queued when its client left is skipped). `set_slots(n)`
changes the capacity while running; `props=True` answers llama.cpp's `GET /props` with
`total_slots`, `metrics=True` vLLM's `GET /metrics` with its running and waiting gauges.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import json
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

Plan = Callable[[int, dict[str, Any]], str]


def messages_key(body: dict[str, Any]) -> str:
    blob = json.dumps(body.get("messages"), ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _loads(text: str) -> Any:
    """A request's body: orjson reads a GorillaHard body of 23 KB in 34 us against json's 73; what it
    refuses and json takes (NaN, 1e400, a lone surrogate) is still read, as a lenient server would;
    an integer past 64 bits comes back a float (no test sends one)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def default_reply(body: dict[str, Any]) -> str:
    return "echo:" + body["messages"][-1]["content"][-30:]


@dataclass
class FakeServer:
    latency_s: float = 0.0
    plan: Plan = lambda n, body: "ok"  # noqa: E731
    reply: Callable[[dict[str, Any]], Any] = default_reply
    retry_after: str = "0.2"
    slow_s: float = 5.0
    error_message: str | None = None   # the message of 4xx/5xx error bodies
    error_body: Callable[[dict[str, Any]], dict[str, Any]] | None = None  # the whole 400 body, per request
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    port: int = 0
    ready: bool = True  # False: GET /v1/models answers 503 (a server still loading, forever)
    slots: int | None = None          # requests served at a time (None: all at once)
    token_latency_s: float = 0.0      # per completion token of the answer
    props: bool = False               # answer GET /props with total_slots, as llama.cpp does
    metrics: bool = False             # answer GET /metrics with vLLM's running and waiting gauges
    metrics_reads: int = 0
    #: llama.cpp's POST /apply-template: None, no such endpoint; True, a chat template that drops
    #: the tools it is sent (renders the messages only); False, one that renders them
    template_drops_tools: bool | None = None
    slots_said: int | None = None     # what /props claims as total_slots (None: the truth, `slots`)
    gauges_said: tuple[str, str] | None = None  # the running and waiting values /metrics shows (None: the truth)
    abandoned: int = 0                # requests whose client closed the connection before the answer
    served_at_once: int = 0           # the most requests in service at one moment
    _count: int = 0
    _busy: int = 0
    _slot_waiters: Any = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def answered(self) -> Counter:
        """How many requests each distinct message list got."""
        return Counter(messages_key(b) for b in self.requests)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json(loads=_loads)
        self._count += 1
        n = self._count
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        action = self.plan(n, body)
        answer = self.reply(body) if action in ("ok", "slow", "truncate") else None
        if not await self._work(request, action, answer):
            self.abandoned += 1
            return web.Response(status=499)
        if request.transport is None or request.transport.is_closing():
            self.abandoned += 1  # computed for nobody
        failed = self._failure(request, action, body)
        if failed is not None:
            return failed
        payload = _completion_payload(n, body, answer)
        if action == "truncate":
            resp = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
            resp.content_length = len(payload)
            await resp.prepare(request)
            await resp.write(payload[: len(payload) // 2])
            request.transport.close()
            return resp
        return web.Response(body=payload, content_type="application/json")

    async def _work(self, request: web.Request, action: str, answer: Any) -> bool:
        """A slot (when the server has slots), then the request's latency; False when the client
        left while queued for a slot."""
        if self.slots is not None and not await self._take_slot(request):
            return False
        try:
            self.served_at_once = max(self.served_at_once, self._busy)
            work = self.latency_s + self.token_latency_s * _tokens(answer)
            if work:
                await asyncio.sleep(work)
            if action == "slow":
                await asyncio.sleep(self.slow_s)
        finally:
            if self.slots is not None:
                self._busy -= 1
                self._hand_slots()
        return True

    def _failure(self, request: web.Request, action: str, body: dict) -> web.StreamResponse | None:
        """The response of a planned failure (an HTTP error, a dropped connection, a dying
        server), or None for an answer."""
        if action in ("429", "503"):
            return web.json_response({"error": {"message": self.error_message or "slow down"}}, status=int(action),
                                     headers={"Retry-After": self.retry_after})
        if action == "401":
            said = f"invalid credentials: {request.headers.get('Authorization')} at {request.path_qs}"
            return web.json_response({"error": {"message": said}}, status=401)
        if action == "400" and self.error_body is not None:
            return web.json_response(self.error_body(body), status=400)
        if action in ("500", "400"):
            return web.json_response({"error": {"message": self.error_message or f"fake {action}"}}, status=int(action))
        if action == "drop":
            request.transport.close()
            return web.Response(status=200)
        if action == "die":
            self._die()
            return web.Response(status=200)
        return None

    async def _take_slot(self, request: web.Request) -> bool:
        """Wait for a free slot in arrival order; False when the client left while queued."""
        if self._slot_waiters is None:
            self._slot_waiters = collections.deque()
        if self._busy >= (self.slots or 0) or self._slot_waiters:
            waiter = asyncio.get_running_loop().create_future()
            self._slot_waiters.append(waiter)
            await waiter
        else:
            self._busy += 1
        if request.transport is None or request.transport.is_closing():
            self._busy -= 1
            self._hand_slots()
            return False
        return True

    def _hand_slots(self) -> None:
        while self._slot_waiters and self._busy < (self.slots or 0):
            waiter = self._slot_waiters.popleft()
            if not waiter.done():
                self._busy += 1
                waiter.set_result(None)

    def _die(self) -> None:
        """Stop listening and reset every open connection (on the server's loop)."""
        self._listener.close()
        for handler in self._runner.server.connections:
            if handler.transport is not None:
                handler.transport.abort()

    def set_slots(self, slots: int) -> None:
        """Change how many are served at a time, from any thread (a server losing half its GPUs)."""
        def change() -> None:
            self.slots = slots
            self._hand_slots()
        self._loop.call_soon_threadsafe(change)

    async def _props(self, request: web.Request) -> web.Response:
        if not self.props:
            return web.json_response({"error": {"message": "not found"}}, status=404)
        said = self.slots_said if self.slots_said is not None else self.slots or 1
        return web.json_response({"total_slots": said, "model_path": "fake.gguf"})

    async def _apply_template(self, request: web.Request) -> web.Response:
        if self.template_drops_tools is None:
            return web.json_response({"error": {"message": "not found"}}, status=404)
        body = await request.json()
        prompt = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in body["messages"])
        if not self.template_drops_tools:
            prompt = f"<tools>{json.dumps(body.get('tools'))}</tools>\n" + prompt
        return web.json_response({"prompt": prompt + "<|im_start|>assistant\n"})

    async def _metrics(self, request: web.Request) -> web.Response:
        if not self.metrics:
            return web.Response(status=404, text="not found")
        self.metrics_reads += 1
        waiting = sum(1 for w in self._slot_waiters or () if not w.done())
        running, queued = self.gauges_said or (str(float(self._busy)), str(float(waiting)))
        return web.Response(text="# HELP vllm:num_requests_running Number of requests running.\n"
                                 f'vllm:num_requests_running{{model_name="fake"}} {running}\n'
                                 f'vllm:num_requests_waiting{{model_name="fake"}} {queued}\n')

    async def _models(self, request: web.Request) -> web.Response:
        if not self.ready:
            return web.json_response({"error": {"message": "loading"}}, status=503)
        return web.json_response({"object": "list", "data": [{"id": "fake", "object": "model"}]})

    def start(self) -> FakeServer:
        def app() -> web.Application:
            app = web.Application()
            app.router.add_post("/v1/chat/completions", self._handle)
            app.router.add_get("/v1/models", self._models)
            app.router.add_get("/props", self._props)
            app.router.add_get("/metrics", self._metrics)
            app.router.add_post("/apply-template", self._apply_template)
            return app

        serve_in_thread(self, app)
        return self

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        async def shutdown() -> None:
            await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


def serve_in_thread(server: Any, make_app: Callable[[], web.Application]) -> None:
    """Serve make_app()'s application on 127.0.0.1:server.port from a thread and event loop of
    its own (made there, so the app's asyncio objects belong to that loop); server gets _loop,
    _runner, _listener, _thread and the port bound. Returns once it listens."""
    ready = threading.Event()

    def serve() -> None:
        server._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(server._loop)
        server._runner = web.AppRunner(make_app(), access_log=None)
        server._loop.run_until_complete(server._runner.setup())
        site = web.TCPSite(server._runner, "127.0.0.1", server.port)
        server._loop.run_until_complete(site.start())
        server._listener = site._server
        server.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        ready.set()
        server._loop.run_forever()

    server._thread = threading.Thread(target=serve, daemon=True)
    server._thread.start()
    ready.wait(10)


def _completion_payload(n: int, body: dict, answer: Any) -> bytes:
    """A chat completion's bytes: the answer as text, or a dict with content, reasoning fields,
    finish_reason and usage."""
    message: dict[str, Any] = {"role": "assistant"}
    finish, usage = "stop", {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    if isinstance(answer, dict):
        message["content"] = answer.get("content")
        for key in ("reasoning_content", "reasoning", "tool_calls"):
            if key in answer:
                message[key] = answer[key]
        finish = answer.get("finish_reason", "tool_calls" if answer.get("tool_calls") else finish)
        usage = answer.get("usage", usage)
    else:
        message["content"] = answer
    doc = {"id": f"cmpl-{n}", "object": "chat.completion", "model": body.get("model"),
           "choices": [{"index": 0, "finish_reason": finish, "message": message}], "usage": usage}
    try:
        return json.dumps(doc, ensure_ascii=False).encode()
    except UnicodeEncodeError:  # a lone surrogate: escaped, as a real server sends it
        return json.dumps(doc).encode()


def _tokens(answer: Any) -> int:
    """Completion tokens of an answer: its usage's, else about a token per four characters."""
    if isinstance(answer, dict):
        usage = answer.get("usage") or {}
        if isinstance(usage.get("completion_tokens"), int):
            return usage["completion_tokens"]
        answer = answer.get("content") or ""
    return len(answer) // 4 + 1 if isinstance(answer, str) else 0


def main() -> None:
    """Run as a server process, the way `--serve-cmd` starts an engine: python fakeserver.py --port N."""
    import argparse
    import os
    import sys
    import time

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--startup", type=float, default=0.3, help="seconds before listening, like a model loading")
    parser.add_argument("--die-at-start", action="store_true", help="print an error and exit 3 while loading")
    parser.add_argument("--never-ready", action="store_true", help="listen, but answer /v1/models with 503")
    parser.add_argument("--pidfile", help="write this process's id here")
    parser.add_argument("--detach", type=int, choices=(1, 2), help="serve from a child in its own session and "
                        "exit: 1 forks once (a launcher that forks and exits), 2 forks twice (a daemon)")
    parser.add_argument("--helper", help="also fork a detached helper that sleeps for ever, its id in this file")
    parser.add_argument("--print-env", action="store_true", help="print the environment, as some servers do")
    parser.add_argument("--slots", type=int, help="requests served at a time; the rest queue")
    parser.add_argument("--props", action="store_true", help="answer GET /props with total_slots (llama.cpp)")
    args = parser.parse_args()
    for _ in range(args.detach or 0):  # each fork's parent exits at once; the child goes on
        if os.fork():
            os._exit(0)
        os.setsid()
    if args.helper and os.fork() == 0:
        os.setsid()
        if os.fork():
            os._exit(0)
        with open(args.helper, "w") as fh:
            fh.write(str(os.getpid()))
        while True:
            time.sleep(3600)
    if args.print_env:
        print("\n".join(f"{k}={v}" for k, v in sorted(os.environ.items())), flush=True)
    if args.pidfile:
        with open(args.pidfile, "w") as fh:
            fh.write(str(os.getpid()))
    print(f"fake engine: loading, pid {os.getpid()}", flush=True)
    time.sleep(args.startup)
    if args.die_at_start:
        print("RuntimeError: CUDA out of memory while loading the weights", flush=True)
        sys.exit(3)
    FakeServer(latency_s=args.latency, port=args.port, ready=not args.never_ready, slots=args.slots,
               props=args.props).start()
    print(f"fake engine: listening on 127.0.0.1:{args.port}", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
