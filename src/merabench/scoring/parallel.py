"""Scoring rows on every core: a task's scorer is pure, so rows can be scored anywhere.

Only for sets big enough to repay the workers (`Task.parallel_from`: a few hundred SAGE texts to
align, about a thousand GorillaHard answers). The workers are forked after everything is loaded
(the dictionaries, the tokenizer tables, the caches, the rows themselves), so they start at once
and are sent only index ranges, never the rows; where fork is not the safe default (not Linux),
scoring stays in this process. MERABENCH_SCORING_WORKERS sets the number of workers (1: none).
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator, Sequence

from merabench.records import Judgement
from merabench.rows.row import Row
from merabench.support.supervise import die_with_parent
from merabench.tasks.base import SampleScore, Task

CHUNKS_PER_WORKER = 8   # enough chunks that a few long texts do not stall one worker
MAX_CHUNK = 200         # and small enough that only a few chunks' details are held at once

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


# the scoring under way, which the forked workers inherit: its jobs, and the task object itself
# (not its name: GorillaHard with --tool-mode native scores by another rule under the same name)
_SHARED: Sequence[Job] = ()
_SHARED_TASK: Task | None = None


def _score_range(args: tuple[int, int]) -> list[SampleScore]:
    task = _SHARED_TASK
    assert task is not None
    with _collector_paused():
        return [task.score(row, text, judgement) for row, text, judgement in _SHARED[args[0]:args[1]]]


_HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _worker_start(parent: int) -> None:
    """A forked worker leaves Ctrl-C and SIGTERM to merabench, which ends the pool (a worker's
    own KeyboardInterrupt traceback would reach the terminal), and dies with it, even when
    merabench is killed outright (no orphan left scoring, writing into a closed pipe).

    It runs in a process group of its own: a SIGTERM sent to merabench's group (systemd, Slurm,
    `kill -- -PGID`) would otherwise kill a worker at any point, possibly holding the pool's
    task-queue lock, and the pool's own shutdown then waits for that lock for ever. Only the pool
    (SIGTERM, once it holds the lock) and merabench's death (SIGKILL) end a worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with contextlib.suppress(OSError):  # already a group leader (cannot happen after fork): nothing to leave
        os.setpgid(0, 0)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD_SIGNALS)  # held by the parent while it forked
    die_with_parent(signal.SIGKILL)
    if os.getppid() != parent:  # merabench died before the death signal was armed
        os._exit(0)


def score_rows(task: Task, jobs: Sequence[Job]) -> Iterator[SampleScore]:
    """`task.score` of every job, in order, as they are done; on several cores when it pays."""
    global _SHARED, _SHARED_TASK
    count = workers()
    if task.parallel_from is None or count < 2 or len(jobs) < task.parallel_from or sys.platform != "linux":
        with _collector_paused():
            for row, text, judgement in jobs:
                yield task.score(row, text, judgement)
        return
    task.warm_up()  # loaded once here, shared by the forked workers
    size = max(1, min(MAX_CHUNK, -(-len(jobs) // (count * CHUNKS_PER_WORKER))))
    chunks = [(i, min(i + size, len(jobs))) for i in range(0, len(jobs), size)]
    _SHARED, _SHARED_TASK = jobs, task
    gc.freeze()  # the inherited heap stays untouched in the workers (no collector writes to it)
    try:
        # a Ctrl-C between a fork and the worker's own handlers would print its traceback: held till then
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_SIGNALS)
        try:
            pool = multiprocessing.get_context("fork").Pool(count, _worker_start, (os.getpid(),))
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        with pool:
            for part in pool.imap(_score_range, chunks):
                yield from part
    finally:
        gc.unfreeze()
        _SHARED, _SHARED_TASK = (), None
