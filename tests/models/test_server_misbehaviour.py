"""`merabench run` against servers that answer oddly: markup in their errors, credentials in
their URL, replies that think, run out of tokens or return no content."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import correction_of, read_jsonl, run_cli, sage_rows, write_jsonl


def run_args(server_url: str, data: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "--model", "openai:m", "--base-url", server_url, "--tasks", "sage", "--data", str(data),
            "--out", str(out), "--no-progress", "--retry-delay", "0.01", "--max-retries", "0", *extra]


def test_an_error_body_full_of_markup_is_printed_as_it_is(tmp_path: Path, make_server) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(4))
    server = make_server(plan=lambda n, body: "500" if "(1)" in body["messages"][-1]["content"] else "ok",
                         error_message="[/red] сломалось [test] [bold]")
    result = run_cli(*run_args(server.url, data, tmp_path / "r"))
    assert result.returncode == 0, result.stderr
    assert "[/red] сломалось [test] [bold]" in result.stderr and "Traceback" not in result.stderr


def test_credentials_in_the_url_are_used_and_never_written(tmp_path: Path, make_server) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(3))
    server = make_server()
    url = server.url.replace("http://", "http://reader:s3cr3t-pass@")
    cache = tmp_path / "cache.sqlite"
    result = run_cli(*run_args(url, data, tmp_path / "r", "--cache-path", str(cache)))
    assert result.returncode == 0, result.stderr
    assert server.headers[0]["Authorization"].startswith("Basic ")
    written = [p for p in (tmp_path / "r").rglob("*") if p.is_file()] + [cache]
    for path in written:
        assert b"s3cr3t-pass" not in path.read_bytes(), path
    assert "***@127.0.0.1" in json.dumps(json.loads((tmp_path / "r" / "results.json").read_text())["settings"])
    assert "s3cr3t" not in result.stderr + result.stdout


def test_another_server_under_the_same_model_name_is_asked_again_unless_told(tmp_path: Path, make_server) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(3))
    a, b = make_server(), make_server()
    assert run_cli(*run_args(a.url, data, tmp_path / "a")).returncode == 0
    assert run_cli(*run_args(b.url, data, tmp_path / "b")).returncode == 0
    assert len(b.requests) == 3  # the cache key holds the endpoint: a's answers are not b's
    assert run_cli(*run_args(a.url, data, tmp_path / "c", "--cache-scope", "model")).returncode == 0
    assert run_cli(*run_args(b.url, data, tmp_path / "d", "--cache-scope", "model")).returncode == 0
    assert len(b.requests) == 3  # by model name: shared across endpoints, as asked


def thinking_reply(body: dict) -> dict:
    prompt = body["messages"][-1]["content"]
    n = int(prompt.rsplit("(", 1)[1].rstrip(")"))
    if n % 3 == 0:  # the budget went on thinking: no content at all
        return {"content": None, "reasoning_content": "размышляю " * 50, "finish_reason": "length",
                "usage": {"prompt_tokens": 40, "completion_tokens": 256,
                          "completion_tokens_details": {"reasoning_tokens": 256}}}
    return {"content": correction_of(prompt), "reasoning_content": "проверяю орфографию",
            "usage": {"prompt_tokens": 40, "completion_tokens": 30, "completion_tokens_details": {"reasoning_tokens": 20}}}


def test_reasoning_is_kept_never_scored_and_truncation_is_counted(tmp_path: Path, make_server) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(6))
    server = make_server(reply=thinking_reply)
    result = run_cli(*run_args(server.url, data, tmp_path / "r"))
    assert result.returncode == 0, result.stderr
    samples = {r["id"]: r for r in read_jsonl(tmp_path / "r" / "samples_sage.jsonl")}
    cut = samples[0]
    assert cut["status"] == "ok" and cut["output"] == "" and cut["finish_reason"] == "length"
    assert cut["reasoning"].startswith("размышляю") and cut["reasoning_tokens"] == 256
    assert cut["metrics"]["errant_f1"] == 0.0  # an empty answer, scored as the leaderboard scores it
    assert samples[1]["reasoning"] == "проверяю орфографию" and samples[1]["metrics"]["errant_f1"] == 1.0
    tokens = json.loads((tmp_path / "r" / "results.json").read_text())["tasks"]["sage"]["tokens"]
    assert tokens["truncated"] == 2 and tokens["reasoning"] == 2 * 256 + 4 * 20
    assert tokens["mean_reasoning"] == round((2 * 256 + 4 * 20) / 6, 1)
    assert "2 answer(s) were cut by the token limit" in result.stderr


def test_think_blocks_in_the_content_are_kept_as_reasoning(tmp_path: Path, make_server) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(2))
    server = make_server(reply=lambda body: "<think>сначала проверю</think>\n" + correction_of(body["messages"][-1]["content"]))
    assert run_cli(*run_args(server.url, data, tmp_path / "r", "--strip-think")).returncode == 0
    record = read_jsonl(tmp_path / "r" / "samples_sage.jsonl")[0]
    assert record["reasoning"] == "сначала проверю" and record["output"].startswith("<think>")
    assert record["metrics"]["errant_f1"] == 1.0


def test_any_unicode_flows_through_run_cache_score_report_and_submission(tmp_path: Path, make_server) -> None:
    weird = "\ud800 нуль\x00 \udfff 😀 \u202e"
    server = make_server(reply=lambda body: correction_of(body["messages"][-1]["content"]) + weird)
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(4))
    out = tmp_path / "r"
    first = run_cli(*run_args(server.url, data, out, "--cache-path", str(tmp_path / "c.sqlite")))
    assert first.returncode == 0, first.stderr
    again = run_cli(*run_args(server.url, data, tmp_path / "r2", "--cache-path", str(tmp_path / "c.sqlite")))
    assert again.returncode == 0 and len(server.requests) == 4  # the second run came from the cache
    records = read_jsonl(out / "samples_sage.jsonl")
    assert all(r["output"].endswith(weird) for r in records)
    assert read_jsonl(tmp_path / "r2" / "samples_sage.jsonl")[0]["output"].endswith(weird)
    assert "\\ud800" in (out / "report.html").read_text(encoding="utf-8")
    rescored = run_cli("score", "sage", "--data", str(data), "--predictions", str(out / "samples_sage.jsonl"),
                       "--out", str(tmp_path / "s"))
    assert rescored.returncode == 0, rescored.stderr
    assert [r["metrics"] for r in read_jsonl(tmp_path / "s" / "samples_sage.jsonl")] == [r["metrics"] for r in records]
    packed = run_cli("submission", "--allow-unofficial", "--run", str(out), "--out", str(tmp_path / "sub.zip"), "--allow-incomplete")
    assert packed.returncode == 0, packed.stderr
    back = run_cli("score", "sage", "--data", str(data), "--predictions", str(tmp_path / "sub.zip"),
                   "--out", str(tmp_path / "s2"))
    assert back.returncode == 0, back.stderr
