"""A pool of data-parallel endpoints with least-busy selection and adaptive back-off.

Each endpoint has an in-flight limit that halves on 429/503 (and pauses the endpoint for the
server's Retry-After) and grows back by one per `limit` successes (AIMD), so a rate-limited
server is not hammered by every waiting worker at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from dataclasses import dataclass


@dataclass
class Endpoint:
    url: str
    max_limit: int
    limit: float = 0.0
    in_flight: int = 0
    paused_until: float = 0.0

    def __post_init__(self) -> None:
        self.limit = float(self.max_limit)

    def load(self) -> float:
        return self.in_flight / max(1.0, self.limit)


class EndpointPool:
    """Single-threaded (one event loop): picking and counting need no lock, only waiting does."""

    def __init__(self, urls: list[str], max_in_flight: int) -> None:
        self.endpoints = [Endpoint(u, max_in_flight) for u in urls]
        self._freed = asyncio.Event()
        self._waiting = 0
        self._turn = itertools.count()

    def _pick(self, now: float) -> Endpoint | None:
        ready = [e for e in self.endpoints if e.paused_until <= now and e.in_flight < max(1, int(e.limit))]
        if not ready:
            return None
        if len(ready) == 1:
            return ready[0]
        # least busy first; among equals, rotate so replicas share the load round-robin
        best = min(e.load() for e in ready)
        candidates = [e for e in ready if e.load() == best]
        return candidates[next(self._turn) % len(candidates)]

    async def acquire(self) -> Endpoint:
        while True:
            now = time.monotonic()
            endpoint = self._pick(now)
            if endpoint is not None:
                endpoint.in_flight += 1
                return endpoint
            pauses = [e.paused_until - now for e in self.endpoints if e.paused_until > now]
            # every endpoint paused: wake when the first pause ends; else when a request finishes
            timeout = min(pauses) if len(pauses) == len(self.endpoints) else None
            self._freed.clear()
            self._waiting += 1
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._freed.wait(), timeout)
            finally:
                self._waiting -= 1

    def release(self, endpoint: Endpoint, *, ok: bool, throttle_for: float | None = None) -> None:
        endpoint.in_flight -= 1
        if ok:
            endpoint.limit = min(float(endpoint.max_limit), endpoint.limit + 1.0 / max(1.0, endpoint.limit))
        elif throttle_for is not None:
            endpoint.limit = max(1.0, endpoint.limit / 2)
            endpoint.paused_until = max(endpoint.paused_until, time.monotonic() + throttle_for)
        if self._waiting:
            self._freed.set()
