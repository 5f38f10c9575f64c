"""The async evaluation loop: work items -> answers, with cache and resume.

A fixed set of `concurrency` workers pulls requests from one work queue shared by all tasks
(never a coroutine per row); how many of them an endpoint serves at once is the backend's
business (models/endpoints.py). Whether a request may still be sent (a cost or time budget, every
endpoint refusing to serve, a full disk) is decided in one place, the runner's `may_send`, asked as the
request leaves: by the worker as it takes the request, and by the backend again after any wait
for room (`Request.may_send`: with `--concurrency auto` there are more workers than an endpoint
is sent at once, and a fixed limit halves on 429). Once it says no, the rows not answered stay
unasked for the rerun. An answer is written to its task's samples file at the end of the
event-loop turn that received it, so a killed run loses only the requests in flight; the response
cache gets answers in batches, at most CACHE_BATCH_S later (a commit per answer would cap a fast
endpoint). On a rerun into the same folder, rows already answered there (same messages) are
kept, and the cache answers any it has.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from merabench.errors import BackendError, ConfigError, NotSent, ServerRefused
from merabench.models.base import Backend, Completion, Generating, Request
from merabench.models.sources import baseline_answer
from merabench.models.usage import within_prompt
from merabench.records import Answer, Draw
from merabench.runner.aio import run_pool
from merabench.runner.cache import ResponseCache, request_key
from merabench.runner.live import InFlight, LiveStatus, plan_line
from merabench.runner.samples import SampleWriter, read_answer_draws, samples_path
from merabench.runner.tool_loop import converse
from merabench.runner.work import (
    PLAIN,
    Asking,
    Drawing,
    TaskRun,
    WorkItem,
    answer_of,
    answered_before,
    askings,
    prepare,
)

#: a task's answers by draw and row id (records.Draw: a plain run has the base draw only)
TaskAnswers = dict[Draw, dict[int, Answer]]

CACHE_BATCH_S = 0.05
CACHE_LOOKUP_BATCH = 256  # cache lookups per query while preparing requests
# ... or fewer: prepared requests wait in the batch, and 256 GorillaHard prompts are 15 MB
CACHE_LOOKUP_CHARS = 1_000_000


class ProgressSink(Protocol):
    def start(self, task: str, total: int, done: int) -> None: ...
    def follow(self, status: Callable[[], LiveStatus]) -> None: ...
    def advance(self, task: str, *, error: bool) -> None: ...
    def finish(self) -> None: ...


class NoProgress:
    def start(self, task: str, total: int, done: int) -> None:
        pass

    def follow(self, status: Callable[[], LiveStatus]) -> None:
        pass

    def advance(self, task: str, *, error: bool) -> None:
        pass

    def finish(self) -> None:
        pass


class AnswerSource(Protocol):
    """Whatever answers the work items: a backend, or a baseline."""

    @property
    def name(self) -> str: ...  # read-only: a source may derive it (a backend's, a batch's)

    def cache_key(self, item: WorkItem) -> str | None: ...
    async def preflight(self) -> list[str]: ...
    async def complete(self, item: WorkItem, may_send: Callable[[], bool]) -> Completion:
        """The answer; NotSent when `may_send()` says no as the request is about to leave after
        a wait (a source that never waits need not ask: the worker asked just before)."""
        ...
    def notes(self) -> list[str]: ...
    def run_facts(self) -> dict[str, Any]: ...
    def generating(self) -> Generating | None: ...
    async def aclose(self) -> None: ...


@dataclass
class BackendSource:
    backend: Backend
    cache_scope: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.backend.name

    def cache_key(self, item: WorkItem) -> str | None:
        scope = self.cache_scope | item.cache_scope() if item.cache_scope() else self.cache_scope
        return request_key(self.backend.name, self._fingerprint, item.digest, scope)

    @cached_property
    def _fingerprint(self) -> dict[str, Any]:  # the options do not change during a run
        return self.backend.options.fingerprint()

    async def preflight(self) -> list[str]:
        return await self.backend.preflight()

    async def complete(self, item: WorkItem, may_send: Callable[[], bool]) -> Completion:
        if item.tools is not None:
            return await converse(self.backend, item.messages, item.tools, may_send, item.seed_offset)
        return await self.backend.generate(Request(item.messages, may_send=may_send, seed_offset=item.seed_offset))

    def notes(self) -> list[str]:
        return self.backend.notes()

    def run_facts(self) -> dict[str, Any]:
        return self.backend.run_facts()

    def generating(self) -> Generating | None:
        return self.backend.generating()

    async def aclose(self) -> None:
        await self.backend.aclose()


@dataclass
class BaselineSource:
    kind: str  # a baseline of models/sources.py
    seed: int | None = None

    @property
    def name(self) -> str:
        return self.kind

    def cache_key(self, item: WorkItem) -> str | None:
        return None  # instant and deterministic: never cached

    async def preflight(self) -> list[str]:
        return []

    async def complete(self, item: WorkItem, may_send: Callable[[], bool]) -> Completion:
        # a repeat draws afresh as a seeded sampler would (seed + k); the first asking is a plain run's
        seed = self.seed if not item.seed_offset else (self.seed or 0) + item.seed_offset
        return Completion(text=baseline_answer(self.kind, item.task, item.row, seed), finish_reason="stop", attempts=1)

    def notes(self) -> list[str]:
        return []

    def run_facts(self) -> dict[str, Any]:
        return {}

    def generating(self) -> Generating | None:
        return None

    async def aclose(self) -> None:
        pass


@dataclass
class Runner:
    source: AnswerSource
    out_dir: Path
    concurrency: int = 32
    cache: ResponseCache | None = None
    system_prompt: str | None = None
    progress: ProgressSink = field(default_factory=NoProgress)
    log_prompts: bool = False
    #: asked as each new request leaves (may_send); once true, no new request is sent (a cost or time budget)
    should_stop: Callable[[], bool] = lambda: False
    #: called with each fresh completion (cost accounting)
    on_completion: Callable[[Completion], None] = lambda completion: None
    #: called with each answer kept from an earlier run into the folder (cost accounting)
    on_kept: Callable[[Answer], None] = lambda answer: None
    #: called with each answer once it is written, fresh, cached or failed (scoring on the way); at
    #: the end of the loop turn, so a worker sends its next request before the answer is scored
    on_answer: Callable[[str, Answer], None] = lambda task, answer: None
    #: called once, at the run's first idle moment: every worker has a request in flight, or the
    #: last request is sent (work the end of the run needs can start in the background then)
    on_idle: Callable[[], None] = lambda: None
    #: a line for the person running it (the run's first line: what it will ask)
    say: Callable[[str], None] = lambda message: None
    #: the draws each row is asked in (`--repeats`, `--wordings all`) and a repeat's seed
    asking: Asking = PLAIN
    notes: list[str] = field(default_factory=list)
    #: why the run stopped sending before the end (every endpoint refused to serve), else None
    refused: ServerRefused | None = None
    #: what the source learnt during the run, for results.json (concurrency, request shape)
    facts: dict[str, Any] = field(default_factory=dict)
    _idle_called: bool = field(default=False, init=False, repr=False)

    def _pending(self, runs: Sequence[TaskRun], done: dict[tuple[str, Draw], set[int]],
                 emit: Callable[[str, Answer], None]) -> Iterator[WorkItem]:
        """The requests still to send, each task's rows draw after draw, prepared as the workers
        reach them (the first request leaves before the last row is rendered); answers the cache
        has, and rows that cannot be asked, are emitted on the way, looked up CACHE_LOOKUP_BATCH at
        a time."""
        batch: list[WorkItem] = []
        batch_chars = 0
        for run in runs:
            for draw in self.asking.draws:
                drawing = Drawing(run, draw)
                for row in drawing.rows:
                    if row.id in done[run.task.name, draw]:
                        continue
                    prepared = prepare(run.task, drawing.history, row, self.system_prompt, draw,
                                       self.asking.seed_offset(draw))
                    if isinstance(prepared, Answer):
                        emit(run.task.name, self._label(prepared, draw))
                        continue
                    if self.cache is None:
                        yield prepared
                        continue
                    batch.append(prepared)
                    batch_chars += sum(len(m["content"]) for m in prepared.messages
                                       if isinstance(m.get("content"), str))
                    if len(batch) >= CACHE_LOOKUP_BATCH or batch_chars >= CACHE_LOOKUP_CHARS:
                        yield from self._uncached(batch, emit)
                        batch, batch_chars = [], 0
        yield from self._uncached(batch, emit)
        self._idle()

    def _label(self, answer: Answer, draw: Draw) -> Answer:
        return answer.of_draw(draw, self.asking.drawn)

    def _idle(self) -> None:
        if not self._idle_called:
            self._idle_called = True
            self.on_idle()

    def _uncached(self, items: list[WorkItem], emit: Callable[[str, Answer], None]) -> list[WorkItem]:
        """Emit the answers the cache has for these items; return the others."""
        keyed = [replace(item, cache_key=self.source.cache_key(item)) for item in items]
        hits = self._cached({(item.digest, item.draw): item.cache_key for item in keyed})
        remaining = []
        for item in keyed:
            hit = hits.get((item.digest, item.draw))
            if hit is None:
                remaining.append(item)
            else:
                answer = answer_of(item, hit, cached=True, log_prompts=self.log_prompts)
                emit(item.task.name, self._label(answer, item.draw))
        return remaining

    async def run(self, runs: Sequence[TaskRun]) -> dict[str, TaskAnswers]:
        """Answer every row of every task in every draw; return the answers by task, draw and id."""
        try:
            return await self._run(runs)
        finally:
            self.progress.finish()  # the display's thread ends with the answering
            self.notes += [n for n in self.source.notes() if n not in self.notes]
            self.facts = self.source.run_facts()
            await self.source.aclose()

    async def _run(self, runs: Sequence[TaskRun]) -> dict[str, TaskAnswers]:
        answers, done, writers = self._open(runs)
        self.say(self._plan(runs, done))
        answering = _Answering(self, writers, answers)
        self.progress.follow(answering.flying.status)
        saver = asyncio.create_task(answering.save_cache_batches())
        try:
            await run_pool(self._pending(runs, done, answering.emit), answering.answer_one, self.concurrency,
                           stop=lambda: not answering.may_send())
        finally:
            saver.cancel()
            answering.close()
        if answering.write_failed:
            raise answering.write_failed[0]
        return answers

    def _open(self, runs: Sequence[TaskRun]) -> tuple[dict[str, TaskAnswers], dict[tuple[str, Draw], set[int]],
                                                       dict[str, SampleWriter]]:
        """Each task's samples file: the answers already in it, by draw; the rows of each draw kept
        (not asked again, counted as kept); its writer. Progress starts from what is kept."""
        writers: dict[str, SampleWriter] = {}
        answers: dict[str, TaskAnswers] = {}
        done: dict[tuple[str, Draw], set[int]] = {}
        for run in runs:
            answers[run.task.name] = read_answer_draws(samples_path(self.out_dir, run.task.name))
            self._check_draws(run.task.name, answers[run.task.name])
        for run in runs:
            name = run.task.name
            path = samples_path(self.out_dir, name)
            for draw in self.asking.draws:
                existing = answers[name].setdefault(draw, {})
                done[name, draw] = answered_before(run, existing, self.system_prompt, draw) if existing else set()
                for row_id in done[name, draw]:
                    self.on_kept(existing[row_id])
            writers[name] = SampleWriter(path)
            kept = sum(len(done[name, draw]) for draw in self.asking.draws)
            self.progress.start(name, askings(run, self.asking), kept)
        return answers, done, writers

    def _check_draws(self, task: str, found: TaskAnswers) -> None:
        """A folder holding more repeats of a task than this run asks for is refused: the rewrite of
        its samples file would drop the others (answers paid for), and the figures would change
        meaning. More repeats than the folder has are fine: only the new ones are asked."""
        beyond = sorted({draw.repeat for draw, got in found.items() if got and draw not in self.asking.draws})
        if beyond:
            held = max(draw.repeat for draw in found) + 1
            raise ConfigError(f"{self.out_dir} holds {task} answers of {held} repeats; run with --repeats {held} or "
                              "more (fewer would drop the others from its samples file), or use another --out")

    def _plan(self, runs: Sequence[TaskRun], done: dict[tuple[str, Draw], set[int]]) -> str:
        """The run's first line (runner/live.py): rows to ask, and at most how many requests."""
        draws = self.asking.draws
        to_ask = {run.task.name: askings(run, self.asking) - sum(len(done[run.task.name, d]) for d in draws)
                  for run in runs}
        requests = None
        if not isinstance(self.source, BaselineSource):
            requests = sum(count * _requests_per_row(run) for run, count in zip(runs, to_ask.values(), strict=True))
        kept = sum(len(d) for d in done.values())
        return plan_line(self.source.name, to_ask, kept, requests, len(draws))

    def _cached(self, keys: dict[tuple[str, Draw], str | None]) -> dict[tuple[str, Draw], Completion]:
        """Answers the cache already has, by messages digest and draw, looked up in bulk before any
        request."""
        wanted = {key: digest for digest, key in keys.items() if key is not None}
        if self.cache is None or not wanted:
            return {}
        try:
            found = self.cache.get_many(list(wanted))
        except sqlite3.Error as exc:
            self._cache_failed(exc)
            return {}
        return {wanted[key]: completion for key, completion in found.items()}

    def _save(self, uncached: list[tuple[str, str, Completion]]) -> None:
        if self.cache is None or not uncached:
            uncached.clear()
            return
        try:
            self.cache.put_many(uncached)
        except sqlite3.Error as exc:
            self._cache_failed(exc)
        uncached.clear()

    def _cache_failed(self, exc: Exception) -> None:
        self.notes.append(f"the response cache stopped working ({exc}); answers are still in the samples files")
        self.cache = None


def _requests_per_row(run: TaskRun) -> int:
    """At most how many requests one row of the task takes: a tool-calling conversation's replies."""
    spec = run.task.tool_spec(run.data.rows[0]) if run.data.rows else None
    return spec.max_replies if spec is not None else 1


class _Answering:
    """One `Runner.run` under way: the answers not yet written to the samples files or stored in
    the cache, the requests in flight, and whether writing has failed."""

    def __init__(self, runner: Runner, writers: dict[str, SampleWriter],
                 answers: dict[str, TaskAnswers]) -> None:
        self.runner = runner
        self.writers = writers
        self.answers = answers
        self.loop = asyncio.get_running_loop()
        self.unwritten: dict[str, list[Answer]] = {name: [] for name in writers}
        self.uncached: list[tuple[str, str, Completion]] = []
        self.flush_scheduled = False
        self.cache_due = asyncio.Event()
        self.write_failed: list[OSError] = []
        self.flying = InFlight(runner.source.generating)

    def flush(self) -> None:
        # to the OS at the end of this loop turn: a killed process loses nothing written, and a
        # power cut at most the last second (SampleWriter fsyncs about every second)
        self.flush_scheduled = False
        for name, batch in self.unwritten.items():
            if batch:
                try:
                    self.writers[name].write_many(batch)
                except OSError as exc:  # a full disk: nothing more is sent; raised once the pool stops
                    self.write_failed.append(exc)
                    return
                for answer in batch:
                    self.runner.on_answer(name, answer)
                batch.clear()

    def emit(self, task_name: str, answer: Answer, key: str | None = None,
             completion: Completion | None = None) -> None:
        """Record an answer; it is written at the end of this loop turn, and a fresh one (with its
        cache key) is stored in the cache with the next batch."""
        self.unwritten[task_name].append(answer)
        self.answers[task_name].setdefault(answer.draw, {})[answer.id] = answer
        if key is not None and completion is not None:
            self.uncached.append((key, self.runner.source.name, completion))
            self.cache_due.set()
        if not self.flush_scheduled:
            self.flush_scheduled = True
            self.loop.call_soon(self.flush)
        self.runner.progress.advance(task_name, error=not answer.ok)

    async def save_cache_batches(self) -> None:
        while True:
            await self.cache_due.wait()
            self.cache_due.clear()
            self.runner._save(self.uncached)
            await asyncio.sleep(CACHE_BATCH_S)

    def may_send(self) -> bool:
        runner = self.runner
        return runner.refused is None and not self.write_failed and not runner.should_stop()

    async def answer_one(self, item: WorkItem) -> None:
        runner = self.runner
        started = time.monotonic()
        token = self.flying.enter()
        if len(self.flying) == runner.concurrency:
            self.loop.call_soon(runner._idle)  # after this worker's request has left
        try:
            completion = await runner.source.complete(item, self.may_send)
        except ServerRefused as exc:  # not this row's failure: it stays unasked, the rerun asks it
            runner.refused = exc
            return
        except NotSent:  # the run stopped sending while it waited for room: unasked too
            return
        except BackendError as exc:
            failed = Answer.failed(item.row.id, str(exc), item.messages_hash, time.monotonic() - started,
                                   attempts=exc.attempts)
            self.emit(item.task.name, runner._label(failed, item.draw))
            return
        finally:
            self.flying.leave(token)
        if item.tools is None:  # the server's counts, checked (usage.py); a conversation checked each of its own
            completion = within_prompt(completion, item.messages)
        runner.on_completion(completion)
        answer = answer_of(item, completion, cached=False, log_prompts=runner.log_prompts)
        self.emit(item.task.name, runner._label(answer, item.draw), item.cache_key, completion)

    def close(self) -> None:
        """Write and store what is left, then close the samples files (whatever fails)."""
        try:
            self.flush()
            self.runner._save(self.uncached)
        finally:
            for writer in self.writers.values():
                writer.close()
