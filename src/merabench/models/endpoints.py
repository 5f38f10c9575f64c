"""A pool of data-parallel endpoints: least-busy selection, how many each is sent at once, the
time-out clocks of the requests it holds, and back-pressure.

In flight per endpoint: a fixed number (AIMD: halved on 429/503, grown back by one per `limit`
answers), or, with `--concurrency auto`, what models/concurrency.py learns from the endpoint's
answers and its own word (llama.cpp's `/props`). Workers waiting for room wait in one FIFO
queue and are woken one per free place (never all at once).

Back-pressure is the endpoint's state, not a request's: a 429/503 pauses the endpoint (every
request for it) once, however many of the requests in flight come back refused; the refusals of
requests sent before that pause began add nothing. The pause is the server's Retry-After, but
never shorter than our own exponential back-off (at least MIN_PAUSE_S): a server saying "retry
now" (0, a negative number, a past date, NaN) must not be sent thousands of requests a second.
When a server asks for more than the back-off ceiling, refuses for a minute with no answer in
between, or refuses more than `refusals_allowed` pauses in a row (REFUSALS_ALLOWED, or the run's
--max-retries when higher: the give-up rule counts attempts, not only time), the endpoint is given up; once every endpoint is, `acquire` raises
ServerRefused and the run stops sending (saved, scored, resumable). A pool made with
`unreachable_after` (a run's model and judge) also gives an endpoint up when that many retries
in a row, with no answer between, found it refusing or dropping connections: a server that died
after the preflight (a first attempt's failure does not count: one blip fails every request in flight).
One made with `hung_after` (the judge's) gives an endpoint up when that many retries in a row, with
no answer between, timed out: a server that accepts requests and never replies.

A request's time-out counts from when the server could have started it as far as we can tell:
of the requests in flight at an endpoint, only the oldest `clock_capacity()` have their clock
running; the rest wait behind our own requests, and their clocks start as the ones before them
finish. A time-out starts every clock (a server that stopped answering is not waited for one
request at a time: at most twice the time-out).
"""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections import deque
from dataclasses import dataclass, field

from merabench.errors import ServerRefused
from merabench.models.concurrency import AdaptiveLimit
from merabench.support.redaction import redact_url

MAX_BACKOFF_S = 60.0
REFUSALS_ALLOWED = 5   # pauses in a row with no answer between, at least, before an endpoint is given up
MIN_PAUSE_S = 0.25     # the shortest pause after a 429/503, whatever the server and --retry-delay say
REFUSING_FOR_S = 60.0  # refusals with no answer for this long: the endpoint is given up
UNREACHABLE_AFTER = 3  # retries in a row that find no connection: the endpoint is given up (the run opts in)
HUNG_AFTER = 3         # retries in a row that time out: the endpoint is given up (the judge opts in)


def jittered_backoff(base_s: float, n: int) -> float:
    """The n-th wait (1, 2, ...): exponential up to MAX_BACKOFF_S, drawn from its upper half so
    waits that began together do not end together."""
    ceiling = min(MAX_BACKOFF_S, base_s * 2 ** (n - 1))
    return random.uniform(ceiling / 2, ceiling)


def shown_wait(seconds: float) -> str:
    """A server's Retry-After as a person reads it: `30 s`, `26,600 days`, never `inf` or `1e+40`."""
    if seconds < 48 * 3600:
        return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.2g} s"
    days = seconds / 86400
    return f"{days:,.0f} days" if days < 365_000 else "more than 1,000 years"


@dataclass(eq=False)
class Endpoint:
    url: str
    max_limit: int
    adaptive: AdaptiveLimit | None = None
    limit: float = 0.0
    in_flight: int = 0
    paused_until: float = 0.0
    pause_epoch: int = 0                     # pauses so far: a refusal of a request sent before the last one adds nothing
    refusals: int = 0                        # pauses since the last answer
    refusing_since: float | None = None
    unreachable: int = 0                     # retries since the last answer that found no connection
    hung: int = 0                            # retries since the last answer that timed out
    gave_up: str | None = None
    slots: int | None = None                 # what the server said it serves at once
    sent: int = 0                            # requests sent to it (each attempt counts)
    peak: int = 0                            # the most it had in flight at once
    running: dict[asyncio.Timeout, None] = field(default_factory=dict)  # clocks running, oldest first
    waiting: deque[asyncio.Timeout] = field(default_factory=deque)     # clocks not started, oldest first

    def __post_init__(self) -> None:
        self.limit = float(self.max_limit)

    def cap(self) -> int:
        return self.adaptive.limit if self.adaptive is not None else max(1, int(self.limit))

    def load(self) -> float:
        return self.in_flight / self.cap()

    def clock_capacity(self) -> float:
        """How many of our requests in flight the server could be working on, as far as we can
        tell: its slots when it says; with `auto`, only the oldest (what the server serves at
        once is what is being learnt, and even a one-slot server could have started the oldest);
        with a fixed concurrency, every one (as the user chose)."""
        slots = self.adaptive.slots if self.adaptive is not None else self.slots  # its word, unless belied
        if slots is not None:
            return float(slots)
        return 1.0 if self.adaptive is not None else float("inf")


class EndpointPool:
    """Single-threaded (one event loop): picking and counting need no lock, only waiting does."""

    def __init__(self, urls: list[str], max_in_flight: int | None, *, timeout_s: float = 600.0,
                 retry_base_delay_s: float = 1.0, unreachable_after: int | None = None,
                 hung_after: int | None = None, refusals_allowed: int = REFUSALS_ALLOWED) -> None:
        """`max_in_flight` None: learnt per endpoint (`--concurrency auto`)."""
        self.endpoints = [Endpoint(u, max_in_flight or 1, AdaptiveLimit() if max_in_flight is None else None)
                          for u in urls]
        self.timeout_s = timeout_s
        self.retry_base_delay_s = retry_base_delay_s
        self.unreachable_after = unreachable_after
        self.hung_after = hung_after
        self.refusals_allowed = max(REFUSALS_ALLOWED, refusals_allowed)
        self.stopped: str | None = None
        self._waiters: deque[asyncio.Future[Endpoint]] = deque()
        self._timer: asyncio.TimerHandle | None = None
        self._turn = itertools.count()

    # -- room to send -----------------------------------------------------------------------------

    def _pick(self, now: float) -> Endpoint | None:
        ready = [e for e in self.endpoints
                 if e.paused_until <= now and e.gave_up is None and e.in_flight < e.cap()]
        if not ready:
            return None
        if len(ready) == 1:
            return ready[0]
        # least busy first; among equals, rotate so replicas share the load round-robin
        best = min(e.load() for e in ready)
        candidates = [e for e in ready if e.load() == best]
        return candidates[next(self._turn) % len(candidates)]

    async def acquire(self) -> Endpoint:
        if self.stopped is not None:
            raise ServerRefused(self.stopped)
        now = time.monotonic()
        if not self._waiters:
            endpoint = self._pick(now)
            if endpoint is not None:
                return self._take(endpoint, now)
        waiter: asyncio.Future[Endpoint] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        self._wake_at_pause_end(now)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                waiter.result().in_flight -= 1  # given to us as we were cancelled: hand it on
                self._dispatch()
            raise

    def _take(self, endpoint: Endpoint, now: float) -> Endpoint:
        endpoint.in_flight += 1
        endpoint.peak = max(endpoint.peak, endpoint.in_flight)
        if endpoint.adaptive is not None:
            endpoint.adaptive.start(now)
        return endpoint

    def _dispatch(self) -> None:
        now = time.monotonic()
        while self._waiters:
            waiter = self._waiters[0]
            if waiter.done():  # its worker was cancelled
                self._waiters.popleft()
                continue
            endpoint = self._pick(now)
            if endpoint is None:
                break
            self._waiters.popleft()
            waiter.set_result(self._take(endpoint, now))
        if self._waiters:
            self._wake_at_pause_end(now)

    def _wake_at_pause_end(self, now: float) -> None:
        ends = [e.paused_until for e in self.endpoints if e.paused_until > now and e.gave_up is None]
        if not ends:
            return
        when = min(ends)
        if self._timer is not None:
            if self._timer.when() <= when:  # one clock: the loop's is time.monotonic
                return
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_at(when, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self._dispatch()

    def release(self, endpoint: Endpoint, *, ok: bool, latency_s: float | None = None) -> None:
        """A request is back: `ok` when the server answered it (a 400 included), with its latency
        when it is an answer."""
        endpoint.in_flight -= 1
        if ok:
            endpoint.refusals, endpoint.refusing_since, endpoint.unreachable, endpoint.hung = 0, None, 0, 0
            if endpoint.adaptive is None:
                endpoint.limit = min(float(endpoint.max_limit), endpoint.limit + 1.0 / max(1.0, endpoint.limit))
            elif latency_s is not None:
                endpoint.adaptive.observe(latency_s, time.monotonic())
        if self._waiters:
            self._dispatch()

    # -- back-pressure ----------------------------------------------------------------------------

    def throttled(self, endpoint: Endpoint, status: int | None, retry_after: float | None, sent_epoch: int) -> None:
        """A 429/503 for a request sent during pause epoch `sent_epoch`."""
        if endpoint.gave_up is not None:
            return
        now = time.monotonic()
        said = f"HTTP {status}" + (f" with Retry-After {shown_wait(retry_after)}" if retry_after is not None else "")
        if retry_after is not None and retry_after > MAX_BACKOFF_S:
            self._give_up(endpoint, f"{redact_url(endpoint.url)} answered {said}, longer than the "
                                    f"{MAX_BACKOFF_S:g} s back-off ceiling")
            return
        if sent_epoch != endpoint.pause_epoch:  # sent before the last pause began: that pause answers it
            if retry_after is not None:
                endpoint.paused_until = max(endpoint.paused_until, now + retry_after)
            return
        endpoint.pause_epoch += 1
        endpoint.refusals += 1
        if endpoint.refusing_since is None:
            endpoint.refusing_since = now
        wait = max(retry_after or 0.0, self._backoff(endpoint.refusals))
        if endpoint.refusals > self.refusals_allowed or now + wait - endpoint.refusing_since > REFUSING_FOR_S:
            self._give_up(endpoint, f"{redact_url(endpoint.url)} kept refusing ({said}, {endpoint.refusals} times) "
                                    f"with no answer for {now - endpoint.refusing_since:.0f} s")
            return
        if endpoint.adaptive is not None:
            endpoint.adaptive.halve(now)
        else:
            endpoint.limit = max(1.0, endpoint.limit / 2)
        endpoint.paused_until = max(endpoint.paused_until, now + wait)
        if self._waiters:
            self._wake_at_pause_end(now)

    def unreachable(self, endpoint: Endpoint, error: str) -> None:
        """A retry found no connection (refused, reset, closed before any reply): with
        `unreachable_after`, that many in a row with no answer between give the endpoint up."""
        if endpoint.gave_up is not None or self.unreachable_after is None:
            return
        endpoint.unreachable += 1
        if endpoint.unreachable >= self.unreachable_after:
            self._give_up(endpoint, f"{redact_url(endpoint.url)} stopped accepting connections: {endpoint.unreachable} "
                                    f"retries in a row failed on the connection with no answer between (the last: "
                                    f"{error})")

    def hung(self, endpoint: Endpoint, error: str) -> None:
        """A retry timed out: with `hung_after`, that many in a row with no answer between give
        the endpoint up (each costs a whole time-out: a server that never replies)."""
        if endpoint.gave_up is not None or self.hung_after is None:
            return
        endpoint.hung += 1
        if endpoint.hung >= self.hung_after:
            self._give_up(endpoint, f"{redact_url(endpoint.url)} stopped answering: {endpoint.hung} retries in a row "
                                    f"timed out after {self.timeout_s:g} s with no answer between (the last: {error})")

    def refuses_tools(self, endpoint: Endpoint, line: str) -> None:
        """The endpoint cannot take native tool calls (models/tool_support.py): every request would
        fail the same way, so it is given up at its first such reply."""
        if endpoint.gave_up is None:
            self._give_up(endpoint, line)

    def _backoff(self, refusals: int) -> float:
        # replicas' pauses do not end together; a --retry-delay of 0 still pauses
        return max(MIN_PAUSE_S, jittered_backoff(self.retry_base_delay_s, refusals))

    def _give_up(self, endpoint: Endpoint, reason: str) -> None:
        endpoint.gave_up = reason
        if all(e.gave_up is not None for e in self.endpoints):
            self.stopped = "; ".join(e.gave_up for e in self.endpoints if e.gave_up)
            while self._waiters:
                waiter = self._waiters.popleft()
                if not waiter.done():
                    waiter.set_exception(ServerRefused(self.stopped))
        elif self._waiters:
            self._dispatch()

    # -- time-out clocks --------------------------------------------------------------------------

    def clock_in(self, endpoint: Endpoint, clock: asyncio.Timeout) -> None:
        """A request just sent: its clock runs now, or once the requests before it leave room.
        Counted here, not when its slot was taken: a slot's holder may find the run stopped and send
        nothing."""
        endpoint.sent += 1
        if len(endpoint.running) < endpoint.clock_capacity():
            endpoint.running[clock] = None
            clock.reschedule(asyncio.get_running_loop().time() + self.timeout_s)
        else:
            endpoint.waiting.append(clock)

    def clock_out(self, endpoint: Endpoint, clock: asyncio.Timeout, *, timed_out: bool = False) -> None:
        if clock in endpoint.running:
            del endpoint.running[clock]
        elif clock in endpoint.waiting:  # answered before we thought the server had started it
            endpoint.waiting.remove(clock)
        if timed_out:  # the server stopped answering, or is slower than we thought: every clock runs
            self._start(endpoint, len(endpoint.waiting))
        elif endpoint.waiting or len(endpoint.running) > endpoint.clock_capacity():
            self._rebalance(endpoint)

    def _rebalance(self, endpoint: Endpoint) -> None:
        capacity = max(1.0, endpoint.clock_capacity())
        if len(endpoint.running) < capacity:
            self._start(endpoint, int(capacity - len(endpoint.running)))
            return
        while len(endpoint.running) > capacity:  # fewer served at once than we thought: the newest wait again
            clock, _ = endpoint.running.popitem()
            if clock.expired():  # its request is ending with its time-out: leave it
                endpoint.running[clock] = None
                return
            clock.reschedule(None)
            endpoint.waiting.appendleft(clock)

    def _start(self, endpoint: Endpoint, n: int) -> None:
        deadline = asyncio.get_running_loop().time() + self.timeout_s
        for _ in range(min(n, len(endpoint.waiting))):
            clock = endpoint.waiting.popleft()
            endpoint.running[clock] = None
            if not clock.expired():
                clock.reschedule(deadline)

    # -- what it learnt ---------------------------------------------------------------------------

    def told_slots(self, url: str, slots: int) -> None:
        for endpoint in self.endpoints:
            if endpoint.url == url:
                endpoint.slots = slots
                if endpoint.adaptive is not None:
                    endpoint.adaptive.told_slots(slots, time.monotonic())

    def told_gauges(self, url: str, running: float, waiting: float) -> None:
        """A server's own count of requests running and waiting in its queue (vLLM, SGLang)."""
        for endpoint in self.endpoints:
            if endpoint.url == url and endpoint.adaptive is not None:
                endpoint.adaptive.told_queue(running, waiting, endpoint.in_flight, time.monotonic())

    def describe(self) -> dict[str, dict[str, object]]:
        """Per endpoint: how many it was sent at once over the run (results.json `concurrency`)."""
        out: dict[str, dict[str, object]] = {}
        for e in self.endpoints:
            entry = e.adaptive.describe() if e.adaptive is not None else {"mode": "fixed", "limit": e.max_limit,
                                                                           "server_slots": e.slots}
            entry |= {"sent": e.sent, "peak": e.peak}
            if e.gave_up:
                entry["gave_up"] = e.gave_up
            out[redact_url(e.url)] = entry
        return out
