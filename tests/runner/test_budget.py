"""Cost and time limits: --price-in/--price-out/--price-file, --max-cost, --deadline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import correction_of, read_jsonl, run_cli, sage_rows, write_jsonl

from merabench.errors import ConfigError
from merabench.models.concurrency import AUTO_START
from merabench.runner.budget import (
    Budget,
    Prices,
    StopCause,
    parse_duration,
    prices_from_file,
    resolve_prices,
)


def test_prices_cost_and_the_limit() -> None:
    prices = Prices(0.15, 0.6)
    assert prices.cost(1_000_000, 0) == pytest.approx(0.15)
    assert prices.cost(2000, 1000) == pytest.approx(0.0003 + 0.0006)
    now = [0.0]
    budget = Budget(prices, max_cost=0.001, clock=lambda: now[0])
    budget.add(2000, 1000)
    assert not budget.should_stop()
    budget.add(2000, 1000)
    assert budget.should_stop() and budget.limit is StopCause.MAX_COST and "--max-cost" in budget.summary


def test_deadline_by_the_clock() -> None:
    now = [100.0]
    budget = Budget(deadline_s=60, clock=lambda: now[0])
    now[0] = 159.0
    assert not budget.should_stop()
    now[0] = 160.0
    assert budget.should_stop() and budget.limit is StopCause.DEADLINE and "--deadline 60 s" in budget.summary
    assert [parse_duration(t) for t in ("90", "90s", "45m", "2h", "1.5h")] == [90, 90, 2700, 7200, 5400]
    for bad in ("", "soon", "-5", "0", "5d"):
        with pytest.raises(ConfigError):
            parse_duration(bad)


def test_price_file_and_its_mistakes(tmp_path: Path) -> None:
    path = tmp_path / "prices.toml"
    path.write_text('["gpt-4o-mini"]\ninput = 0.15\noutput = 0.6\n\n["openai:o3"]\ninput = 2\noutput = 8\n',
                    encoding="utf-8")
    assert prices_from_file(path, "openai:gpt-4o-mini") == Prices(0.15, 0.6)
    assert prices_from_file(path, "openai:o3") == Prices(2.0, 8.0)
    with pytest.raises(ConfigError, match="has no prices for 'qwen'"):
        prices_from_file(path, "openai:qwen")
    with pytest.raises(ConfigError, match="go together"):
        resolve_prices(1.0, None, None, "openai:m")
    with pytest.raises(ConfigError, match="alternatives"):
        resolve_prices(1.0, 2.0, path, "openai:m")
    with pytest.raises(ConfigError, match="needs prices"):
        Budget(max_cost=1.0)
    path.write_text('["m"]\ninput = -1\noutput = 1\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=">= 0"):
        prices_from_file(path, "openai:m")


def perfect(body: dict) -> dict:
    return {"content": correction_of(body["messages"][-1]["content"]),
            "usage": {"prompt_tokens": 1000, "completion_tokens": 500, "total_tokens": 1500}}


def test_max_cost_stops_sending_then_the_run_resumes(tmp_path: Path, make_server) -> None:
    server = make_server(reply=perfect, latency_s=0.05)
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(30))
    run = ["run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
           "--out", str(tmp_path / "run"), "--no-progress", "--concurrency", "2",
           "--price-in", "1", "--price-out", "2"]  # 0.002 per answer
    done = run_cli(*run, "--max-cost", "0.01")
    message = done.stdout + done.stderr
    assert done.returncode == 3, message
    assert "stopped early: --max-cost 0.01 reached" in message and "to continue: merabench run" in message
    assert message.count("stopped early") == 1, message  # the closing line alone, not a note above it as well
    answered = [s for s in read_jsonl(tmp_path / "run" / "samples_sage.jsonl") if s["status"] == "ok"]
    assert 5 <= len(answered) <= 7  # five reach the limit; at most the one other in flight finishes
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert results["settings"]["stopped_by"].startswith("--max-cost 0.01")
    # what the server got, not the slots taken: a worker that found the run stopped sent nothing
    assert [e["sent"] for e in results["concurrency"].values()] == [len(server.requests)], results["concurrency"]
    assert results["tasks"]["sage"]["tokens"]["cost"] == pytest.approx(0.002 * len(answered))
    assert any("stopped early" in note for note in results["notes"])
    export = run_cli("export", "lmeval", str(tmp_path / "run"), "--out", str(tmp_path / "lm"))
    assert export.returncode == 2 and f"{30 - len(answered)} of them never asked" in export.stderr  # never as ""

    done = run_cli(*run)  # the same run, no limit: only the rest is asked
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(server.requests) == 30
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert results["tasks"]["sage"]["metrics"]["errant_f1"] == 1.0
    assert results["cost"] == pytest.approx(0.06) and "stopped_by" not in results["settings"]
    assert "cost" in done.stdout  # the summary table's column


def test_a_stopped_run_counts_only_the_requests_it_sent(tmp_path: Path, make_server) -> None:
    """--concurrency auto starts 32 workers: those holding a slot when --max-cost is reached send
    nothing, and the concurrency record (results.json, its note) counted them all the same."""
    server = make_server(reply=perfect, latency_s=0.05)
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(60))
    done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
                   "--out", str(tmp_path / "run"), "--no-progress", "--concurrency", "auto", "--price-in", "1",
                   "--price-out", "2", "--max-cost", "0.01")
    assert done.returncode == 3, done.stderr
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert 0 < len(server.requests) < 60
    assert [e["sent"] for e in results["concurrency"].values()] == [len(server.requests)], results["concurrency"]


def test_deadline_stops_sending_then_the_run_resumes(tmp_path: Path, make_server) -> None:
    server = make_server(reply=perfect, latency_s=0.3)
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(40))
    run = ["run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
           "--out", str(tmp_path / "run"), "--no-progress", "--concurrency", "2"]
    done = run_cli(*run, "--deadline", "1")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "--deadline 1 s reached" in done.stdout + done.stderr
    first = len([s for s in read_jsonl(tmp_path / "run" / "samples_sage.jsonl") if s["status"] == "ok"])
    assert 2 <= first < 40
    stopped = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))["stopped"]
    assert stopped["by"] == "--deadline" and stopped["unasked"] == 40 - first
    assert "--deadline 1" in stopped["continue"]  # a deadline counts per invocation: the same command continues
    done = run_cli(*run)
    assert done.returncode == 0
    assert len(server.requests) == 40


def test_a_resumed_run_stopped_at_max_cost_counts_and_says_it_honestly(tmp_path: Path, make_server) -> None:
    """issue 25: on resume the unasked rows, the spent estimate and the table agree; the report and
    results.json say the run stopped at the limit, how many rows are unasked (not failed), and
    the command that continues."""
    server = make_server(reply=perfect, latency_s=0.05)
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(30))
    folder = tmp_path / "run"
    run = ["run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
           "--out", str(folder), "--no-progress", "--concurrency", "2", "--price-in", "1", "--price-out", "2"]
    assert run_cli(*run, "--max-cost", "0.01").returncode == 3
    first = len(server.requests)

    done = run_cli(*run, "--max-cost", "0.02")  # a higher limit: the folder's total, not another 0.02
    message = done.stdout + done.stderr
    assert done.returncode == 3, message
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    samples = read_jsonl(folder / "samples_sage.jsonl")
    answered = [s for s in samples if s["status"] == "ok"]
    unasked = [s for s in samples if s["status"] != "ok"]
    assert len(samples) == 30 and len(answered) == len(server.requests) > first
    assert all(s["status"] == "unasked" and s["error"].startswith("the run stopped at --max-cost") for s in unasked)
    stopped = results["stopped"]
    assert stopped["by"] == "--max-cost" and stopped["unasked"] == len(unasked) == 30 - len(answered) > 0
    assert results["tasks"]["sage"]["n_unasked"] == len(unasked)
    # the estimate the limit compared is the table's and results.json's cost, over the folder's answers
    assert stopped["spent"] == pytest.approx(results["cost"]) == pytest.approx(0.002 * len(answered))
    assert f"{results['cost']:.4f} spent on the folder's answers" in stopped["reason"]
    assert f"{len(unasked)} row(s) not asked yet" in message
    assert "--max-cost" not in stopped["continue"] and stopped["continue"].startswith("merabench run --model openai:m")
    assert not any("failed" in note for note in results["tasks"]["sage"].get("notes", []))
    report = (folder / "report.html").read_text(encoding="utf-8")
    assert "The run stopped at --max-cost" in report and f"{len(unasked)} row(s) were not asked" in report
    assert "request(s) failed" not in report and f"{len(unasked)} not asked" in report

    # the same limit again: nothing more is sent, and it says so
    sent = len(server.requests)
    done = run_cli(*run, "--max-cost", "0.02")
    assert done.returncode == 3 and len(server.requests) == sent
    assert json.loads((folder / "results.json").read_text(encoding="utf-8"))["stopped"]["unasked"] == len(unasked)

    done = run_cli(*stopped["continue"].split()[1:])  # the command it gave continues the run to the end
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert "stopped" not in results and results["tasks"]["sage"]["n_answered"] == 30
    assert results["cost"] == pytest.approx(0.06) and len(server.requests) == 30


def test_usage_that_cannot_be_right_is_missing_not_cost(tmp_path: Path, make_server) -> None:
    """issue 24: negative, non-integer and absurd token counts never reach the cost; issue 44 (c47):
    those answers are priced by an estimate from the bytes sent and received instead, each usable
    count kept, and results.json says which part of the cost it is."""
    bad = [{"prompt_tokens": -5000, "completion_tokens": -100}, {"prompt_tokens": 12.5, "completion_tokens": 3},
           {"prompt_tokens": 10**15, "completion_tokens": 2}, {"prompt_tokens": 900_000, "completion_tokens": 5},
           {"prompt_tokens": 10, "completion_tokens": 5, "completion_tokens_details": {"reasoning_tokens": 9}}]

    def reply(body: dict) -> dict:
        n = int(body["messages"][-1]["content"].rsplit("(", 1)[1].rstrip(")"))
        usage = bad[n] if n < len(bad) else {"prompt_tokens": 1000, "completion_tokens": 500}
        return {"content": correction_of(body["messages"][-1]["content"]), "usage": usage}

    server = make_server(reply=reply)
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(8))
    done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
                   "--out", str(tmp_path / "run"), "--no-progress", "--concurrency", "1",
                   "--price-in", "1", "--price-out", "2", "--max-cost", "100")
    assert done.returncode == 0, done.stdout + done.stderr
    samples = {s["id"]: s for s in read_jsonl(tmp_path / "run" / "samples_sage.jsonl")}
    for n in range(4):
        assert samples[n]["prompt_tokens"] is None and "recorded as missing" in samples[n]["usage_note"], samples[n]
    assert samples[0]["completion_tokens"] is None and "negative" in samples[0]["usage_note"]
    assert "is not an integer" in samples[1]["usage_note"] and "more than any context" in samples[2]["usage_note"]
    assert "bytes can have" in samples[3]["usage_note"]
    assert samples[4]["prompt_tokens"] == 10 and "reasoning_tokens" not in samples[4]  # 9 of 5: dropped alone
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    tokens = results["tasks"]["sage"]["tokens"]
    # rows 0-3 have a count missing: estimated, each usable count kept (rows 1-3 keep their completions)
    estimates = [samples[n]["estimated_tokens"] for n in range(4)]
    assert [e["completion"] for e in estimates[1:]] == [3, 2, 5]
    assert all("estimated_tokens" not in samples[n] for n in range(4, 8))  # their counts price them
    estimated = (sum(e["prompt"] for e in estimates) + 2 * sum(e["completion"] for e in estimates)) / 1e6
    # rows 4-7 priced by their counts: (10, 5) and three times (1000, 500)
    assert tokens["cost"] == pytest.approx((10 + 3000) / 1e6 + (5 + 1500) * 2 / 1e6 + estimated, abs=1e-6)
    assert tokens["cost_estimated"] == pytest.approx(estimated, abs=1e-6) and estimated > 0
    # the totals sum each sane count on its own: rows 1-3 keep their completions (3 + 2 + 5)
    assert tokens["without_usage"] == tokens["estimated"] == 4
    assert (tokens["prompt"], tokens["completion"]) == (3010, 1515), tokens
    assert any("4 answer(s) came without usable token counts: priced from the bytes sent and received" in n
               and "--max-cost counts it" in n for n in results["notes"])
    assert "cannot be right" in " ".join(results["tasks"]["sage"]["notes"])


def test_negative_usage_cannot_keep_max_cost_from_stopping(tmp_path: Path, make_server) -> None:
    """The hostile case: each answer reports -1,000,000 prompt tokens beside a real cost; the
    negative part is not summed, so the limit still stops the run."""
    server = make_server(reply=lambda body: {"content": correction_of(body["messages"][-1]["content"]),
                                             "usage": {"prompt_tokens": -1_000_000, "completion_tokens": 500}})
    server2 = make_server(reply=perfect)
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(30))
    done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--base-url", server2.url,
                   "--tasks", "sage", "--data", str(data), "--out", str(tmp_path / "run"), "--no-progress",
                   "--concurrency", "2", "--price-in", "1", "--price-out", "2", "--max-cost", "0.01")
    assert done.returncode == 3, done.stdout + done.stderr
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert results["cost"] >= 0.01 and results["stopped"]["unasked"] > 0
    assert "cost: -" not in done.stdout and all(
        (s["prompt_tokens"] or 0) >= 0 for s in read_jsonl(tmp_path / "run" / "samples_sage.jsonl"))


def test_max_cost_stops_sending_under_concurrency_auto(tmp_path: Path, make_server) -> None:
    """The default `--concurrency auto` keeps more workers than an endpoint is sent at once; the
    ones waiting for room must not be sent once the limit is reached (they were, every one)."""
    server = make_server(reply=perfect, latency_s=0.3)
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(80))
    done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
                   "--out", str(tmp_path / "run"), "--no-progress", "--price-in", "1", "--price-out", "2",
                   "--max-cost", "0.01")  # 0.002 per answer; auto sends AUTO_START at first
    message = done.stdout + done.stderr
    assert done.returncode == 3, message
    assert "stopped early: --max-cost 0.01 reached" in message
    assert len(server.requests) <= AUTO_START + 8, len(server.requests)  # the first burst, a few sent as it ends
    stopped = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))["stopped"]
    assert stopped["unasked"] == 80 - len(server.requests)


def test_deadline_stops_sending_under_concurrency_auto(tmp_path: Path, make_server) -> None:
    server = make_server(reply=perfect, latency_s=1.0)
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(80))
    done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
                   "--out", str(tmp_path / "run"), "--no-progress", "--deadline", "0.5")
    message = done.stdout + done.stderr
    assert done.returncode == 3, message
    assert "--deadline 0.5 s reached" in message
    assert len(server.requests) == AUTO_START  # the first burst left before the deadline; nothing after it
    stopped = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))["stopped"]
    assert stopped["by"] == "--deadline" and stopped["unasked"] == 80 - AUTO_START


def test_a_deadline_cuts_retries_waiting_out_their_back_off(tmp_path: Path, make_server) -> None:
    """A server failing every request with 500: before, each row's retries waited out 1 + 2 + 4 + 8
    + 16 s past a 3 s deadline and ended as failed rows; now a retry in back-off at the deadline
    is not sent, and its row stays unasked for the rerun."""
    server = make_server(plan=lambda n, body: "500")
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(3))
    done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
                   "--out", str(tmp_path / "run"), "--no-progress", "--deadline", "3", timeout=25)
    assert done.returncode == 3, done.stderr
    assert "stopped early: --deadline 3 s reached" in done.stderr
    records = read_jsonl(tmp_path / "run" / "samples_sage.jsonl")
    assert [(r["status"], r["error"]) for r in records] == [("unasked", "the run stopped at --deadline first")] * 3
    assert len(server.requests) < 3 * 6  # 1 + 5 retries a row, had the retries gone on
