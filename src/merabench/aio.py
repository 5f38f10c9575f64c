"""A fixed pool of workers over a sequence of jobs: bounded concurrency without a task per job."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


async def run_pool(jobs: Iterable[T], handle: Callable[[T], Awaitable[None]], concurrency: int) -> None:
    shared = iter(jobs)  # one iterator: each job is taken by exactly one worker

    async def worker() -> None:
        for job in shared:
            await handle(job)

    await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
