"""Scoring rows on every core: a task's scorer is pure, so rows can be scored anywhere.

Only for tasks whose scoring costs real time per row (SAGE aligns texts) and sets big enough to
repay the workers. The workers are forked after everything is loaded (the dictionaries, the
tokenizer tables, the caches), so they start at once; where fork is not the safe default (not
Linux), scoring stays in this process. MERABENCH_SCORING_WORKERS sets the number of workers (1:
none).
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import sys
from collections.abc import Iterator, Sequence

from merabench.records import Judgement
from merabench.rows import Row
from merabench.tasks.base import SampleScore, Task

MIN_ROWS = 300          # fewer rows are scored faster than workers start and return
CHUNKS_PER_WORKER = 4   # rows are dealt out in turns, so a few long texts do not stall one worker

Job = tuple[Row, str, Judgement | None]


def workers() -> int:
    configured = os.environ.get("MERABENCH_SCORING_WORKERS")
    if configured and configured.isdigit():
        return max(1, int(configured))
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(available, 8))


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Scoring makes many small objects and no reference cycles: the cyclic collector would only
    rescan them (about a tenth of the time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _score(task: Task, jobs: Sequence[Job]) -> list[SampleScore]:
    with _collector_paused():
        return [task.score(row, text, judgement) for row, text, judgement in jobs]


def _score_chunk(args: tuple[str, list[Job]]) -> list[SampleScore]:
    from merabench.tasks import get_task

    return _score(get_task(args[0]), args[1])


def score_rows(task: Task, jobs: Sequence[Job]) -> list[SampleScore]:
    """`task.score` of every job, in order; on several cores when it pays."""
    count = workers()
    if not task.costly_scoring or count < 2 or len(jobs) < MIN_ROWS or sys.platform != "linux":
        return _score(task, jobs)
    task.warm_up()  # loaded once here, shared by the forked workers
    n_chunks = count * CHUNKS_PER_WORKER
    chunks = [list(jobs[i::n_chunks]) for i in range(n_chunks)]
    gc.freeze()  # the inherited heap stays untouched in the workers (no collector writes to it)
    try:
        with multiprocessing.get_context("fork").Pool(count) as pool:
            parts = pool.map(_score_chunk, [(task.name, chunk) for chunk in chunks])
    finally:
        gc.unfreeze()
    results: list[SampleScore | None] = [None] * len(jobs)
    for i, part in enumerate(parts):
        results[i::n_chunks] = part
    return results  # type: ignore[return-value]
