"""The async evaluation loop: work items -> answers, with cache and resume.

A fixed set of `concurrency` workers pulls requests from one work queue shared by all tasks
(never a coroutine per row). An answer is written to its task's samples file at the end of the
event-loop turn that received it, so a killed run loses only the requests in flight; the response
cache gets answers in batches, at most CACHE_BATCH_S later (a commit per answer would cap a fast
endpoint). On a rerun into the same folder, rows already answered there (same messages) are
kept, and the cache answers any it has.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from merabench.aio import run_pool
from merabench.cache import ResponseCache, request_key
from merabench.errors import BackendError, DataError
from merabench.models.base import Backend, Completion, Request
from merabench.models.baselines import BaselineKind, baseline_answer
from merabench.prompts import HistoryIndex, Message, messages_digest
from merabench.records import Answer, Status
from merabench.rows import Row, TaskData
from merabench.samples import SampleWriter, read_answers, samples_path
from merabench.tasks.base import Task
from merabench.think import think_text

CACHE_BATCH_S = 0.05


class ProgressSink(Protocol):
    def start(self, task: str, total: int, done: int) -> None: ...
    def advance(self, task: str, *, error: bool) -> None: ...
    def finish(self) -> None: ...


class NoProgress:
    def start(self, task: str, total: int, done: int) -> None:
        pass

    def advance(self, task: str, *, error: bool) -> None:
        pass

    def finish(self) -> None:
        pass


@dataclass(frozen=True)
class TaskRun:
    task: Task
    data: TaskData


@dataclass(frozen=True)
class WorkItem:
    task: Task
    row: Row
    messages: tuple[Message, ...]
    digest: str

    @property
    def messages_hash(self) -> str:
        return self.digest[:16]


class AnswerSource(Protocol):
    """Whatever answers the work items: a backend, or a baseline."""

    name: str

    def cache_key(self, item: WorkItem) -> str | None: ...
    async def preflight(self) -> list[str]: ...
    async def complete(self, item: WorkItem) -> Completion: ...
    def notes(self) -> list[str]: ...
    async def aclose(self) -> None: ...


@dataclass
class BackendSource:
    backend: Backend
    cache_scope: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.backend.name

    def cache_key(self, item: WorkItem) -> str | None:
        return request_key(self.backend.name, self.backend.options.fingerprint(), item.digest, self.cache_scope)

    async def preflight(self) -> list[str]:
        return await self.backend.preflight()

    async def complete(self, item: WorkItem) -> Completion:
        return await self.backend.generate(Request(item.messages))

    def notes(self) -> list[str]:
        return self.backend.notes()

    async def aclose(self) -> None:
        await self.backend.aclose()


@dataclass
class BaselineSource:
    kind: BaselineKind
    seed: int | None = None

    @property
    def name(self) -> str:
        return self.kind

    def cache_key(self, item: WorkItem) -> str | None:
        return None  # instant and deterministic: never cached

    async def preflight(self) -> list[str]:
        return []

    async def complete(self, item: WorkItem) -> Completion:
        return Completion(text=baseline_answer(self.kind, item.task, item.row, self.seed), finish_reason="stop",
                          attempts=1)

    def notes(self) -> list[str]:
        return []

    async def aclose(self) -> None:
        pass


def answer_of(item: WorkItem, completion: Completion, *, cached: bool, log_prompts: bool) -> Answer:
    return Answer(
        id=item.row.id, status=Status.OK, output=completion.text, messages_hash=item.messages_hash, cached=cached,
        attempts=0 if cached else completion.attempts, latency_s=round(completion.latency_s, 4),
        prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens,
        reasoning_tokens=completion.reasoning_tokens, reasoning=completion.reasoning or think_text(completion.text),
        finish_reason=completion.finish_reason, endpoint=completion.endpoint,
        messages=item.messages if log_prompts else None)


@dataclass
class Runner:
    source: AnswerSource
    out_dir: Path
    concurrency: int = 32
    cache: ResponseCache | None = None
    system_prompt: str | None = None
    progress: ProgressSink = field(default_factory=NoProgress)
    log_prompts: bool = False
    #: asked before each new request; once true, no new request is sent (a cost or time budget)
    should_stop: Callable[[], bool] = lambda: False
    #: called with each fresh completion (cost accounting)
    on_completion: Callable[[Completion], None] = lambda completion: None
    notes: list[str] = field(default_factory=list)

    def plan(self, run: TaskRun, existing: dict[int, Answer]) -> tuple[list[WorkItem], list[Answer], int]:
        """Split a task's rows into work to do, errors known before asking, and rows already done."""
        history = HistoryIndex(run.data.shots)
        todo, failed, done = [], [], 0
        for row in run.data.rows:
            try:
                messages = tuple(run.task.messages(row, history, self.system_prompt))
            except DataError as exc:
                failed.append(Answer.failed(row.id, str(exc)))
                continue
            digest = messages_digest(messages)
            previous = existing.get(row.id)
            if previous is not None and previous.ok and previous.messages_hash == digest[:16]:
                done += 1
                continue
            todo.append(WorkItem(run.task, row, messages, digest))
        return todo, failed, done

    async def run(self, runs: Sequence[TaskRun]) -> dict[str, dict[int, Answer]]:
        """Answer every row of every task; return the answers by task and id."""
        try:
            return await self._run(runs)
        finally:
            self.progress.finish()  # the display's thread ends with the answering
            self.notes += [n for n in self.source.notes() if n not in self.notes]
            await self.source.aclose()

    async def _run(self, runs: Sequence[TaskRun]) -> dict[str, dict[int, Answer]]:
        writers: dict[str, SampleWriter] = {}
        answers: dict[str, dict[int, Answer]] = {}
        work: list[WorkItem] = []
        for run in runs:
            path = samples_path(self.out_dir, run.task.name)
            existing = read_answers(path)
            answers[run.task.name] = existing
            todo, failed, done = self.plan(run, existing)
            writers[run.task.name] = SampleWriter(path)
            if failed:
                writers[run.task.name].write_many(failed)
                existing.update((a.id, a) for a in failed)
            self.progress.start(run.task.name, len(run.data.rows), done)
            for _ in failed:
                self.progress.advance(run.task.name, error=True)
            work.extend(todo)

        loop = asyncio.get_running_loop()
        unwritten: dict[str, list[Answer]] = {name: [] for name in writers}
        uncached: list[tuple[str, str, Completion]] = []
        flush_scheduled = False
        cache_due = asyncio.Event()

        def flush() -> None:
            # to the OS at the end of this loop turn: a killed process loses nothing written, and a
            # power cut at most the last second (SampleWriter fsyncs about every second)
            nonlocal flush_scheduled
            flush_scheduled = False
            for name, batch in unwritten.items():
                if batch:
                    writers[name].write_many(batch)
                    batch.clear()

        def emit(item_task: str, answer: Answer, key: str | None = None, completion: Completion | None = None) -> None:
            nonlocal flush_scheduled
            unwritten[item_task].append(answer)
            answers[item_task][answer.id] = answer
            if key is not None and completion is not None:
                uncached.append((key, self.source.name, completion))
                cache_due.set()
            if not flush_scheduled:
                flush_scheduled = True
                loop.call_soon(flush)
            self.progress.advance(item_task, error=not answer.ok)

        async def cache_saver() -> None:
            while True:
                await cache_due.wait()
                cache_due.clear()
                self._save(uncached)
                await asyncio.sleep(CACHE_BATCH_S)

        keys = {item.digest: self.source.cache_key(item) for item in work} if self.cache is not None else {}
        cached = self._cached(keys)
        remaining = []
        for item in work:
            hit = cached.get(item.digest)
            if hit is not None:
                emit(item.task.name, answer_of(item, hit, cached=True, log_prompts=self.log_prompts))
            else:
                remaining.append(item)

        async def answer_one(item: WorkItem) -> None:
            started = time.monotonic()
            try:
                completion = await self.source.complete(item)
            except BackendError as exc:
                emit(item.task.name, Answer.failed(item.row.id, str(exc), item.messages_hash,
                                                   time.monotonic() - started))
                return
            self.on_completion(completion)
            emit(item.task.name, answer_of(item, completion, cached=False, log_prompts=self.log_prompts),
                 keys.get(item.digest), completion)

        saver = asyncio.create_task(cache_saver())
        try:
            await run_pool(remaining, answer_one, self.concurrency, stop=self.should_stop)
        finally:
            saver.cancel()
            flush()
            self._save(uncached)
            for writer in writers.values():
                writer.close()
        return answers

    def _cached(self, keys: dict[str, str | None]) -> dict[str, Completion]:
        """Answers the cache already has, by messages digest, looked up in bulk before any request."""
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
