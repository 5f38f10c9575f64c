"""An outside tester's cases on token counts and SAGE pair files (x27, x29, x10, x11, x14 of
/tmp/outside): counts too few for the bytes they count and usage a reply cannot hold are priced by
the estimate that --max-cost sees, a pair that is no text is one line, a pair file of one huge pair
is scored in memory a bounded multiple of the file, and a pipe or standard input is read as a pair
file. Real servers on 127.0.0.1 and real RUSpellRU pairs (tests/data/ruspellru)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from fakeserver import FakeServer
from helpers import RUSPELLRU, cli_command, read_jsonl, run_cli

from merabench.errors import BackendError
from merabench.models.openai_compat import parse_reply

PAIRS = RUSPELLRU
ANSWER = "Исправленный текст."


def pairs(n: int = 12) -> list[dict[str, str]]:
    sources = (PAIRS / "sources.txt").read_text(encoding="utf-8").splitlines()[:n]
    corrections = (PAIRS / "corrections.txt").read_text(encoding="utf-8").splitlines()[:n]
    return [{"source": s, "correction": c} for s, c in zip(sources, corrections, strict=True)]


def jsonl_text(items: list[Any]) -> str:
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)


def pair_file(tmp: Path, n: int = 30) -> Path:
    path = tmp / "pairs.jsonl"
    path.write_text(jsonl_text(pairs(n)), encoding="utf-8")
    return path


def run_sage(url: str, tmp: Path, *more: str) -> subprocess.CompletedProcess:
    """SAGE on 30 real pairs, rendered with the task's own prompts (over 400 bytes each)."""
    return run_cli("run", "--model", "openai:m", "--base-url", url, "--tasks", "sage", "--data",
                   f"sage=spellcheck:{pair_file(tmp)}", "--no-progress", "--no-cache", "--out", str(tmp / "out"), *more)


def answering(usage: Any):
    return lambda body: {"content": ANSWER, "usage": usage}


# -- x27: counts far fewer than the bytes they count ----------------------------------------------

@pytest.mark.parametrize("counts", [0, 1], ids=["0 and 0", "1 and 1"])
def test_x27_counts_too_few_for_the_bytes_are_estimated_and_max_cost_stops(tmp_path: Path, counts: int) -> None:
    with FakeServer(reply=answering({"prompt_tokens": counts, "completion_tokens": counts})) as server:
        done = run_sage(server.url, tmp_path, "--price-in", "10", "--price-out", "10", "--max-cost", "0.001",
                        "--concurrency", "2")
        sent = len(server.requests)
    assert done.returncode == 3, done.stderr[-3000:]
    assert "--max-cost 0.001 reached" in done.stderr and sent < 30
    answered = [s for s in read_jsonl(tmp_path / "out" / "samples_sage.jsonl") if s["status"] == "ok"]
    assert answered
    for sample in answered:
        assert sample["prompt_tokens"] is None, sample
        assert f"prompt_tokens {counts} is fewer than a prompt of" in sample["usage_note"]
        assert sample["estimated_tokens"]["prompt"] > 400  # a token a byte of the prompt, its template's 8 more
        if counts == 0:  # no answer of 36 bytes is 0 tokens; 1 token of 36 bytes can be
            assert sample["completion_tokens"] is None and "completion_tokens 0 is fewer" in sample["usage_note"]
            assert sample["estimated_tokens"]["completion"] == len(ANSWER.encode())
        else:
            assert sample["completion_tokens"] == sample["estimated_tokens"]["completion"] == 1
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert results["cost"] == results["cost_estimated"] > 0.001
    assert results["stopped"]["by"] == "--max-cost"
    assert "~" in done.stdout  # the table marks the estimate


# -- x29: usage a reply cannot hold --------------------------------------------------------------

@dataclass
class RawUsage(FakeServer):
    """Answers ANSWER with `usage` written as it is into the body: JSON's own, or not JSON."""

    usage: str = "null"

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(await request.json())
        message = json.dumps({"role": "assistant", "content": ANSWER}, ensure_ascii=False)
        body = (f'{{"id": "x", "object": "chat.completion", "model": "m", "choices": [{{"index": 0, '
                f'"finish_reason": "stop", "message": {message}}}], "usage": {self.usage}}}')
        return web.Response(body=body.encode(), content_type="application/json")


@pytest.mark.parametrize(("usage", "said"), [
    ('{"prompt_tokens": NaN, "completion_tokens": Infinity}',
     "prompt_tokens nan is not an integer; completion_tokens inf is not an integer"),
    ('{"prompt_tokens": -Infinity, "completion_tokens": 5}', "prompt_tokens -inf is not an integer"),
    ('"a"', "usage 'a' is not an object"),
], ids=["NaN and Infinity", "-Infinity", "a string"])
def test_x29_usage_that_is_not_json_or_not_an_object_keeps_the_answer(tmp_path: Path, usage: str,
                                                                       said: str) -> None:
    with RawUsage(usage=usage) as server:
        done = run_sage(server.url, tmp_path, "--price-in", "10", "--price-out", "10", "--limit", "4")
        sent = len(server.requests)
    assert done.returncode == 0, done.stderr[-3000:]
    assert sent == 4  # each answered at the first attempt, none retried as malformed
    samples = read_jsonl(tmp_path / "out" / "samples_sage.jsonl")
    assert [s["status"] for s in samples] == ["ok"] * 4 and {s["output"] for s in samples} == {ANSWER}
    for sample in samples:
        assert sample["prompt_tokens"] is None and said in sample["usage_note"], sample
        assert sample["estimated_tokens"]["prompt"] > 400
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert results["cost"] == results["cost_estimated"] > 0
    # read with the constants for the usage's sake only: anywhere else they are a malformed body still
    body = ('{"choices": [{"message": {"content": "x", "tool_calls": [{"function": {"arguments": {"a": NaN}}}]}}], '
            f'"usage": {usage}}}')
    with pytest.raises(BackendError, match="not JSON"):
        parse_reply(body.encode(), "http://127.0.0.1:1/v1")


# -- x10: a lone surrogate escape in a pair ------------------------------------------------------

@pytest.mark.parametrize(("name", "text", "said"), [
    ("s.jsonl", "".join(json.dumps(p) + "\n" for p in [*pairs(2), {"source": "a\ud800b", "correction": "ab"}]),
     "s.jsonl:3: 'source' holds a lone surrogate escape"),
    ("s.json", json.dumps([*pairs(2), {"source": "ab", "correction": "a\udfffb"}]),
     "s.json: entry 2: 'correction' holds a lone surrogate escape"),
], ids=["JSONL", "a JSON list"])
def test_x10_a_lone_surrogate_in_a_pair_is_one_line_naming_file_and_line(tmp_path: Path, name: str, text: str,
                                                                         said: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="ascii")  # json.dumps escapes the surrogate: \ud800
    done = run_cli("run", "--model", "reference", "--tasks", "sage", "--data", f"sage=spellcheck:{path}",
                   "--out", str(tmp_path / "out"), "--no-progress")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-3000:]
    assert said in lines[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


# -- x11: one huge pair, in memory a bounded multiple of the file -------------------------------

PEAK = """
import atexit, runpy, sys
def peak():
    status = open("/proc/self/status").read()
    print(next(l for l in status.splitlines() if l.startswith("VmHWM")).split()[1], file=sys.stderr)
atexit.register(peak)
sys.argv = ["merabench", *sys.argv[1:]]
runpy.run_module("merabench.cli.main", run_name="__main__")
"""


def peak_kib_of_run(path: Path, out: Path) -> int:
    """A reference run of SAGE on a pair file, in a child process whose own VmHWM (its peak
    resident memory, from /proc/self/status: not ru_maxrss, which a fork carries over from its
    parent) it prints as it exits."""
    done = subprocess.run([sys.executable, "-c", PEAK, "run", "--model", "reference", "--tasks", "sage", "--data",
                           f"sage=spellcheck:{path}", "--out", str(out), "--no-progress"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return int(done.stderr.strip().splitlines()[-1])


def test_x11_a_pair_file_of_one_huge_pair_is_scored_in_a_bounded_multiple_of_its_size(tmp_path: Path) -> None:
    small, huge = tmp_path / "small.jsonl", tmp_path / "huge.jsonl"
    small.write_text(jsonl_text([{"source": "я", "correction": "x"}]), encoding="utf-8")
    huge.write_text(jsonl_text([{"source": "я" * 5_000_000, "correction": "x"}]), encoding="utf-8")  # 10 MB
    grown = peak_kib_of_run(huge, tmp_path / "huge") - peak_kib_of_run(small, tmp_path / "small")
    assert grown * 1024 < 20 * huge.stat().st_size, grown  # was 41 times the file: the aligner held 64 bytes a letter


# -- x14: a pipe or standard input as a pair file ------------------------------------------------

def pair_bytes(form: str, items: list[dict[str, str]], tmp: Path) -> bytes:
    if form == "jsonl":
        return jsonl_text(items).encode()
    if form == "json list":
        return json.dumps(items, ensure_ascii=False, indent=1).encode()
    if form == "csv":
        import csv
        import io

        text = io.StringIO(newline="")
        writer = csv.DictWriter(text, fieldnames=["source", "correction"])
        writer.writeheader()
        writer.writerows(items)
        return text.getvalue().encode()
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(items), tmp / "p.parquet")
    return (tmp / "p.parquet").read_bytes()


@pytest.mark.parametrize("form", ["jsonl", "json list", "csv", "parquet"])
@pytest.mark.parametrize("way", ["standard input", "a pipe"])
def test_x14_a_pipe_or_standard_input_is_read_as_a_pair_file(tmp_path: Path, form: str, way: str) -> None:
    data = pair_bytes(form, pairs(), tmp_path)
    args = ["run", "--model", "reference", "--tasks", "sage", "--out", str(tmp_path / "out"), "--no-progress"]
    if way == "standard input":
        done = subprocess.run(cli_command(*args, "--data", "sage=spellcheck:-"), input=data, capture_output=True,
                              timeout=120)
    else:  # as the shell's <(cat pairs) gives it: /dev/fd/N, a pipe a writer fills
        read, write = os.pipe()

        def fill() -> None:
            with os.fdopen(write, "wb") as fh:
                fh.write(data)

        writer = threading.Thread(target=fill, daemon=True)
        writer.start()
        try:
            done = subprocess.run(cli_command(*args, "--data", f"sage=spellcheck:/dev/fd/{read}"), pass_fds=(read,),
                                  capture_output=True, timeout=120)
        finally:
            os.close(read)
            writer.join(10)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    records = read_jsonl(tmp_path / "out" / "samples_sage.jsonl")
    assert [r["id"] for r in records] == list(range(len(pairs())))
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert results["tasks"]["sage"]["metrics"]["errant_f1"] == 1.0  # the reference: the pairs read as they are
