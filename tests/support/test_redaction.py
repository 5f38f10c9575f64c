"""The one redaction: no secret of a run reaches a file or the terminal, wherever it travelled
(a server's 401 repeating the Authorization header and the query string, an answer echoing the
key, URL credentials, the judge's key), and a placeholder key does not cut words out of answers."""

from __future__ import annotations

import base64
import sqlite3
from pathlib import Path

from helpers import read_jsonl, run_cli, sage_rows, write_jsonl

from merabench.support.redaction import (
    StreamRedactor,
    redact,
    redact_url,
    register_argv,
    register_secret,
    register_url,
)

KEY = "sk-live-0123456789abcdef"
QUERY_SECRET = "qs-4242-hunter"
PASSWORD = "pa55word-xyz"


def everything_written(folder: Path) -> str:
    """Every byte under a folder (sqlite included), as text."""
    return "".join(p.read_bytes().decode("utf-8", "replace") for p in sorted(folder.rglob("*")) if p.is_file())


def test_forms_of_a_secret_are_masked() -> None:
    register_secret(KEY)
    register_url(f"http://u:{PASSWORD}@h:1/v1?api_key={QUERY_SECRET}&mode=x")
    basic = base64.b64encode(f"u:{PASSWORD}".encode()).decode()
    text = (f"401: Bearer {KEY}; json \\u0073k-live-0123456789abcdef; {KEY.replace('-', '%2D')}; "
            f"Basic {basic}; http://u:{PASSWORD}@h:1/v1?api_key={QUERY_SECRET}")
    masked = redact(text)
    for secret in (KEY, QUERY_SECRET, PASSWORD, basic):
        assert secret not in masked, masked
    assert "Bearer ***" in masked and "Basic ***" in masked and "api_key=***" in masked
    assert redact_url(f"http://u:{PASSWORD}@h:1/v1?api_key={QUERY_SECRET}&mode=x") == \
        "http://***@h:1/v1?api_key=***&mode=x"
    # a placeholder key is masked only where it travels as a key, never in the words of an answer
    register_secret("EMPTY")
    assert redact("Bearer EMPTY: the list is EMPTY") == "Bearer ***: the list is EMPTY"
    register_secret("123456")  # nor digits in the numbers of a JSON line
    assert redact('{"latency_s": 0.123456, "auth": "Bearer 123456"}') == '{"latency_s": 0.123456, "auth": "Bearer ***"}'


def test_credentials_given_to_a_served_engine_on_its_command_line_are_masked() -> None:
    """`--serve-args "--api-key X"`: the served argv is written to results.json and printed."""
    register_argv(["--api-key", "engine-key-778899aabb", "--hf-token=hf_0011223344556677", "--port", "8000",
                   "--tensor-parallel-size", "2"])
    masked = redact("vllm serve m --api-key engine-key-778899aabb --hf-token=hf_0011223344556677 --port 8000")
    assert "engine-key-778899aabb" not in masked and "hf_0011223344556677" not in masked
    assert masked.endswith("--port 8000") and "--tensor-parallel-size" not in masked


def test_a_secret_holding_an_equals_sign_or_at_is_masked_whole() -> None:
    register_secret("tok=ABCDEF1234567890")
    register_secret("svc@K3y-99887766")
    assert redact("key tok=ABCDEF1234567890 and svc@K3y-99887766") == "key *** and ***"


def test_a_secret_split_across_pieces_is_masked() -> None:
    register_secret(KEY)
    redactor = StreamRedactor()
    out = "".join(redactor.feed(piece) for piece in ("first line\nkey ", KEY[:7], KEY[7:], " end\n")) + \
        redactor.finish()
    assert out == "first line\nkey *** end\n"


def test_a_server_repeating_the_key_leaks_it_nowhere(tmp_path: Path, make_server) -> None:
    bad = make_server(plan=lambda n, body: "401")
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(3))
    run = tmp_path / "run"
    done = run_cli("run", "--model", "openai:m", "--base-url", f"{bad.url}?api_key={QUERY_SECRET}", "--tasks", "sage",
                   "--data", str(data), "--out", str(run), "--no-progress", "--max-retries", "0",
                   env={"OPENAI_API_KEY": KEY})
    assert done.returncode == 1, done.stdout + done.stderr  # every request failed
    assert bad.headers[0]["Authorization"] == f"Bearer {KEY}"  # the key was used ...
    errors = [s["error"] for s in read_jsonl(run / "samples_sage.jsonl")]
    assert all("invalid credentials: Bearer ***" in e and "api_key=***" in e for e in errors), errors
    terminal = done.stdout + done.stderr
    written = everything_written(run)
    for secret in (KEY, QUERY_SECRET):
        assert secret not in written and secret not in terminal  # ... and written nowhere
    assert "report.html" in {p.name for p in run.iterdir()} and "results.json" in {p.name for p in run.iterdir()}


def test_an_answer_echoing_the_key_is_masked_in_samples_cache_logs_and_exports(tmp_path: Path, make_server) -> None:
    server = make_server(reply=lambda body: f"your key is {KEY}, thanks")
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(3))
    run, cache = tmp_path / "run", tmp_path / "cache.sqlite"
    done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
                   "--out", str(run), "--no-progress", "--api-key", KEY, "--cache-path", str(cache))
    assert done.returncode == 0, done.stdout + done.stderr
    assert [s["output"] for s in read_jsonl(run / "samples_sage.jsonl")] == ["your key is ***, thanks"] * 3
    done_export = run_cli("export", "lmeval", str(run), "--out", str(tmp_path / "lmeval"))
    assert done_export.returncode == 0, done_export.stderr
    stored = [row[0] for row in sqlite3.connect(cache).execute("SELECT completion FROM responses")]
    assert len(stored) == 3 and not any(KEY in blob for blob in stored)
    for folder in (run, tmp_path / "lmeval"):
        assert KEY not in everything_written(folder)
    assert KEY not in done.stdout + done.stderr


def test_url_credentials_and_the_judge_key_are_masked(tmp_path: Path, make_server) -> None:
    bad = make_server(plan=lambda n, body: "401")
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(2))
    run = tmp_path / "run"
    url = bad.url.replace("http://", f"http://alice:{PASSWORD}@")
    done = run_cli("run", "--model", "openai:m", "--base-url", url, "--tasks", "sage", "--data", str(data),
                   "--out", str(run), "--no-progress", "--max-retries", "0")
    assert done.returncode == 1
    assert bad.headers[0]["Authorization"].startswith("Basic ")
    basic = bad.headers[0]["Authorization"].split()[1]
    written, terminal = everything_written(run), done.stdout + done.stderr
    for secret in (PASSWORD, basic):
        assert secret not in written and secret not in terminal
    assert "***@127.0.0.1" in written


def test_the_judge_key_from_its_environment_variable_is_masked(tmp_path: Path, make_server) -> None:
    from merabench.rows.row import read_bundled

    judge_key = "jk-judge-secret-7777"
    bad_judge = make_server(plan=lambda n, body: "401")
    rows = read_bundled("russianregions")["test"]
    preds = write_jsonl(tmp_path / "preds.jsonl", [{"id": r.id, "output": f"Ответ: {r.outputs}"} for r in rows])
    done = run_cli("score", "russianregions", "--predictions", str(preds), "--out", str(tmp_path / "s"),
                   "--judge-model", "openai:judge", "--judge-base-url", bad_judge.url, "--no-cache",
                   env={"LM_EVAL_JUDGE_API_KEY": judge_key})
    assert done.returncode == 1, done.stdout + done.stderr  # the judge answered no call: its metrics are missing
    assert "judge metrics missing: russianregions" in done.stderr and "invalid credentials: Bearer ***" in done.stderr
    assert bad_judge.headers[0]["Authorization"] == f"Bearer {judge_key}"
    written = everything_written(tmp_path / "s")
    assert "invalid credentials: Bearer ***" in written  # the judge's errors are in the samples
    assert judge_key not in written and judge_key not in done.stdout + done.stderr


def test_a_key_sent_in_the_request_body_is_masked_in_what_is_written(tmp_path: Path, make_server) -> None:
    body_key = "bk-body-secret-31337"
    server = make_server(reply=lambda body: f"got {body.get('api_key')}")
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(2))
    done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(data),
                   "--out", str(tmp_path / "run"), "--no-progress", "--no-cache",
                   "--extra-body", f'{{"api_key": "{body_key}", "max_tokens_hint": "keep-me-visible"}}')
    assert done.returncode == 0, done.stdout + done.stderr
    assert server.requests[0]["api_key"] == body_key  # sent as given ...
    written = everything_written(tmp_path / "run")
    assert body_key not in written and "got ***" in written  # ... written nowhere
    assert "keep-me-visible" in written  # a field not named like a credential stays


def test_a_quoted_key_in_a_serve_command_is_masked_where_the_command_is_printed(tmp_path: Path) -> None:
    """The command is split as the server gets it (shlex): `'KEY'` registers KEY, not `'KEY'`, so
    the argv printed unquoted ("could not start the server (...)") is masked too."""
    key = "sk-quoted-5566778899"
    done = run_cli("run", "--no-progress", "--tasks", "sage", "--model", "openai:m", "--out", str(tmp_path / "o"),
                   "--serve-cmd", f"no-such-server-xyz --api-key '{key}' --port {{port}}")
    assert done.returncode == 2, done.stderr
    assert "could not start the server" in done.stderr and key not in done.stderr
