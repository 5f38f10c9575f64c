"""A fixed pool of workers over a sequence of jobs: bounded concurrency without a task per job."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


async def run_pool(jobs: Iterable[T], handle: Callable[[T], Awaitable[None]], concurrency: int,
                   stop: Callable[[], bool] = lambda: False) -> None:
    """Run `handle` over the jobs with `concurrency` workers. A job that raises cancels the other
    workers (a task group, not `gather`), so nothing keeps running while the caller cleans up.
    `stop()` is asked before each new job: once it is true, no new job starts."""
    shared = iter(jobs)  # one iterator: each job is taken by exactly one worker

    async def worker() -> None:
        for job in shared:
            if stop():
                return
            await handle(job)

    try:
        async with asyncio.TaskGroup() as group:
            for _ in range(max(1, concurrency)):
                group.create_task(worker())
    except BaseExceptionGroup as failed:  # the first failure is the one to report
        raise failed.exceptions[0] from None
