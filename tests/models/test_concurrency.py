"""Concurrency that adapts to the server, time-outs that do not count our own queue, and
back-pressure per endpoint, against servers on 127.0.0.1 that serve few requests at a time or
refuse (no timing assertions: what is answered, asked and cancelled)."""

from __future__ import annotations

import asyncio
import heapq
import json
import random
import time
from collections import deque
from pathlib import Path

import jsonschema
import pytest
from helpers import read_jsonl, run_cli, sage_rows, write_jsonl

import merabench
from merabench.errors import ServerRefused
from merabench.models import BackendSettings, GenerationOptions, RequestPolicy
from merabench.models import endpoints as endpoints_module
from merabench.models.base import Request
from merabench.models.concurrency import AdaptiveLimit
from merabench.models.openai_compat import OpenAICompatBackend
from merabench.models.server_word import queue_gauges
from merabench.pipeline import RunConfig, evaluate
from merabench.runner.cache import CacheSettings


def narrow_run(tmp_path: Path, url: str, concurrency: int | str, max_retries: int = 5):
    """36 RussianRegions rows (the bundled ones), a time-out of 8 requests' service time."""
    policy = RequestPolicy(concurrency=concurrency, max_retries=max_retries, timeout_s=0.8, retry_delay_s=0.05)
    return evaluate(RunConfig(model="openai:m", endpoint=BackendSettings((url,), policy=policy), tasks=("russianregions",),
                              out=tmp_path / str(concurrency), cache=CacheSettings(enabled=False)))


def test_a_narrow_server_answers_every_row_with_auto(tmp_path: Path, make_server) -> None:
    # two requests served at a time, 0.1 s each: 36 rows need 1.8 s, a fixed 32 in flight queue 1.6 s
    server = make_server(latency_s=0.1, slots=2)
    result = narrow_run(tmp_path, server.url, "auto")
    rows = read_jsonl(tmp_path / "auto" / "samples_russianregions.jsonl")
    assert len(rows) == 36 and all(r["status"] == "ok" for r in rows)
    assert len(server.requests) == 36 and server.abandoned == 0  # nothing timed out, nothing sent twice
    chosen = next(iter(result.document["concurrency"].values()))
    assert chosen["mode"] == "auto" and chosen["trace"][0] == [0.0, 32]
    assert any(note.startswith("--concurrency auto:") for note in result.notes)
    # the same server with a fixed 32 and no retries: our own queue times requests out
    fixed = make_server(latency_s=0.1, slots=2)
    narrow_run(tmp_path, fixed.url, 32, max_retries=0)
    failed = [r for r in read_jsonl(tmp_path / "32" / "samples_russianregions.jsonl") if r["status"] != "ok"]
    assert failed and fixed.abandoned > 0


def test_the_server_s_own_word_on_its_slots_is_taken(tmp_path: Path, make_server) -> None:
    server = make_server(latency_s=0.05, slots=3, props=True)
    result = narrow_run(tmp_path, server.url, "auto")
    chosen = next(iter(result.document["concurrency"].values()))
    assert chosen["server_slots"] == 3 and chosen["max"] == 4  # the slots plus one, from the start
    assert any("says it serves 3 request(s) at once (its /props)" in note for note in result.notes)
    assert server.abandoned == 0


def test_the_queue_a_server_s_metrics_show_cuts_the_limit(tmp_path: Path, make_server) -> None:
    server = make_server(latency_s=0.05, slots=2, metrics=True)
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(150))
    result = evaluate(RunConfig(model="openai:m", endpoint=BackendSettings((server.url,)), tasks=("sage",),
                                data=(str(data),), out=tmp_path / "run", cache=CacheSettings(enabled=False)))
    chosen = next(iter(result.document["concurrency"].values()))
    assert any("shows its queue (/metrics)" in note for note in result.notes)
    assert chosen["final"] <= 4 and server.abandoned == 0  # two served, the rest seen waiting in its queue
    assert server.metrics_reads >= 2  # asked before the run, then read during it


def test_requests_waiting_in_the_server_s_queue_are_taken_off_the_limit() -> None:
    limit = AdaptiveLimit()
    limit.start(0.0)
    limit.told_queue(running=2, waiting=0, in_flight=32, now=0.5)
    assert limit.limit == 32  # nothing waits: nothing to learn
    limit.told_queue(running=2, waiting=30, in_flight=32, now=1.0)
    assert limit.limit == 3  # the two it serves, and one of headroom


def test_engine_gauges_are_read_from_vllm_and_sglang_metrics() -> None:
    vllm = ('# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="a"} 3.0\n'
            'vllm:num_requests_running{model_name="b"} 1.0\nvllm:num_requests_waiting{model_name="a"} 5.0\n')
    assert queue_gauges(vllm) == (4.0, 5.0)
    assert queue_gauges("sglang:num_running_reqs 8\nsglang:num_queue_reqs 0\n") == (8.0, 0.0)
    assert queue_gauges("python_gc_objects_collected_total 5\n") is None


def test_a_request_the_client_gives_up_on_is_cancelled(make_server) -> None:
    server = make_server(plan=lambda n, body: "slow", slow_s=1.5, slots=1)
    backend = OpenAICompatBackend("m", [server.url], timeout_s=0.3, max_retries=0, concurrency=1)

    async def go() -> None:
        try:
            await backend.generate(Request([{"role": "user", "content": "долго"}]))
        finally:
            await backend.aclose()

    with pytest.raises(Exception, match="timed out after 0.3 s"):
        asyncio.run(go())
    deadline = time.monotonic() + 5
    while server.abandoned == 0 and time.monotonic() < deadline:  # the server finishes its step, then sees it
        time.sleep(0.05)
    assert server.abandoned == 1  # the connection was closed: the server knew nobody waits for the answer


def test_a_throttle_pauses_the_endpoint_once_for_all_its_requests(make_server) -> None:
    server = make_server(latency_s=0.05, plan=lambda n, body: "429" if n <= 8 else "ok", retry_after="0.3")
    backend = OpenAICompatBackend("m", [server.url], concurrency=8, retry_base_delay_s=0.01)

    async def go():
        try:
            return await asyncio.gather(*(backend.generate(Request([{"role": "user", "content": f"т {i}"}]))
                                          for i in range(8)))
        finally:
            await backend.aclose()

    started = time.monotonic()
    answers = asyncio.run(go())
    assert all(a.text.startswith("echo:") for a in answers) and all(a.attempts == 2 for a in answers)
    endpoint = backend.pool.endpoints[0]
    assert endpoint.pause_epoch == 1  # one pause (one halving: 8 -> 4, grown back since), for eight refusals
    assert 5.0 < endpoint.limit < 8.0
    assert time.monotonic() - started >= 0.3


def test_an_hour_long_retry_after_stops_the_run_with_exit_3_and_the_rerun_resumes(tmp_path: Path, make_server) -> None:
    server = make_server(latency_s=0.02, plan=lambda n, body: "429" if n > 3 else "ok", retry_after="3600")
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(36))
    run = ["run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
           "--out", str(tmp_path / "run"), "--no-progress", "--no-cache", "--concurrency", "1", "--max-retries", "2"]
    done = run_cli(*run, timeout=60)
    message = done.stdout + done.stderr
    assert done.returncode == 3, message
    assert "Retry-After 3600 s" in message and "to continue: merabench run --model openai:m" in message
    assert len(server.requests) == 4  # three answers, then one refusal: nothing more was sent
    samples = read_jsonl(tmp_path / "run" / "samples_sage.jsonl")
    assert [s["status"] for s in samples[:3]] == ["ok"] * 3
    assert all(s["status"] == "unasked" for s in samples[3:])  # the refused row too: unasked, not failed
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert "Retry-After 3600" in results["settings"]["stopped_by"]
    assert results["stopped"]["unasked"] == 33 and results["stopped"]["by"] == "the server's refusal"

    server.plan = lambda n, body: "ok"
    done = run_cli(*run, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(read_jsonl(tmp_path / "run" / "samples_sage.jsonl")) == 36 and len(server.requests) == 4 + 33


def test_a_model_server_that_dies_mid_run_is_given_up_and_the_rerun_resumes(tmp_path: Path, make_server) -> None:
    """The model's server answers 10 requests, then its process dies (refused at connect): after
    3 retries in a row that find no connection nothing more is sent (it used to cost every row
    left its whole retry budget, each then failed: 328 s and exit 0 on SAGE's 65 rows); the
    answers in are kept, the rest are not asked (not failed), the run exits 3 saying why, and
    the same command against a live server asks only the rest."""
    server = make_server(plan=lambda n, body: "ok" if n <= 10 else "die")
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(36))
    out = tmp_path / "run"

    def run(url: str):
        return run_cli("run", "--model", "openai:m", "--base-url", url, "--tasks", "sage", "--data", str(data),
                       "--out", str(out), "--no-progress", "--concurrency", "4", "--retry-delay", "0.01", timeout=60)

    done = run(server.url)
    message = done.stdout + done.stderr
    assert done.returncode == 3, message
    given_up = f"{server.url} stopped accepting connections: 3 retries in a row failed on the connection"
    assert f"stopped early: {given_up}" in message, message
    samples = read_jsonl(out / "samples_sage.jsonl")
    assert sum(s["status"] == "ok" for s in samples) == 10
    assert all(s["status"] == "unasked" for s in samples if s["status"] != "ok")
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["stopped"]["unasked"] == 26 and given_up in results["settings"]["stopped_by"]
    schema = json.loads((Path(merabench.__file__).parent / "schemas" / "results.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(results)  # "by": "the server's refusal" was outside it

    alive = make_server()
    again = run(alive.url)
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(alive.requests) == 26
    assert all(s["status"] == "ok" for s in read_jsonl(out / "samples_sage.jsonl"))


def test_a_model_endpoint_that_dies_is_left_out_while_another_answers(tmp_path: Path, make_server) -> None:
    """Of two endpoints, the one that dies is given up; the other answers every row left."""
    dying = make_server(plan=lambda n, body: "ok" if n <= 3 else "die")
    alive = make_server()
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(36))
    done = run_cli("run", "--model", "openai:m", "--base-url", dying.url, "--base-url", alive.url, "--tasks", "sage",
                   "--data", str(data), "--out", str(tmp_path / "run"), "--no-progress", "--concurrency", "2",
                   "--retry-delay", "0.01", timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(s["status"] == "ok" for s in read_jsonl(tmp_path / "run" / "samples_sage.jsonl"))


def test_dropped_connections_and_5xx_from_the_model_are_retried_not_given_up(tmp_path: Path, make_server) -> None:
    """Only retries that find no connection count, and an answer resets them: two dropped
    connections then three HTTP 500s on one request are retried to its answer."""
    server = make_server(plan=lambda n, body: "drop" if n <= 2 else "500" if n <= 5 else "ok")
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(8))
    done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
                   "--out", str(tmp_path / "run"), "--no-progress", "--concurrency", "1", "--retry-delay", "0.01",
                   timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(s["status"] == "ok" for s in read_jsonl(tmp_path / "run" / "samples_sage.jsonl"))
    assert len(server.requests) == 8 + 5


def test_an_endpoint_that_keeps_refusing_is_given_up(make_server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(endpoints_module, "REFUSING_FOR_S", 0.5)  # a minute in a real run
    server = make_server(plan=lambda n, body: "503")
    server.retry_after = ""  # no Retry-After: the endpoint's own exponential back-off
    backend = OpenAICompatBackend("m", [server.url], concurrency=4, retry_base_delay_s=0.05)

    async def go():
        try:
            return await asyncio.gather(*(backend.generate(Request([{"role": "user", "content": f"т {i}"}]))
                                          for i in range(4)), return_exceptions=True)
        finally:
            await backend.aclose()

    outcomes = asyncio.run(go())
    assert all(isinstance(o, ServerRefused) for o in outcomes), outcomes
    assert "kept refusing (HTTP 503" in str(outcomes[0])


def refuses_three_parameters(n: int, body: dict) -> str:
    return "400" if {"max_tokens", "temperature", "stop"} & set(body) else "ok"


def refusal_of(body: dict) -> dict:
    name = next(k for k in ("max_tokens", "temperature", "stop") if k in body)
    return {"error": {"message": f"Unsupported parameter: '{name}' is not supported with this model.",
                      "param": name, "code": "unsupported_parameter"}}


def test_api_profile_auto_answers_every_row_at_any_concurrency(tmp_path: Path, make_server) -> None:
    server = make_server(latency_s=0.05, plan=refuses_three_parameters, error_body=refusal_of,
                         reply=lambda body: {"content": "ответ", "usage": {"prompt_tokens": 3, "completion_tokens": 40}})
    result = evaluate(RunConfig(model="openai:m", endpoint=BackendSettings((server.url,), policy=RequestPolicy(32)),
                                tasks=("russianregions",), out=tmp_path / "run", cache=CacheSettings(enabled=False),
                                generation=GenerationOptions(max_tokens=8, stop=("\n\n",), api_profile="auto")))
    rows = read_jsonl(tmp_path / "run" / "samples_russianregions.jsonl")
    assert len(rows) == 36 and all(r["status"] == "ok" for r in rows), [r["error"] for r in rows if r["error"]][:3]
    assert all(r["attempts"] == 1 for r in rows)  # a resend in the learnt shape is not a retry
    assert result.document["settings"]["adaptations"] == [
        "max_tokens renamed to max_completion_tokens", "temperature dropped", "stop dropped"]
    last = server.requests[-1]
    assert last["max_completion_tokens"] == 8 and not {"max_tokens", "temperature", "stop"} & set(last)
    # the server's usage shows 40 completion tokens where 8 were asked: it ignored the limit
    assert any("ignored the token limit: asked max_completion_tokens=8, an answer used 40" in n for n in result.notes)


def simulate(limit: AdaptiveLimit, slots: int, service_s: float, answers: int, *, halve_at: int | None = None) -> None:
    """A FIFO server with `slots` served at a time, each request taking `service_s` give or take
    a fifth (answers of different lengths), kept as full as `limit` allows; from answer
    `halve_at` on it serves half as many."""
    rng = random.Random(slots)
    now, in_flight, busy, queued = 0.0, 0, [], deque()
    limit.start(now)
    for n in range(answers):
        if n == halve_at:
            slots //= 2
        while in_flight < limit.limit:
            in_flight += 1
            if len(busy) < slots:
                heapq.heappush(busy, (now + service_s * rng.uniform(0.8, 1.2), now))
            else:
                queued.append(now)
        now, sent = heapq.heappop(busy)
        in_flight -= 1
        limit.observe(now - sent, now)
        while queued and len(busy) < slots:
            heapq.heappush(busy, (now + service_s * rng.uniform(0.8, 1.2), queued.popleft()))


def test_the_adaptive_limit_grows_on_a_wide_server_and_backs_off_on_a_queue() -> None:
    wide = AdaptiveLimit()
    simulate(wide, slots=10_000, service_s=0.2, answers=3000)
    assert wide.limit == wide.ceiling  # throughput grew with every step
    narrow = AdaptiveLimit()
    simulate(narrow, slots=2, service_s=1.0, answers=300)
    assert 2 <= narrow.limit <= 6  # the server's two, and a little headroom
    assert narrow.describe()["trace"][0] == [0.0, 32]
    past = AdaptiveLimit()
    simulate(past, slots=8, service_s=1.0, answers=4000)
    assert 6 <= past.limit <= 16  # the first burst showed no queue (8 answered at once); probing down found about 8
    halved = AdaptiveLimit()
    simulate(halved, slots=16, service_s=1.0, answers=3000, halve_at=1500)
    assert 8 <= halved.limit <= 14
