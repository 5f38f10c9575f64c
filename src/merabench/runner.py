"""The async evaluation loop: prompts -> model -> samples files, with cache and resume.

A fixed set of `concurrency` workers pulls requests from one work queue shared by all tasks
(never a coroutine per row). Each answer goes first to the response cache, then to the task's
samples file. On a rerun into the same folder, rows already answered there (same messages) are
kept, and the cache answers any that were received but not yet written, so a killed run resumes
without asking the endpoint again.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from merabench.aio import run_pool
from merabench.cache import ResponseCache, request_key
from merabench.errors import BackendError, ConfigError, DataError
from merabench.models.base import Backend, Completion, ModelRequest
from merabench.prompts import HistoryIndex, Message, messages_digest
from merabench.rows import Row, TaskData
from merabench.samples import Record, SampleWriter, read_records, samples_path, write_atomic
from merabench.tasks.base import Task

RUN_FILE = "run.json"


class ProgressSink(Protocol):
    def start(self, task: str, total: int, done: int) -> None: ...
    def advance(self, task: str, *, error: bool) -> None: ...


class NoProgress:
    def start(self, task: str, total: int, done: int) -> None:
        pass

    def advance(self, task: str, *, error: bool) -> None:
        pass


@dataclass(frozen=True)
class TaskRun:
    task: Task
    data: TaskData


@dataclass(frozen=True)
class WorkItem:
    task: Task
    row: Row
    messages: Sequence[Message]
    digest: str

    @property
    def messages_hash(self) -> str:
        return self.digest[:16]


def answer_record(item: WorkItem, completion: Completion, *, cached: bool) -> Record:
    return {"id": item.row.id, "status": "ok", "output": completion.text, "error": None,
            "messages_hash": item.messages_hash, "cached": cached, "attempts": 0 if cached else completion.attempts,
            "latency_s": round(completion.latency_s, 4), "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens, "finish_reason": completion.finish_reason,
            "endpoint": completion.endpoint}


def error_record(row: Row, reason: str, mhash: str | None, latency_s: float = 0.0) -> Record:
    return {"id": row.id, "status": "error", "output": None, "error": reason, "messages_hash": mhash,
            "latency_s": round(latency_s, 4)}


def check_run_identity(out_dir: Path, identity: dict) -> None:
    """A folder holds one model's run; resuming it with another model or settings would mix them."""
    path = out_dir / RUN_FILE
    if path.exists():
        try:
            previous = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            previous = None
        if previous is not None and previous != identity:
            raise ConfigError(f"{out_dir} holds a run with other settings ({previous}); "
                              "use another --out, or delete the folder to start over")
    out_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(identity, ensure_ascii=False, indent=1) + "\n")


class Runner:
    def __init__(self, backend: Backend, *, out_dir: Path, concurrency: int = 32,
                 cache: ResponseCache | None = None, system_prompt: str | None = None,
                 progress: ProgressSink | None = None) -> None:
        self.backend = backend
        self.out_dir = out_dir
        self.concurrency = max(1, concurrency)
        self.cache = cache if backend.cacheable else None
        self.system_prompt = system_prompt
        self.progress = progress or NoProgress()
        self._unsaved: list[tuple[str, str, Completion]] = []  # answers not yet in the cache
        self._keys: dict[str, str] = {}  # messages digest -> cache key

    def plan(self, run: TaskRun, existing: dict[int, Record]) -> tuple[list[WorkItem], list[Record], int]:
        """Split a task's rows into work to do, errors known before asking, and rows already done."""
        history = HistoryIndex(run.data.shots)
        todo, failed, done = [], [], 0
        for row in run.data.rows:
            try:
                messages = run.task.messages(row, history, self.system_prompt)
            except DataError as exc:
                failed.append(error_record(row, str(exc), None))
                continue
            digest = messages_digest(messages)
            previous = existing.get(row.id)
            if previous and previous.get("status") == "ok" and previous.get("messages_hash") == digest[:16]:
                done += 1
                continue
            todo.append(WorkItem(run.task, row, messages, digest))
        return todo, failed, done

    async def run(self, runs: Sequence[TaskRun]) -> dict[str, dict[int, Record]]:
        """Answer every row of every task; return the records by task and id."""
        writers: dict[str, SampleWriter] = {}
        records: dict[str, dict[int, Record]] = {}
        work: list[WorkItem] = []
        for run in runs:
            path = samples_path(self.out_dir, run.task.name)
            existing = read_records(path)
            records[run.task.name] = existing  # updated in place as answers arrive
            todo, failed, done = self.plan(run, existing)
            writers[run.task.name] = SampleWriter(path)
            if failed:
                writers[run.task.name].write_many(failed)
                existing.update((r["id"], r) for r in failed)
            self.progress.start(run.task.name, len(run.data.rows), done)
            for _ in failed:
                self.progress.advance(run.task.name, error=True)
            work.extend(todo)

        cache_due = asyncio.Event()

        unwritten: dict[str, list[Record]] = {name: [] for name in writers}
        loop = asyncio.get_running_loop()
        write_scheduled = False

        def write_out() -> None:
            # to the OS at the end of this loop turn: a killed process loses nothing written, and
            # a power cut at most the last second (SampleWriter fsyncs about every second)
            nonlocal write_scheduled
            write_scheduled = False
            for name, batch in unwritten.items():
                if batch:
                    writers[name].write_many(batch)
                    batch.clear()

        def emit(task_name: str, record: Record) -> None:
            nonlocal write_scheduled
            unwritten[task_name].append(record)
            records[task_name][record["id"]] = record
            if not write_scheduled:
                write_scheduled = True
                loop.call_soon(write_out)
            self.progress.advance(task_name, error=record["status"] != "ok")
            cache_due.set()

        def save_cache() -> None:
            if self.cache is not None and self._unsaved:
                self.cache.put_many(self._unsaved)
                self._unsaved.clear()

        async def cache_saver() -> None:
            while True:  # one transaction per batch of answers: a commit each would cap a fast endpoint
                await cache_due.wait()
                cache_due.clear()
                save_cache()
                await asyncio.sleep(0.05)

        cached = self.cached_answers(work)
        for item in work:
            if item.digest in cached:
                emit(item.task.name, answer_record(item, cached[item.digest], cached=True))
        work = [item for item in work if item.digest not in cached]

        async def answer_and_emit(item: WorkItem) -> None:
            emit(item.task.name, await self.answer(item))

        saver = asyncio.create_task(cache_saver())
        try:
            await run_pool(work, answer_and_emit, self.concurrency)
        finally:
            saver.cancel()
            write_out()
            save_cache()
            for writer in writers.values():
                writer.close()
            await self.backend.aclose()
        return records

    def cached_answers(self, work: Sequence[WorkItem]) -> dict[str, Completion]:
        """Answers the cache already has, by messages digest, looked up in bulk before any request."""
        if self.cache is None:
            return {}
        options = self.backend.options.fingerprint()
        self._keys = {item.digest: request_key(self.backend.name, options, item.digest) for item in work}
        by_key = {key: digest for digest, key in self._keys.items()}
        return {by_key[key]: completion for key, completion in self.cache.get_many(list(by_key)).items()}

    async def answer(self, item: WorkItem) -> Record:
        started = time.monotonic()
        try:
            completion = await self.backend.generate(ModelRequest(item.task, item.row, item.messages))
        except BackendError as exc:
            return error_record(item.row, str(exc), item.messages_hash, time.monotonic() - started)
        if self.cache is not None:
            self._unsaved.append((self._keys[item.digest], self.backend.name, completion))  # saved with the next batch
        return answer_record(item, completion, cached=False)
