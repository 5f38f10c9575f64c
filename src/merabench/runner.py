"""The async evaluation loop: prompts -> model -> samples files, with cache and resume.

A fixed set of `concurrency` workers takes requests from one bounded queue shared by all tasks
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

from merabench.cache import ResponseCache, request_key
from merabench.errors import BackendError, ConfigError, DataError
from merabench.models.base import Backend, Completion, ModelRequest
from merabench.prompts import HistoryIndex, Message, messages_hash
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
    messages_hash: str


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
            mhash = messages_hash(messages)
            previous = existing.get(row.id)
            if previous and previous.get("status") == "ok" and previous.get("messages_hash") == mhash:
                done += 1
                continue
            todo.append(WorkItem(run.task, row, messages, mhash))
        return todo, failed, done

    async def run(self, runs: Sequence[TaskRun]) -> dict[str, dict[int, Record]]:
        """Answer every row of every task; return the records by task and id."""
        queue: asyncio.Queue[WorkItem | None] = asyncio.Queue(maxsize=self.concurrency * 4)
        writers: dict[str, SampleWriter] = {}
        pending: dict[str, list[Record]] = {}
        work: list[WorkItem] = []
        for run in runs:
            path = samples_path(self.out_dir, run.task.name)
            existing = read_records(path)
            todo, failed, done = self.plan(run, existing)
            writers[run.task.name] = SampleWriter(path)
            pending[run.task.name] = []
            if failed:
                writers[run.task.name].write_many(failed)
            self.progress.start(run.task.name, len(run.data.rows), done)
            for _ in failed:
                self.progress.advance(run.task.name, error=True)
            work.extend(todo)

        flush_event = asyncio.Event()

        def emit(task_name: str, record: Record) -> None:
            pending[task_name].append(record)
            self.progress.advance(task_name, error=record["status"] != "ok")
            flush_event.set()

        def flush_all() -> None:
            for name, batch in pending.items():
                if batch:
                    writers[name].write_many(batch)
                    batch.clear()

        async def flusher() -> None:
            while True:
                await flush_event.wait()
                flush_event.clear()
                flush_all()
                await asyncio.sleep(0.05)  # batch the records that arrive meanwhile

        async def producer() -> None:
            for item in work:
                await queue.put(item)
            for _ in range(self.concurrency):
                await queue.put(None)

        async def worker() -> None:
            while (item := await queue.get()) is not None:
                emit(item.task.name, await self.answer(item))

        flush_task = asyncio.create_task(flusher())
        try:
            await asyncio.gather(producer(), *(worker() for _ in range(self.concurrency)))
        finally:
            flush_task.cancel()
            flush_all()
            for writer in writers.values():
                writer.close()
            await self.backend.aclose()
        return {run.task.name: read_records(samples_path(self.out_dir, run.task.name)) for run in runs}

    async def answer(self, item: WorkItem) -> Record:
        key = None
        if self.cache is not None:
            key = request_key(self.backend.name, self.backend.options, item.messages)
            hit = self.cache.get(key)
            if hit is not None:
                return answer_record(item, hit, cached=True)
        started = time.monotonic()
        try:
            completion = await self.backend.generate(ModelRequest(item.task, item.row, item.messages))
        except BackendError as exc:
            return error_record(item.row, str(exc), item.messages_hash, time.monotonic() - started)
        if key is not None:
            self.cache.put(key, self.backend.name, completion)
        return answer_record(item, completion, cached=False)
