"""Hostile cases of round III on servers that lie (r01-r07, n02, n04, n09-n12, c08, c17 of
shared/cases/hostile3.md): a server saying "retry now" is never flooded (the pause has a floor and
the give-up rule counts refusals), an absurd Retry-After reads as a person would say it, /props
and /metrics that say nonsense neither crash the run nor stop the queue watch, and a reply of
hundreds of megabytes or with no content and no reason is an error row, fast."""

from __future__ import annotations

import asyncio
import email.utils
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from helpers import read_jsonl, run_cli

from merabench.models import server_word

ROWS = 36  # the bundled RussianRegions rows


def run(url: str, out: Path, *more: str) -> Any:
    return run_cli("run", "--no-progress", "--tasks", "russianregions", "--model", "openai:m", "--base-url", url,
                   "--no-cache", "--out", str(out), *more)


def lines_of(result: Any) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


# -- r01-r07: every request refused, with a Retry-After that says "now" or "never" ---------------

def http_date(seconds_from_now: float) -> str:
    return email.utils.formatdate(time.time() + seconds_from_now, usegmt=True)


@dataclass
class Refusing:
    name: str
    status: str
    retry_after: str
    says: str
    most_requests: int                       # what the server may see at most
    not_shown: tuple[str, ...] = field(default=("inf", "e+"))


REFUSING = [
    # "retry now" in four spellings: paused all the same, given up after REFUSALS_ALLOWED pauses
    Refusing("r01 Retry-After 0", "429", "0", "kept refusing (HTTP 429 with Retry-After 0 s, 6 times)", 80),
    Refusing("r02 Retry-After -30", "429", "-30", "kept refusing (HTTP 429 with Retry-After 0 s", 80),
    Refusing("r03 Retry-After a past date", "429", http_date(-3600), "kept refusing (HTTP 429 with Retry-After 0 s", 80),
    Refusing("r04 Retry-After nan", "429", "nan", "kept refusing (HTTP 429, 6 times)", 80),
    # "never": stopped at the first pause, the wait said in words
    Refusing("r05 Retry-After 1e309", "429", "1e309", "Retry-After more than 1,000 years", 32),
    Refusing("r06 Retry-After 40 digits", "429", "1" + "0" * 39, "Retry-After more than 1,000 years", 32),
    Refusing("r07 503, Retry-After a date in 2099", "503", "Thu, 01 Jan 2099 00:00:00 GMT",
             "HTTP 503 with Retry-After ", 32),
]


@pytest.mark.parametrize("case", REFUSING, ids=[c.name for c in REFUSING])
def test_a_refusing_server_is_never_flooded(case: Refusing, tmp_path: Path, make_server) -> None:
    server = make_server(plan=lambda n, body: case.status, retry_after=case.retry_after)
    result = run(server.url, tmp_path / "out", "--retry-delay", "0.01")
    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr
    stopped = [line for line in lines_of(result) if "stopped early" in line]
    assert stopped and case.says in stopped[0], result.stderr
    for shown in case.not_shown:
        assert shown not in stopped[0], stopped[0]
    assert len(server.requests) <= case.most_requests, f"{len(server.requests)} requests to a refusing server"
    assert f"{ROWS} row(s) not asked yet" in stopped[0]


def test_r07_a_date_decades_ahead_reads_in_days(tmp_path: Path, make_server) -> None:
    server = make_server(plan=lambda n, body: "503", retry_after="Thu, 01 Jan 2099 00:00:00 GMT")
    stopped = [line for line in lines_of(run(server.url, tmp_path / "out")) if "stopped early" in line]
    assert stopped and " days, longer than the 60 s back-off ceiling" in stopped[0], stopped


def test_a_server_that_refuses_then_answers_is_waited_for(tmp_path: Path, make_server) -> None:
    """The control: refusals with no usable wait, then answers: every row answered, after pauses."""
    server = make_server(plan=lambda n, body: "429" if n <= 40 else "ok", retry_after="0")
    result = run(server.url, tmp_path / "out", "--retry-delay", "0.01")
    assert result.returncode == 0, result.stderr
    assert len(read_jsonl(tmp_path / "out" / "samples_russianregions.jsonl")) == ROWS


# -- n02, n04, n09: what /props says ---------------------------------------------------------------

@pytest.mark.parametrize(("said", "note"), [
    (10**9, "says it serves 1,000,000,000 request(s) at once (its /props): sending 256 at once"),
    (10**400, "says it serves 1,000,000,000,000 or more request(s) at once (its /props): sending 256 at once"),
], ids=["n02 total_slots 10^9", "n04 total_slots of 400 digits"])
def test_an_absurd_slot_count_is_capped_at_the_ceiling(said: int, note: str, tmp_path: Path, make_server) -> None:
    server = make_server(props=True, slots_said=said)
    result = run(server.url, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert note in result.stderr, result.stderr
    assert len(server.requests) == ROWS


def test_n09_a_server_claiming_more_slots_than_it_serves_times_out_nothing(tmp_path: Path, make_server) -> None:
    server = make_server(props=True, slots=2, slots_said=64, latency_s=0.4)
    result = run(server.url, tmp_path / "out", "--timeout", "3", "--retry-delay", "0.01")
    assert result.returncode == 0, result.stderr
    rows = read_jsonl(tmp_path / "out" / "samples_russianregions.jsonl")
    errors = [r for r in rows if r.get("status") != "ok"]
    assert not errors, f"{len(errors)} error rows: {errors[:1]}"
    assert len(server.requests) == ROWS, "no request timed out and was sent again"
    assert "its first answers showed far fewer: its word was dropped" in result.stderr


# -- n10-n12: what /metrics says -----------------------------------------------------------------

GAUGES = [("2", "NaN"), ("2", "+Inf"), ("+Inf", "100")]
GAUGE_IDS = ["n10 waiting NaN", "n11 waiting +Inf", "n12 running +Inf, waiting 100"]


@pytest.mark.parametrize("gauges", GAUGES, ids=GAUGE_IDS)
def test_a_broken_gauge_neither_crashes_the_run(gauges: tuple[str, str], tmp_path: Path, make_server) -> None:
    server = make_server(metrics=True, gauges_said=gauges, slots=2, latency_s=0.05)
    result = run(server.url, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "shows its queue (/metrics)" in result.stderr
    assert len(server.requests) == ROWS


@pytest.mark.parametrize("gauges", GAUGES, ids=GAUGE_IDS)
def test_a_broken_gauge_does_not_stop_the_queue_watch(gauges: tuple[str, str], make_server,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    server = make_server(metrics=True, gauges_said=gauges)
    monkeypatch.setattr(server_word, "POLL_S", 0.02)
    told: list[tuple[float, float]] = []

    async def watch() -> None:
        async with aiohttp.ClientSession() as session:
            task = asyncio.create_task(server_word.watch_gauges(session, server.url, lambda r, w: told.append((r, w))))
            await asyncio.sleep(0.5)
            assert not task.done(), "the watcher stopped"
            task.cancel()

    asyncio.run(watch())
    assert server.metrics_reads >= 5, "the watcher kept reading /metrics"
    assert not told, "a broken reading is told to nobody"


# -- c08, c17: replies that are no answer ----------------------------------------------------------

def test_c08_a_reply_of_200_mb_is_an_error_row_read_no_further(tmp_path: Path, make_server) -> None:
    huge = "я" * (100 << 20)  # 200 MB of UTF-8 in the answer's content
    server = make_server(reply=lambda body: huge)
    result = run(server.url, tmp_path / "out", "--limit", "2", "--max-retries", "0")
    assert result.returncode == 1 or result.returncode == 0, result.stderr
    rows = read_jsonl(tmp_path / "out" / "samples_russianregions.jsonl")
    assert [r["status"] for r in rows] == ["error", "error"]
    assert all("larger than 64 MiB" in r["error"] for r in rows), rows[0]["error"]
    assert len(server.requests) == 2, "not retried: the same request gets the same reply"


def test_c17_null_content_without_a_finish_reason_is_an_error_row(tmp_path: Path, make_server) -> None:
    server = make_server(reply=lambda body: {"content": None, "finish_reason": None})
    result = run(server.url, tmp_path / "out", "--limit", "3", "--max-retries", "1", "--retry-delay", "0.01")
    rows = read_jsonl(tmp_path / "out" / "samples_russianregions.jsonl")
    assert [r["status"] for r in rows] == ["error"] * 3, result.stderr
    assert "content is null and no finish_reason says why" in rows[0]["error"]
    assert len(server.requests) == 6, "retried once each: a server's hiccup, not the model's word"


def test_c17_null_content_with_a_finish_reason_is_the_model_saying_nothing(tmp_path: Path, make_server) -> None:
    server = make_server(reply=lambda body: {"content": None, "finish_reason": "length"})
    result = run(server.url, tmp_path / "out", "--limit", "2")
    rows = read_jsonl(tmp_path / "out" / "samples_russianregions.jsonl")
    assert [(r["status"], r["output"]) for r in rows] == [("ok", "")] * 2, result.stderr
