"""Batch engines: --export-requests / --import-responses (and the export-requests and
import-responses commands) round-trip to the same run as a live endpoint gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import mixed_answers, read_jsonl, run_cli

from merabench.rows.row import read_bundled
from merabench.tasks import TASKS

ANSWERS = mixed_answers()


def reply_to(body: dict) -> str:
    return ANSWERS.get(body["messages"][-1]["content"], "?")


def batch_output(requests: list[dict], *, shape: str) -> list[dict]:
    """What a batch job writes for these requests: the OpenAI Batch output, or plain text lines."""
    lines = []
    for n, request in enumerate(requests):
        text = reply_to(request["body"])
        if shape == "plain":
            lines.append({"custom_id": request["custom_id"], "text": text})
            continue
        body = {"id": f"chatcmpl-{n}", "object": "chat.completion", "model": request["body"]["model"],
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}
        lines.append({"id": f"batch_req_{n}", "custom_id": request["custom_id"],
                      "response": {"status_code": 200, "request_id": f"req-{n}", "body": body}, "error": None})
    return lines


def write_lines(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def per_row(folder: Path, task: str) -> dict[int, dict]:
    return {s["id"]: s.get("metrics") for s in read_jsonl(folder / f"samples_{task}.jsonl")}


def test_export_then_import_equals_a_direct_run(tmp_path: Path, make_server) -> None:
    server = make_server(reply=reply_to)
    direct = tmp_path / "direct"
    assert run_cli("run", "--model", "openai:m", "--base-url", server.url, "--out", str(direct), "--no-progress",
                   "--no-cache", "--preset", "mera").returncode in (0, 1)

    requests_file = tmp_path / "requests.jsonl"
    done = run_cli("export-requests", "--model", "openai:m", "--preset", "mera", "--out", str(requests_file))
    assert done.returncode == 0, done.stderr + done.stdout
    requests = read_jsonl(requests_file)
    sent = {json.dumps(b["messages"], ensure_ascii=False) for b in server.requests}
    assert len(requests) == len(server.requests) == sum(1 for _ in sent)
    for request in requests:  # the bodies merabench sends, in the Batch API's envelope
        assert request["method"] == "POST" and request["url"] == "/v1/chat/completions"
        assert request["body"]["max_tokens"] == 256 and request["body"]["stop"] == ["\n\n"]
        assert json.dumps(request["body"]["messages"], ensure_ascii=False) in sent

    for shape in ("openai", "plain"):
        imported = tmp_path / f"imported_{shape}"
        output = write_lines(tmp_path / f"output_{shape}.jsonl", batch_output(requests, shape=shape))
        done = run_cli("import-responses", str(output), "--model", "openai:m", "--preset", "mera",
                       "--out", str(imported), "--no-progress")
        assert done.returncode in (0, 1), done.stderr + done.stdout
        first = json.loads((direct / "results.json").read_text(encoding="utf-8"))
        second = json.loads((imported / "results.json").read_text(encoding="utf-8"))
        assert (imported / "report.html").exists()
        for task in TASKS:
            assert second["tasks"][task]["metrics"] == first["tasks"][task]["metrics"], (shape, task)
            assert per_row(imported, task) == per_row(direct, task)


def test_a_partial_import_leaves_the_rest_to_ask(tmp_path: Path, make_server) -> None:
    requests_file = tmp_path / "requests.jsonl"
    assert run_cli("export-requests", "--model", "openai:m", "--tasks", "sage,gorillahard",
                   "--out", str(requests_file)).returncode == 0
    requests = read_jsonl(requests_file)
    half, rest = requests[::2], requests[1::2]
    run = tmp_path / "run"
    done = run_cli("import-responses", str(write_lines(tmp_path / "half.jsonl", batch_output(half, shape="plain"))),
                   "--model", "openai:m", "--tasks", "sage,gorillahard", "--out", str(run), "--no-progress")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not in the imported responses" in done.stdout + done.stderr

    again = tmp_path / "again.jsonl"  # the custom ids of what is left, exactly
    assert run_cli("export-requests", "--model", "openai:m", "--tasks", "sage,gorillahard", "--out", str(again),
                   "--run", str(run)).returncode == 0
    assert [r["custom_id"] for r in read_jsonl(again)] == [r["custom_id"] for r in rest]

    server = make_server(reply=reply_to)  # a live endpoint finishes the run: only the rest is asked
    done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage,gorillahard",
                   "--out", str(run), "--no-progress", "--no-cache")
    assert done.returncode in (0, 1), done.stderr
    assert len(server.requests) == len(rest)
    samples = read_jsonl(run / "samples_sage.jsonl")
    assert all(s["status"] == "ok" for s in samples)


def test_batch_failures_and_stale_answers_are_errors_not_scores(tmp_path: Path) -> None:
    requests_file = tmp_path / "requests.jsonl"
    assert run_cli("export-requests", "--model", "openai:m", "--tasks", "sage", "--out",
                   str(requests_file)).returncode == 0
    requests = read_jsonl(requests_file)
    # the Batch API's input line: custom_id, method, url, body (a chat completions request)
    assert all(set(r) == {"custom_id", "method", "url", "body"} and r["method"] == "POST"
               and r["url"] == "/v1/chat/completions" and r["body"]["messages"] for r in requests)
    lines = batch_output(requests, shape="openai")
    lines[0] = {"id": "b0", "custom_id": requests[0]["custom_id"], "error": None,
                "response": {"status_code": 429, "body": {"error": {"message": "Rate limit reached"}}}}
    # a line of the error file: no response, an error object with a code and a message
    lines[2] = {"id": "b2", "custom_id": requests[2]["custom_id"], "response": None,
                "error": {"code": "batch_expired", "message": "not executed before the completion window expired"}}
    task, row_id, _, tag = requests[1]["custom_id"].split("/")
    lines[1]["custom_id"] = f"{task}/{row_id}/0000000000000000/{tag}"  # answers an older prompt
    output = write_lines(tmp_path / "output.jsonl", lines)
    run = tmp_path / "run"
    done = run_cli("import-responses", str(output), "--model", "openai:m", "--tasks", "sage", "--out", str(run),
                   "--no-progress")
    assert done.returncode == 0, done.stderr
    samples = {s["id"]: s for s in read_jsonl(run / "samples_sage.jsonl")}
    first, second = int(requests[0]["custom_id"].split("/")[1]), int(row_id)
    assert samples[first]["status"] == "error" and "status 429: Rate limit reached" in samples[first]["error"]
    assert samples[second]["status"] == "error" and "another prompt" in samples[second]["error"]
    third = int(requests[2]["custom_id"].split("/")[1])
    assert samples[third]["status"] == "error" and "completion window expired" in samples[third]["error"]
    assert all(s["status"] == "ok" for i, s in samples.items() if i not in (first, second, third))


def test_batch_mistakes_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"custom_id": "sage/1/abc", "text": "x"}\n{"text": "no id"}\n', encoding="utf-8")
    cases = [
        (["import-responses", str(bad), "--model", "openai:m", "--tasks", "sage", "--out", str(tmp_path / "o")],
         "bad.jsonl:1, field 'custom_id'"),
        (["import-responses", str(tmp_path / "missing.jsonl"), "--model", "openai:m"], "no such file"),
        (["export-requests", "--model", "reference", "--out", str(tmp_path / "r.jsonl")], "openai:<model name>"),
        (["export-requests", "--model", "openai:m"], "needs --out FILE"),
        (["import-responses"], "needs the batch output file"),
    ]
    for args, fragment in cases:
        done = run_cli(*args)
        message = (done.stdout + done.stderr).strip()
        assert done.returncode == 2, (args, message)
        assert fragment in message and "Traceback" not in message and len(message.splitlines()) == 1, message


def _printed_import(stderr: str, output: Path) -> list[str]:
    """The import command an export printed, OUTPUT.jsonl replaced by the batch's output file."""
    import shlex

    line = " ".join(stderr.split())  # rich may wrap the message
    words = shlex.split(line.split("with: ", 1)[1])
    assert words[:3] == ["merabench", "import-responses", "OUTPUT.jsonl"], words
    return ["import-responses", str(output), *words[3:]]


def test_the_printed_import_command_runs_and_answers_the_run(tmp_path: Path) -> None:
    for form, export in (("command", ["export-requests", "--model", "openai:m", "--tasks", "sage", "--preset", "mera",
                                      "--out", str(tmp_path / "a.jsonl"), "--run", str(tmp_path / "a")]),
                         ("flag", ["run", "--model", "openai:m", "--tasks", "sage", "--limit", "4",
                                   "--export-requests", str(tmp_path / "b.jsonl"), "--out", str(tmp_path / "b")])):
        done = run_cli(*export)
        assert done.returncode == 0, done.stderr
        assert "--import-responses OUTPUT" not in done.stderr
        requests = read_jsonl(Path(export[export.index("--out" if form == "command" else "--export-requests") + 1]))
        output = write_lines(tmp_path / f"{form}_out.jsonl", batch_output(requests, shape="plain"))
        imported = run_cli(*_printed_import(done.stderr, output), "--no-progress")
        assert imported.returncode == 0, imported.stderr
        run = tmp_path / ("a" if form == "command" else "b")
        samples = read_jsonl(run / "samples_sage.jsonl")
        assert len(samples) == len(requests) and all(s["status"] == "ok" for s in samples)


def test_an_export_from_a_run_folder_prints_the_runs_own_options(tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = ["export-requests", "--model", "openai:m", "--tasks", "sage", "--limit", "6", "--max-tokens", "300",
             "--system-prompt", "Отвечай кратко.", "--out", str(tmp_path / "r1.jsonl"), "--run", str(run)]
    done = run_cli(*first)
    assert done.returncode == 0, done.stderr
    requests = read_jsonl(tmp_path / "r1.jsonl")
    half = write_lines(tmp_path / "half.jsonl", batch_output(requests[:3], shape="plain"))
    assert run_cli(*_printed_import(done.stderr, half), "--no-progress").returncode == 0
    again = run_cli("export-requests", "--out", str(tmp_path / "r2.jsonl"), "--run", str(run))  # all from the run
    assert again.returncode == 0, again.stderr
    rest = write_lines(tmp_path / "rest.jsonl", batch_output(read_jsonl(tmp_path / "r2.jsonl"), shape="plain"))
    finished = run_cli(*_printed_import(again.stderr, rest), "--no-progress")
    assert finished.returncode == 0, finished.stderr
    samples = {s["id"]: s for s in read_jsonl(run / "samples_sage.jsonl")}
    assert len(samples) == 6 and all(s["status"] == "ok" for s in samples.values())


def test_an_export_from_a_folder_covers_the_tasks_a_partial_rerun_kept(tmp_path: Path, make_server) -> None:
    """`run --tasks russianregions` into a folder that also holds sage keeps sage in results.json
    (`kept`), as the report and the submission count it: `export-requests --run DIR` exports what
    sage still lacks too, from sage's own data (it exported nothing), and its import finishes both."""
    from helpers import sage_rows, write_jsonl

    data = write_jsonl(tmp_path / "sage.jsonl", sage_rows(5))
    run = tmp_path / "run"
    refusing = make_server(plan=lambda n, body: "400")
    first = run_cli("run", "--model", "openai:m", "--base-url", refusing.url, "--tasks", "sage", "--data", str(data),
                    "--limit", "4", "--out", str(run), "--no-progress", "--no-cache")
    assert first.returncode == 1, first.stderr  # every sage request failed: 4 rows to ask again
    server = make_server(reply=reply_to)
    second = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "russianregions",
                     "--limit", "4", "--out", str(run), "--no-progress", "--no-cache")
    assert second.returncode == 0, second.stderr
    assert "sage" in json.loads((run / "results.json").read_text(encoding="utf-8"))["kept"]

    done = run_cli("export-requests", "--out", str(tmp_path / "r.jsonl"), "--run", str(run))
    assert done.returncode == 0, done.stderr
    requests = read_jsonl(tmp_path / "r.jsonl")
    asked = {body["messages"][-1]["content"] for body in refusing.requests}  # the server logs bodies
    assert len(requests) == 4 and {r["body"]["messages"][-1]["content"] for r in requests} == asked
    finished = run_cli(*_printed_import(done.stderr, write_lines(tmp_path / "o.jsonl", batch_output(
        requests, shape="plain"))), "--no-progress")
    assert finished.returncode == 0, finished.stderr
    for task in ("sage", "russianregions"):
        samples = read_jsonl(run / f"samples_{task}.jsonl")
        assert len({s["id"] for s in samples}) == 4 and all(s["status"] == "ok" for s in samples[-4:]), task


def test_an_export_of_tasks_run_with_different_limits_is_refused_naming_them(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert run_cli("run", "--model", "reference", "--tasks", "sage", "--limit", "3", "--out", str(run),
                   "--no-progress").returncode == 0
    assert run_cli("run", "--model", "reference", "--tasks", "russianregions", "--limit", "5", "--out", str(run),
                   "--no-progress").returncode == 0
    done = run_cli("export-requests", "--model", "openai:m", "--out", str(tmp_path / "r.jsonl"), "--run", str(run))
    assert done.returncode == 2
    assert f"the tasks in {run} were run with different --limit (sage 3, russianregions 5)" in " ".join(
        done.stderr.split())


def test_an_export_from_a_folder_without_a_readable_results_json(tmp_path: Path, make_server) -> None:
    """`export-requests --run DIR`: a run killed before results.json exports its samples files'
    tasks; a results.json that is not JSON, or not UTF-8, is refused naming it (not taken for none);
    one behind a UTF-8 byte order mark reads as it is."""
    run = tmp_path / "run"
    server = make_server(reply=reply_to)  # the folder is openai:m's: its export is the same model's
    assert run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--limit", "3",
                   "--out", str(run), "--no-progress", "--no-cache").returncode == 0
    results = run / "results.json"
    written = results.read_bytes()

    results.write_bytes(b"\xef\xbb\xbf" + written)
    marked = run_cli("export-requests", "--model", "openai:m", "--out", str(tmp_path / "bom.jsonl"), "--run", str(run))
    assert marked.returncode == 0, marked.stderr
    assert "--limit 3" in " ".join(marked.stderr.split()) and read_jsonl(tmp_path / "bom.jsonl") == []

    for text, said in ((b'{"tasks": ', "not valid JSON (Expecting value at line 1, column 11)"),
                       (b"\xff\xfe", "not UTF-8 text (byte 0xff at offset 0)")):
        results.write_bytes(text)
        refused = run_cli("export-requests", "--model", "openai:m", "--out", str(tmp_path / "r.jsonl"), "--run", str(run))
        assert refused.returncode == 2
        assert f"error: {results}: {said}" in " ".join(refused.stderr.split())
        assert not (tmp_path / "r.jsonl").exists()

    results.unlink()
    done = run_cli("export-requests", "--model", "openai:m", "--out", str(tmp_path / "r.jsonl"), "--run", str(run))
    assert done.returncode == 0, done.stderr
    assert "--tasks sage" in " ".join(done.stderr.split())
    assert len(read_jsonl(tmp_path / "r.jsonl")) == len(read_bundled("sage")["test"]) - 3  # no --limit recorded


@pytest.mark.parametrize("command", [
    pytest.param(["export-requests", "--out", "{tmp}/requests.jsonl", "--tasks", "sage"], id="export-requests"),
    pytest.param(["import-responses", "{tmp}/output.jsonl", "--out", "{tmp}/run", "--tasks", "sage"],
                 id="import-responses"),
])
def test_the_batch_commands_ask_for_the_model_rather_than_defaulting_to_a_baseline(tmp_path: Path,
                                                                                   command: list[str]) -> None:
    (tmp_path / "output.jsonl").write_text("", encoding="utf-8")
    done = run_cli(*(a.format(tmp=tmp_path) for a in command))
    assert done.returncode == 2
    assert done.stderr.strip() == (f"error: {command[0]} needs --model openai:<model name>, the name the batch "
                                   "engine serves")
    assert not (tmp_path / "requests.jsonl").exists() and not (tmp_path / "run").exists()
    assert "(required;" in run_cli(command[0], "--help").stdout
