"""Cost and time limits: --price-in/--price-out/--price-file, --max-cost, --deadline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import correction_of, read_jsonl, run_cli, sage_rows, write_jsonl

from merabench.budget import Budget, Prices, parse_duration, prices_from_file, resolve_prices
from merabench.errors import ConfigError


def test_prices_cost_and_the_limit() -> None:
    prices = Prices(0.15, 0.6)
    assert prices.cost(1_000_000, 0) == pytest.approx(0.15)
    assert prices.cost(2000, 1000) == pytest.approx(0.0003 + 0.0006)
    now = [0.0]
    budget = Budget(prices, max_cost=0.001, clock=lambda: now[0])
    budget.add(2000, 1000)
    assert not budget.should_stop()
    budget.add(2000, 1000)
    assert budget.should_stop() and "--max-cost" in (budget.stopped_by or "")


def test_deadline_by_the_clock() -> None:
    now = [100.0]
    budget = Budget(deadline_s=60, clock=lambda: now[0])
    now[0] = 159.0
    assert not budget.should_stop()
    now[0] = 160.0
    assert budget.should_stop() and "--deadline 60 s" in (budget.stopped_by or "")
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
    assert "stopped early: --max-cost 0.01 reached" in message and "rerun the same command" in message
    answered = [s for s in read_jsonl(tmp_path / "run" / "samples_sage.jsonl") if s["status"] == "ok"]
    assert 5 <= len(answered) <= 7  # five reach the limit; at most the one other in flight finishes
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert results["settings"]["stopped_by"].startswith("--max-cost 0.01")
    assert results["tasks"]["sage"]["tokens"]["cost"] == pytest.approx(0.002 * len(answered))
    assert any("stopped early" in note for note in results["notes"])

    done = run_cli(*run)  # the same run, no limit: only the rest is asked
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(server.requests) == 30
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    assert results["tasks"]["sage"]["metrics"]["errant_f1"] == 1.0
    assert results["cost"] == pytest.approx(0.06) and "stopped_by" not in results["settings"]
    assert "cost" in done.stdout  # the summary table's column


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
    done = run_cli(*run)
    assert done.returncode == 0
    assert len(server.requests) == 40
