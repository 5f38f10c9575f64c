"""The runner, the samples files and the cache in-process, with a mock backend: most of the
runner's behaviour without a subprocess or a socket."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from helpers import correction_of, sage_rows

from merabench.errors import BackendError, ConfigError
from merabench.models.base import Backend, Completion, GenerationOptions, Request
from merabench.records import BASE, Answer, Status
from merabench.rows.row import TaskData, parse_row
from merabench.runner.cache import ResponseCache, request_key
from merabench.runner.loop import BackendSource, Runner
from merabench.runner.samples import SampleWriter, read_answers, samples_path
from merabench.runner.work import TaskRun
from merabench.tasks import TASKS


class MockBackend(Backend):
    """Answers with the correction; fails the prompts it is told to; counts what it is asked."""

    name = "mock:m"

    def __init__(self, fail: set[str] = frozenset(), delay: float = 0.0) -> None:
        self.options = GenerationOptions()
        self.fail, self.delay, self.asked = set(fail), delay, []

    async def generate(self, request: Request) -> Completion:
        prompt = request.messages[-1]["content"]
        self.asked.append(prompt)
        if self.delay:
            await asyncio.sleep(self.delay)
        if any(f in prompt for f in self.fail):
            raise BackendError("HTTP 500 from mock", retryable=False, status=500)
        return Completion(correction_of(prompt), prompt_tokens=10, completion_tokens=5, finish_reason="stop")


def task_run(n: int) -> TaskRun:
    rows = tuple(parse_row(r, file="mem", line=i) for i, r in enumerate(sage_rows(n)))
    return TaskRun(TASKS["sage"], TaskData("mem", rows))


def run(backend: MockBackend, out: Path, n: int = 12, **kwargs) -> dict[int, Answer]:
    runner = Runner(BackendSource(backend), out_dir=out, concurrency=4, **kwargs)
    return asyncio.run(runner.run([task_run(n)]))["sage"][BASE]


def test_every_row_ends_answered_or_as_an_error_and_failures_are_asked_again(tmp_path: Path) -> None:
    failing = MockBackend(fail={"(3)", "(7)"})
    answers = run(failing, tmp_path)
    assert sorted(answers) == list(range(12))
    assert {i for i, a in answers.items() if not a.ok} == {3, 7}
    assert answers[3].status is Status.ERROR and "HTTP 500" in answers[3].error and answers[3].output is None
    again = MockBackend()
    answers = run(again, tmp_path)
    assert len(again.asked) == 2 and all(a.ok for a in answers.values())  # only the failed rows


def test_a_rerun_keeps_what_is_on_disk_and_the_cache_answers_the_rest(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    first = MockBackend()
    run(first, tmp_path / "run", cache=cache)
    assert len(first.asked) == 12
    again = MockBackend()
    run(again, tmp_path / "run", cache=cache)
    assert again.asked == []  # all on disk
    elsewhere = MockBackend()
    answers = run(elsewhere, tmp_path / "other", cache=cache)
    assert elsewhere.asked == [] and all(a.cached for a in answers.values())  # another folder: the cache


def test_a_broken_cache_is_noted_and_the_run_goes_on(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache._db.execute("DROP TABLE responses")  # as if the file were damaged under the run
    runner = Runner(BackendSource(MockBackend()), out_dir=tmp_path / "run", concurrency=4, cache=cache)
    answers = asyncio.run(runner.run([task_run(6)]))["sage"][BASE]
    assert all(a.ok for a in answers.values())
    assert any("the response cache stopped working" in note for note in runner.notes)


def test_should_stop_stops_sending_and_what_was_sent_is_kept(tmp_path: Path) -> None:
    backend = MockBackend(delay=0.01)
    runner = Runner(BackendSource(backend), out_dir=tmp_path, concurrency=2,
                    should_stop=lambda: len(backend.asked) >= 5)
    answers = asyncio.run(runner.run([task_run(20)]))["sage"][BASE]
    assert 5 <= len(backend.asked) <= 6 and len(answers) == len(backend.asked)
    assert len(read_answers(samples_path(tmp_path, "sage"))) == len(backend.asked)


def test_log_prompts_keeps_the_messages(tmp_path: Path) -> None:
    runner = Runner(BackendSource(MockBackend()), out_dir=tmp_path, concurrency=2, log_prompts=True)
    answers = asyncio.run(runner.run([task_run(2)]))["sage"][BASE]
    assert answers[0].messages[-1]["role"] == "user" and "Превет" in answers[0].messages[-1]["content"]
    line = json.loads(samples_path(tmp_path, "sage").read_text().splitlines()[0])
    assert line["messages"][-1]["content"].startswith("Исправь")


def test_the_samples_writer_starts_fresh_after_a_partial_last_line(tmp_path: Path) -> None:
    path = tmp_path / "samples_sage.jsonl"
    path.write_text('{"id": 0, "status": "ok", "output": "a"}\n{"id": 1, "status": "o', encoding="utf-8")
    writer = SampleWriter(path)
    writer.write_many([Answer(2, Status.OK, "в")])
    writer.close()
    assert sorted(read_answers(path)) == [0, 2]  # the cut line is skipped, the new one intact
    assert path.read_text().splitlines()[-1].startswith('{"id":2')


def test_answers_with_lone_surrogates_and_nul_survive_the_samples_file_and_the_cache(tmp_path: Path) -> None:
    text = "ответ \ud800 с \x00 нулём"
    writer = SampleWriter(tmp_path / "s.jsonl")
    writer.write_many([Answer(0, Status.OK, text)])
    writer.close()
    assert read_answers(tmp_path / "s.jsonl")[0].output == text
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put_many([("k", "m", Completion(text, reasoning="\udfff"))])
    assert cache.get("k").text == text and cache.get("k").reasoning == "\udfff"


def test_the_cache_key_holds_the_endpoints_and_the_options() -> None:
    options = GenerationOptions().fingerprint()
    a = request_key("openai:m", options, "d", {"endpoints": ["http://a/v1"]})
    assert a != request_key("openai:m", options, "d", {"endpoints": ["http://b/v1"]})
    assert a != request_key("openai:m", GenerationOptions(max_tokens=5).fingerprint(), "d", {"endpoints": ["http://a/v1"]})
    assert request_key("openai:m", options, "d", {}) == request_key("openai:m", options, "d", {})


def test_a_file_that_is_no_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"definitely not sqlite " * 200)
    with pytest.raises(ConfigError, match="cannot use the response cache"):
        ResponseCache(path)
    with pytest.raises(sqlite3.DatabaseError):
        sqlite3.connect(path).execute("SELECT 1 FROM sqlite_master").fetchall()


def test_an_unexpected_error_in_one_worker_stops_the_others() -> None:
    from merabench.runner.aio import run_pool

    started: list[int] = []

    async def handle(job: int) -> None:
        started.append(job)
        if job == 3:
            raise ZeroDivisionError("a bug")
        await asyncio.sleep(0.05)

    with pytest.raises(ZeroDivisionError):
        asyncio.run(run_pool(range(100), handle, 4))
    assert len(started) < 10  # the other workers were cancelled, not left running through the rest


def test_on_idle_comes_once_when_every_worker_waits_and_answers_are_seen_after_they_are_written(tmp_path: Path) -> None:
    backend = MockBackend(delay=0.05)
    idle_at: list[int] = []
    seen: list[tuple[int, bool]] = []
    path = samples_path(tmp_path, "sage")

    def on_answer(task: str, answer: Answer) -> None:  # the answer's line is on disk by now
        seen.append((answer.id, answer.id in read_answers(path)))

    answers = run(backend, tmp_path, n=12, on_idle=lambda: idle_at.append(len(backend.asked)), on_answer=on_answer)
    assert len(answers) == 12
    assert idle_at == [4]  # concurrency 4: the first moment all four wait on the endpoint
    assert sorted(i for i, _ in seen) == list(range(12)) and all(written for _, written in seen)


def test_on_idle_comes_when_nothing_is_left_to_send_below_the_concurrency(tmp_path: Path) -> None:
    idle: list[int] = []
    backend = MockBackend()
    run(backend, tmp_path, n=2, on_idle=lambda: idle.append(len(backend.asked)))
    assert idle == [2]


def test_prepared_requests_wait_in_batches_bounded_by_their_text_as_well_as_their_number(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests are rendered ahead of the workers in batches for the cache lookup; long prompts
    (a GorillaHard catalog and files) make small batches, so little text waits in memory."""
    import merabench.runner.loop as runner_module
    from merabench.rows.prompts import render_row

    rows = task_run(10).data.rows
    longest = max(len(render_row(row)) for row in rows)
    monkeypatch.setattr(runner_module, "CACHE_LOOKUP_CHARS", 3 * longest + 1)  # four prompts reach it
    looked_up: list[int] = []
    runner = Runner(BackendSource(MockBackend()), out_dir=tmp_path / "run", concurrency=2,
                    cache=ResponseCache(tmp_path / "c.sqlite"))
    real = runner._uncached
    monkeypatch.setattr(runner, "_uncached", lambda items, emit: looked_up.append(len(items)) or real(items, emit))
    answers = asyncio.run(runner.run([task_run(10)]))["sage"][BASE]
    assert sorted(answers) == list(range(10)) and all(a.ok for a in answers.values())
    assert sum(looked_up) == 10 and max(looked_up) <= 4 and len(looked_up) >= 3
