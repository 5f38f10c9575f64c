"""Hostile cases of round IV on runs, servers and budgets (w09, w49, o24, c47, o27 of
shared/cases/hostile4.md), each against a real server on 127.0.0.1 that misbehaves on purpose:
tool-call arguments nested a thousand deep are kept as text and scored, probes of a server read at
most the chat replies' cap, an export for another model than its folder's is refused, answers
without usable token counts are priced by an estimate that --max-cost sees, and a read-only --out
is one line before any warning."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from fakeserver import FakeServer
from helpers import cli_command, correction_of, read_jsonl, run_cli, sage_rows, write_jsonl
from toolmodel import ToolModel

from merabench.rows.row import read_bundled
from merabench.tasks.gorillahard.native.prompt import native_prompt

GORILLA = read_bundled("gorillahard")["test"]


def run_native(url: str, out: Path, *more: str, command: list[str] | None = None) -> subprocess.CompletedProcess:
    """`R` of the cases: a native tool-calling run of GorillaHard."""
    args = ["run", "--model", "openai:m", "--base-url", url, "--tasks", "gorillahard", "--tool-mode", "native",
            "--no-progress", "--out", str(out), *more]
    if command is None:
        return run_cli(*args)
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=300)


def deep_object(levels: int) -> str:
    return '{"a":' * levels + "1" + "}" * levels


# -- w09: arguments nested 1,000 deep ------------------------------------------------------------

@dataclass
class DeepArguments(FakeServer):
    """Answers as ToolModel does, but the first tool call of row `row` carries `arguments` nested
    `levels` deep: as a JSON object (`as_text` False) or as the API's string holding one. The body
    is written by hand: json.dumps itself cannot write such an object."""

    levels: int = 1000
    as_text: bool = False
    row: int = 0

    def __post_init__(self) -> None:
        self.model = ToolModel(GORILLA)
        self.deep_prompt = native_prompt(GORILLA[self.row])

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        answer = self.model.reply(body)
        messages = body["messages"]
        first_turn = not any(m["role"] == "assistant" for m in messages)
        deep = first_turn and answer.get("tool_calls") and messages[-1]["content"] == self.deep_prompt
        if deep:
            answer["tool_calls"][0]["function"]["arguments"] = "@DEEP@"
        doc = {"id": "x", "object": "chat.completion", "model": "m", "usage": {"prompt_tokens": 11, "completion_tokens": 7},
               "choices": [{"index": 0, "finish_reason": "tool_calls" if answer.get("tool_calls") else "stop",
                            "message": {"role": "assistant", **answer}}]}
        text = json.dumps(doc, ensure_ascii=False)
        if deep:
            arguments = deep_object(self.levels)
            text = text.replace('"@DEEP@"', json.dumps(arguments) if self.as_text else arguments)
        return web.Response(body=text.encode(), content_type="application/json")


@pytest.mark.parametrize(("as_text", "levels"), [(False, 1000), (True, 900)],
                         ids=["an object 1,000 deep", "a string holding one 900 deep"])
def test_w09_arguments_nested_1000_deep_are_scored_as_not_an_object_and_every_row_is_saved(
        tmp_path: Path, as_text: bool, levels: int) -> None:
    """The case's object; and the API's string holding one just short of Python's recursion limit,
    which the json module parses (it was scored as arguments with a wrong key): both are kept as
    text past the 64-level bound, and score as arguments that are not an object."""
    single = next(r for r in GORILLA if "tool" in json.loads(r.outputs) and r.meta.get("n_turns", 1) == 1)
    with DeepArguments(levels=levels, as_text=as_text, row=GORILLA.index(single)) as server:
        done = run_native(server.url, tmp_path / "out")
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    records = {r["id"]: r for r in read_jsonl(tmp_path / "out" / "samples_gorillahard.jsonl")}
    assert len(records) == len(GORILLA) and all(r["status"] == "ok" for r in records.values())
    deep = records[single.id]
    assert "args_not_object" in deep["details"]["reasons"], deep["details"]
    assert deep["metrics"]["sample_pass_rate"] == 0.0
    kept = deep["tool_exchange"]["replies"][0]["tool_calls"][0]["arguments"]
    assert kept == deep_object(levels)  # the model's arguments, kept as their text
    others = [r for r in records.values() if r["id"] != single.id]
    assert all(r["metrics"]["sample_pass_rate"] == 1.0 for r in others)
    with FakeServer(reply=ToolModel(GORILLA).reply) as sane:  # the rerun resumes: nothing to ask
        again = run_native(sane.url, tmp_path / "out")
        assert again.returncode == 0 and sane.requests == [], again.stderr


def test_w09_a_batch_output_whose_tool_call_nests_300_deep_is_imported(tmp_path: Path) -> None:
    """The same value through import-responses: the body was read back from JSON and written out
    again for the reply parser, which orjson refuses past 255 levels (a traceback); now it is read
    as it is."""
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(3))
    exported = run_cli("export-requests", "--model", "openai:m", "--tasks", "sage", "--data", str(data),
                       "--out", str(tmp_path / "requests.jsonl"))
    assert exported.returncode == 0, exported.stderr
    lines = []
    for request in read_jsonl(tmp_path / "requests.jsonl"):
        message = {"role": "assistant", "content": correction_of(request["body"]["messages"][-1]["content"]),
                   "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "@DEEP@"}}]}
        body = {"choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                "usage": {"prompt_tokens": 9, "completion_tokens": 4}}
        line = json.dumps({"custom_id": request["custom_id"], "response": {"status_code": 200, "body": body}},
                          ensure_ascii=False)
        lines.append(line.replace('"@DEEP@"', deep_object(300)))
    (tmp_path / "output.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run_cli("import-responses", str(tmp_path / "output.jsonl"), "--model", "openai:m", "--tasks", "sage",
                   "--data", str(data), "--out", str(tmp_path / "run"), "--no-progress")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    records = read_jsonl(tmp_path / "run" / "samples_sage.jsonl")
    assert len(records) == 3 and all(r["status"] == "ok" and r["metrics"]["errant_f1"] == 1.0 for r in records)


# -- w49: a server's probes read past the cap ---------------------------------------------------

FLOOD_MB = 300
#: the most a run may take (its peak resident memory): the run's own needs (about 50 MB) and one capped body of
#: 64 MiB, with room to spare; a 300 MB body read whole took 940 MB
MOST_RSS_MB = 300
# the peak of this process's own memory (VmHWM): ru_maxrss is carried over a fork and exec, so a
# child of a pytest worker that grew to a gigabyte would report the worker's peak, not its own
MEASURED = """
import re, sys
from merabench.cli.main import main
sys.argv = ["merabench", *sys.argv[1:]]
try:
    code = main()
finally:
    with open("/proc/self/status") as status:
        peak = re.search(r"VmHWM:\\s+(\\d+) kB", status.read()).group(1)
    print(f"maxrss_kb {peak}", file=sys.stderr)
sys.exit(code)
"""


@dataclass
class Flooding(FakeServer):
    """A llama.cpp-like server whose answer on one probe path streams FLOOD_MB (chunked, no
    Content-Length): valid JSON, or Prometheus text, had it been read to its end."""

    flood: str = "/apply-template"
    sent: int = 0

    async def _flooded(self, request: web.Request) -> web.StreamResponse:
        head, tail = {"/apply-template": (b'{"prompt": "<|im_start|>user\\n?', b'"}'),
                      "/props": (b'{"total_slots": 4, "pad": "', b'"}'),
                      "/metrics": (b"# padding ", b"\nvllm:num_requests_running 0\nvllm:num_requests_waiting 0\n")}[
            self.flood]
        resp = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
        await resp.prepare(request)
        chunk = b"x" * (1 << 20)
        try:
            await resp.write(head)
            for _ in range(FLOOD_MB):
                await resp.write(chunk)
                self.sent += len(chunk)
            await resp.write(tail)
        except (ConnectionError, RuntimeError):  # the client stopped reading and closed
            pass
        return resp

    async def _apply_template(self, request: web.Request) -> web.StreamResponse:
        return await self._flooded(request) if self.flood == "/apply-template" else await super()._apply_template(request)

    async def _props(self, request: web.Request) -> web.StreamResponse:
        return await self._flooded(request) if self.flood == "/props" else await super()._props(request)

    async def _metrics(self, request: web.Request) -> web.StreamResponse:
        return await self._flooded(request) if self.flood == "/metrics" else await super()._metrics(request)


@pytest.mark.parametrize("path", ["/apply-template", "/props", "/metrics"])
def test_w49_a_probe_streaming_300_mb_is_read_no_further_than_the_cap(tmp_path: Path, path: str) -> None:
    rows = GORILLA[:3]
    with Flooding(flood=path, reply=ToolModel(GORILLA).reply, template_drops_tools=False) as server:
        done = run_native(server.url, tmp_path / "out", "--limit", str(len(rows)), "--no-cache",
                          command=[sys.executable, "-c", MEASURED])
        sent = server.sent
    peak_mb = int(done.stderr.rsplit("maxrss_kb ", 1)[1].split()[0]) / 1024
    assert peak_mb < MOST_RSS_MB, f"peak {peak_mb:.0f} MB with a {FLOOD_MB} MB {path} body"
    assert done.returncode == 0, done.stderr  # the probe said nothing usable: the run goes on
    assert sent < FLOOD_MB << 20, "the whole body was read"
    assert len(read_jsonl(tmp_path / "out" / "samples_gorillahard.jsonl")) == len(rows)


# -- o24: export-requests for another model than its run folder's --------------------------------

def test_o24_export_requests_for_another_model_than_the_folders_is_one_line_and_writes_nothing(
        tmp_path: Path, make_server) -> None:
    rows = write_jsonl(tmp_path / "rows.jsonl", sage_rows(12))
    server = make_server(reply=lambda body: correction_of(body["messages"][-1]["content"]),
                         plan=lambda n, body: "400" if body["messages"][-1]["content"].endswith(("(3)", "(7)")) else "ok")
    made = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data", str(rows),
                   "--no-progress", "--out", str(tmp_path / "out"))
    assert made.returncode in (0, 1), made.stderr
    assert sum(r["status"] == "error" for r in read_jsonl(tmp_path / "out" / "samples_sage.jsonl")) == 2
    run_json = (tmp_path / "out" / "run.json").read_bytes()

    other = run_cli("export-requests", "--model", "openai:other", "--run", str(tmp_path / "out"),
                    "--out", str(tmp_path / "requests.jsonl"))
    assert other.returncode == 2, other.stderr
    lines = other.stderr.strip().splitlines()
    assert len(lines) == 1 and '--model "openai:m" in the folder, "openai:other" now' in lines[0], other.stderr
    assert "could not be imported into it" in lines[0]
    assert not (tmp_path / "requests.jsonl").exists() and other.stdout == ""
    assert (tmp_path / "out" / "run.json").read_bytes() == run_json

    own = run_cli("export-requests", "--run", str(tmp_path / "out"), "--out", str(tmp_path / "requests.jsonl"))
    assert own.returncode == 0, own.stderr
    assert len(read_jsonl(tmp_path / "requests.jsonl")) == 2  # the run's own model: its two failed rows


# -- o27: score into a read-only file system ------------------------------------------------------

def read_only_command(folder: Path, *command: str) -> list[str]:
    """`command` run with `folder` on a read-only bind mount (a user and mount namespace of its
    own: the kernel answers EROFS, as on a read-only file system, even to root)."""
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
    return ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh", str(folder), *command]


def test_o27_score_into_a_read_only_file_system_is_one_line_before_any_warning(tmp_path: Path) -> None:
    if shutil.which("unshare") is None or subprocess.run(read_only_command(tmp_path, "true")).returncode != 0:
        pytest.skip("no user and mount namespaces here to make a read-only file system")
    rows = read_bundled("russianregions")["test"]
    predictions = write_jsonl(tmp_path / "p.jsonl", [{"id": rows[0].id, "output": rows[0].outputs}])
    read_only = tmp_path / "ro"
    read_only.mkdir()
    (read_only / "kept").mkdir()
    for out, said in ((read_only / "DIR", f"--out {read_only / 'DIR'}: cannot create the folder ({read_only} is not "
                                          "writable: Read-only file system)"),
                      (read_only / "kept", f"--out {read_only / 'kept'}: the folder is not writable (Read-only file "
                                           "system)")):
        done = subprocess.run(read_only_command(read_only, *cli_command(
            "score", "russianregions", "--predictions", str(predictions), "--out", str(out))),
            capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip().splitlines() == [f"error: {said}"], done.stderr
    assert sorted(p.name for p in read_only.iterdir()) == ["kept"] and not any((read_only / "kept").iterdir())


# -- c47: a budget against a server whose token counts cannot be used -----------------------------

USAGES = {"negative": {"prompt_tokens": -10, "completion_tokens": -5}, "missing": None,
          "impossible": {"prompt_tokens": 10**15, "completion_tokens": 2.5}}
PRICED = ("--price-in", "1000", "--price-out", "1000", "--max-cost", "0.001", "--concurrency", "2")


def sage_run(url: str, tmp_path: Path, *more: str) -> subprocess.CompletedProcess:
    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(30))
    return run_cli("run", "--model", "openai:m", "--base-url", url, "--tasks", "sage", "--data", str(data),
                   "--no-progress", "--out", str(tmp_path / "out"), *more)


def with_usage(reply: Any, usage: Any) -> Any:
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        said = reply(body)
        return {**(said if isinstance(said, dict) else {"content": said}), "usage": usage}
    return answer


@pytest.mark.parametrize("usage", list(USAGES))
@pytest.mark.parametrize("task", ["sage", "gorillahard native"])
def test_c47_answers_without_usable_counts_are_priced_by_an_estimate_that_max_cost_stops_at(
        tmp_path: Path, usage: str, task: str) -> None:
    reply = (lambda body: correction_of(body["messages"][-1]["content"])) if task == "sage" else ToolModel(GORILLA).reply
    samples = tmp_path / "out" / f"samples_{task.split()[0]}.jsonl"
    with FakeServer(reply=with_usage(reply, USAGES[usage])) as server:
        done = (sage_run(server.url, tmp_path, *PRICED) if task == "sage"
                else run_native(server.url, tmp_path / "out", *PRICED))
        sent = list(server.requests)
        assert done.returncode == 3, done.stderr  # stopped at the limit, not run to the end for "free"
        assert "--max-cost 0.001 reached" in done.stderr and "priced from the bytes sent and received" in done.stderr
        again = sage_run(server.url, tmp_path, *PRICED) if task == "sage" else run_native(
            server.url, tmp_path / "out", *PRICED)
        assert again.returncode == 3 and len(server.requests) == len(sent), again.stderr  # the kept answers count

    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    tokens = results["tasks"][task.split()[0]]["tokens"]
    answered = [s for s in read_jsonl(samples) if s["status"] == "ok"]
    assert answered and len(sent) < 10
    assert results["cost"] == tokens["cost"] == results["cost_estimated"] == tokens["cost_estimated"] > 0.001
    assert tokens["estimated"] == tokens["without_usage"] == len(answered)
    assert results["stopped"]["by"] == "--max-cost" and results["stopped"]["spent"] == pytest.approx(results["cost"])
    sent_bytes = sum(len(m["content"].encode()) for b in sent for m in b["messages"] if isinstance(m.get("content"), str))
    estimated = [s["estimated_tokens"] for s in answered]
    assert sum(e["prompt"] for e in estimated) >= sent_bytes  # errs high: a token covers at least one byte
    assert all(e["completion"] >= 1 for e in estimated)
    assert results["cost"] == pytest.approx(sum(e["prompt"] + e["completion"] for e in estimated) * 1000 / 1e6, abs=1e-6)
