"""Every user mistake ends in one line and exit code 2, with nothing half-written; a failed check
ends in exit code 1. One row per mistake: the command, how to set it up, what the line says."""

from __future__ import annotations

import fcntl
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import run_cli, sage_rows, write_jsonl

from merabench.rows import read_bundled


@dataclass
class Mistake:
    name: str
    args: Callable[[Path, str], list[str]]   # (tmp folder, a live server's URL) -> the command's arguments
    says: str
    code: int = 2


def nonutf8(tmp: Path) -> Path:
    path = tmp / "latin1.jsonl"
    row = sage_rows(1)[0]
    path.write_bytes(json.dumps(row, ensure_ascii=False).encode("cp1251") + b"\n")
    return path


def a_file(tmp: Path, name: str = "plain.txt") -> Path:
    path = tmp / name
    path.write_text("это не база данных и не каталог\n" * 200, encoding="utf-8")
    return path


def rows(tmp: Path, **meta) -> Path:
    row = sage_rows(1)[0]
    row["meta"].update(meta)
    return write_jsonl(tmp / "rows.jsonl", [row])


def preds(tmp: Path, lines: list, name: str = "p.jsonl") -> Path:
    return write_jsonl(tmp / name, lines)


def json_file(tmp: Path, doc: object, name: str = "p.json") -> Path:
    path = tmp / name
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def zip_file(tmp: Path, members: dict[str, bytes], name: str = "sub.zip") -> Path:
    path = tmp / name
    with zipfile.ZipFile(path, "w") as zf:
        for member, data in members.items():
            zf.writestr(member, data)
    return path


def bad_tools_set(tmp: Path) -> Path:
    folder = tmp / "set"
    folder.mkdir()
    row = read_bundled("gorillahard")["test"][0].to_dict()
    row["inputs"]["tools"] = "[{не json"
    write_jsonl(folder / "test.jsonl", [row])
    return folder


OUT = ["--out"]
RUN = ["run", "--no-progress", "--tasks", "sage"]
MISTAKES = [
    Mistake("concurrency 0", lambda t, u: [*RUN, "--concurrency", "0"], "--concurrency"),
    Mistake("unknown flag", lambda t, u: [*RUN, "--bogus"], "No such option: --bogus"),
    Mistake("score without arguments", lambda t, u: ["score"], "Missing argument"),
    Mistake("limit -1", lambda t, u: [*RUN, "--limit", "-1"], "--limit"),
    Mistake("timeout 0", lambda t, u: [*RUN, "--timeout", "0"], "--timeout must be a number more than 0"),
    Mistake("timeout -1", lambda t, u: [*RUN, "--timeout", "-1"], "--timeout must be"),
    Mistake("negative retry delay", lambda t, u: [*RUN, "--retry-delay", "-1"], "--retry-delay must be"),
    Mistake("temperature nan", lambda t, u: [*RUN, "--temperature", "nan"], "--temperature must be"),
    Mistake("fail-on-error -1", lambda t, u: [*RUN, "--fail-on-error", "-1"], "--fail-on-error must be"),
    Mistake("extra body replaces messages", lambda t, u: [*RUN, "--extra-body", '{"messages": []}'],
            "--extra-body cannot set messages"),
    Mistake("extra body not JSON", lambda t, u: [*RUN, "--extra-body", "{model"], "--extra-body is not valid JSON"),
    Mistake("unknown cache scope", lambda t, u: [*RUN, "--cache-scope", "global"], "--cache-scope"),
    Mistake("unknown api profile", lambda t, u: [*RUN, "--api-profile", "responses"], "unknown --api-profile"),
    Mistake("unknown task", lambda t, u: ["run", "--no-progress", "--tasks", "sage,mmlu"], "unknown task 'mmlu'"),
    Mistake("unknown model kind", lambda t, u: [*RUN, "--model", "vllm:x"], "unknown model 'vllm:x'"),
    Mistake("openai model without URL", lambda t, u: [*RUN, "--model", "openai:x"], "needs --base-url"),
    Mistake("URL credentials and an API key", lambda t, u: [*RUN, "--model", "openai:x", "--base-url",
                                                           "http://user:pw@127.0.0.1:9/v1", "--api-key", "k"],
            "carries credentials and an API key"),
    Mistake("data file missing", lambda t, u: [*RUN, "--data", str(t / "nope.jsonl")], "no such file"),
    Mistake("data not UTF-8", lambda t, u: [*RUN, "--data", str(nonutf8(t))], "not UTF-8 text"),
    Mistake("turn_id not a number", lambda t, u: [*RUN, "--data", str(rows(t, turn_id="2"))],
            "field 'meta.turn_id': must be an integer"),
    Mistake("placeholder without input", lambda t, u: [*RUN, "--data", str(write_jsonl(
        t / "r.jsonl", [dict(sage_rows(1)[0], instruction="Исправь {text}")]))], "inputs has no 'text'"),
    Mistake("out under a file", lambda t, u: [*RUN, *OUT, str(a_file(t) / "run")], "cannot create the folder"),
    Mistake("cache path under a file", lambda t, u: [*RUN, "--model", "openai:x", "--base-url", u, "--cache-path",
                                                    str(a_file(t) / "c.sqlite")], "cannot use the response cache"),
    Mistake("corrupt cache", lambda t, u: [*RUN, "--model", "openai:x", "--base-url", u, "--cache-path",
                                          str(a_file(t, "cache.sqlite"))], "cannot use the response cache"),
    Mistake("dead endpoint", lambda t, u: [*RUN, "--model", "openai:x", "--base-url", "http://127.0.0.1:9/v1"],
            "cannot connect to http://127.0.0.1:9/v1"),
    Mistake("predictions not UTF-8", lambda t, u: ["score", "sage", "--predictions", str(nonutf8(t))], "not UTF-8"),
    Mistake("predictions test not a list", lambda t, u: ["score", "sage", "--predictions",
                                                        str(json_file(t, {"data": {"test": 5}}))], "list of answers"),
    Mistake("lm-eval meta is a string", lambda t, u: ["score", "sage", "--predictions", str(preds(
        t, [{"doc_id": 0, "doc": {"meta": "0"}, "filtered_resps": ["x"]}], "samples_sage.jsonl"))],
            "doc.meta must be an object"),
    Mistake("broken JSON in a ZIP", lambda t, u: ["score", "sage", "--predictions", str(zip_file(
        t, {"SAGE.json": b'{"data": {"test": ['}))], "not valid JSON"),
    Mistake("duplicate prediction ids", lambda t, u: ["score", "sage", "--predictions", str(preds(
        t, [{"id": 0, "output": "a"}, {"id": 0, "output": "b"}]))], "the same id is answered twice"),
    Mistake("explain an unknown id", lambda t, u: ["score", "sage", "--predictions", str(preds(
        t, [{"id": 0, "output": "a"}])), "--explain", "99999", *OUT, str(t / "s")], "--explain 99999"),
    Mistake("judge prompt missing", lambda t, u: ["score", "russianregions", "--predictions", str(preds(
        t, [{"id": 0, "output": "Б"}])), "--judge-model", "openai:j", "--judge-base-url", u, "--judge-prompt",
        str(t / "nope.txt")], "--judge-prompt"),
    Mistake("check a corrupt ZIP", lambda t, u: ["submission", "--check", "--out", str(a_file(t, "s.zip"))],
            "is not a ZIP file"),
    Mistake("check: test is not a list", lambda t, u: ["submission", "--check", "--out", str(zip_file(
        t, {"SAGE.json": b'{"data": {"test": 1}}', "RussianRegions.json": b'{"data": {"test": []}}',
            "GorillaHard.json": b'{"data": {"test": []}}'}))], "with a list", code=1),
    Mistake("check: a task missing", lambda t, u: ["submission", "--check", "--out", str(zip_file(
        t, {"SAGE.json": b'{"data": {"test": []}}'}))], "GorillaHard.json: missing", code=1),
    Mistake("package a folder that is no run", lambda t, u: ["submission", "--run", str(t), "--out",
                                                            str(t / "s.zip")], "has not finished"),
    Mistake("generate into a file", lambda t, u: ["generate", "gorillahard", "--out", str(a_file(t) / "set")],
            "cannot be written"),
    Mistake("validate a set whose tools are not JSON", lambda t, u: ["validate", "gorillahard", str(bad_tools_set(t))],
            "field 'inputs.tools': is not JSON"),
    Mistake("report without results", lambda t, u: ["report", str(t)], "has no results.json"),
]


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.name for m in MISTAKES])
def test_one_line_and_the_exit_code(mistake: Mistake, tmp_path: Path, fake_server) -> None:
    out = tmp_path / "out"
    args = mistake.args(tmp_path, fake_server.url)
    if "run" in args[:1] and "--out" not in args:
        args = [*args, "--out", str(out)]
    result = run_cli(*args)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == mistake.code, result.stderr
    assert "Traceback" not in result.stderr
    assert mistake.says in result.stderr, result.stderr
    if mistake.code == 2:
        assert len(lines) == 1, result.stderr
        assert not out.exists(), "a mistake must not leave a half-written run folder"
    assert not fake_server.requests, "no request goes out before the mistake is found"


def test_a_second_run_into_a_locked_folder_stops_at_once(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    with (out / ".merabench.lock").open("a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a run in another process holds it
        held.write("pid 4242")
        held.flush()
        result = run_cli("run", "--no-progress", "--tasks", "sage", "--out", str(out))
    assert result.returncode == 2 and "being written by another merabench run (pid 4242)" in result.stderr
    assert sorted(p.name for p in out.iterdir()) == [".merabench.lock"]
