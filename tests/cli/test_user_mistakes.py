"""The hostile case table: every user mistake and hostile input ends in one line and exit code 2,
with nothing half-written (no run folder, lock, run.json or cache); a failed check ends in exit
code 1. One row per case: the command, how to set it up, what the line says, and what must not be
there afterwards (or must be left as it was). Inputs merabench accepts however they come (pipes,
standard input) and a full disk mid-run are tested below the table."""

from __future__ import annotations

import fcntl
import importlib.util
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers import run_cli, sage_rows, said_after_start, write_jsonl

from merabench.rows.row import read_bundled


@dataclass
class Mistake:
    name: str
    args: Callable[[Path, str], list[str]]   # (tmp folder, a live server's URL) -> the command's arguments
    says: str
    code: int = 2
    absent: tuple[str, ...] = ()              # paths under the tmp folder that must not exist afterwards
    env: dict[str, str] = field(default_factory=dict)
    kept: Callable[[Path], None] | None = None  # checks that what was there is as it was


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
    Mistake("package a folder that is no run", lambda t, u: ["submission", "--allow-unofficial", "--run", str(t), "--out",
                                                            str(t / "s.zip")], "has not finished"),
    Mistake("generate into a file", lambda t, u: ["generate", "gorillahard", "--out", str(a_file(t) / "set")],
            "cannot create the folder"),
    Mistake("validate a set whose tools are not JSON", lambda t, u: ["validate", "gorillahard", str(bad_tools_set(t))],
            "field 'inputs.tools': is not JSON"),
    Mistake("report without results", lambda t, u: ["report", str(t)], "has no results.json"),
]


# -- the second hostile attack (issue 24): rows, predictions, ZIPs, configs and batch files --------

def bundled_rows(task: str, split: str = "test") -> list[dict]:
    return [r.to_dict() for r in read_bundled(task)[split]]


def a_gorillahard_set(tmp: Path, change: Callable[[dict], None]) -> Path:
    """A copy of the bundled GorillaHard set (test and shots) with its first call row changed."""
    folder = tmp / "gh"
    folder.mkdir(exist_ok=True)
    test = bundled_rows("gorillahard")
    row = next(r for r in test if '"args"' in r["outputs"])
    change(row)
    write_jsonl(folder / "test.jsonl", test)
    write_jsonl(folder / "shots.jsonl", bundled_rows("gorillahard", "shots"))
    return folder


def args_renamed(row: dict) -> None:
    envelope = json.loads(row["outputs"])
    envelope["argz"] = envelope.pop("args")
    row["outputs"] = json.dumps(envelope, ensure_ascii=False)


def text_file(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


def sage_row_with(tmp: Path, source_json: str) -> Path:
    """A SAGE row whose input is the given JSON text, written as it stands (escapes kept)."""
    row = sage_rows(1)[0]
    line = json.dumps(row, ensure_ascii=False).replace(json.dumps(row["inputs"]["source"], ensure_ascii=False),
                                                       source_json)
    return text_file(tmp, "rows.jsonl", line + "\n")


def dev_zero(tmp: Path) -> Path:
    link = tmp / "zero.jsonl"
    link.symlink_to("/dev/zero")
    return link


def tasks_zip(tmp: Path, members: list[tuple[str, bytes]], encrypted: str | None = None) -> Path:
    """A submission ZIP; `encrypted` names an entry whose encryption flag is set (Python writes
    none, so the flag bits of its local and central headers are set by hand)."""
    import warnings

    path = tmp / "sub.zip"
    with warnings.catch_warnings(), zipfile.ZipFile(path, "w") as zf:
        warnings.simplefilter("ignore")  # a duplicate name is the point of one case
        for name, data in members:
            zf.writestr(name, data)
    if encrypted is not None:
        raw = bytearray(path.read_bytes())
        for signature, flag_offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
            at = raw.find(signature)
            while at >= 0:
                name_at = at + (30 if signature == b"PK\x03\x04" else 46)
                if raw[name_at:name_at + len(encrypted)] == encrypted.encode():
                    raw[at + flag_offset] |= 1
                at = raw.find(signature, at + 4)
        path.write_bytes(bytes(raw))
    return path


TASK_JSON = b'{"data": {"test": [{"outputs": "x", "meta": {"id": 0}}]}}'
THREE = [("SAGE.json", TASK_JSON), ("RussianRegions.json", TASK_JSON), ("GorillaHard.json", TASK_JSON)]


def a_run_folder(tmp: Path) -> Path:
    folder = tmp / "a_run"
    folder.mkdir()
    (folder / "run.json").write_text('{"model": "openai:m"}\n', encoding="utf-8")
    (folder / "samples_sage.jsonl").write_text('{"id": 0, "status": "ok", "output": "raw"}\n', encoding="utf-8")
    return folder


def run_folder_kept(tmp: Path) -> None:
    assert (tmp / "a_run" / "samples_sage.jsonl").read_text(encoding="utf-8") == \
        '{"id": 0, "status": "ok", "output": "raw"}\n', "a run's raw answers were overwritten"
    assert sorted(p.name for p in (tmp / "a_run").iterdir()) == ["run.json", "samples_sage.jsonl"]


def other_results(tmp: Path) -> Path:
    folder = tmp / "scored_other"
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps({"model": "predictions:else.jsonl", "settings": {
        "tasks": ["gorillahard"]}}), encoding="utf-8")
    return folder


def exported(tmp: Path, *options: str) -> list[dict]:
    """The batch requests of the bundled SAGE rows for openai:m with these options."""
    path = tmp / "requests.jsonl"
    done = run_cli("export-requests", "--model", "openai:m", "--tasks", "sage", *options, "--out", str(path))
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def batch_answers(tmp: Path, requests: list[dict], repeat_first: bool = False) -> Path:
    lines = [{"custom_id": r["custom_id"], "text": "ответ"} for r in requests[:3]]
    return write_jsonl(tmp / "output.jsonl", lines + lines[:1] if repeat_first else lines)


def half_imported_run(tmp: Path) -> Path:
    """A run folder answered in part by an import made with --preset mera."""
    run = tmp / "batch_run"
    done = run_cli("import-responses", str(batch_answers(tmp, exported(tmp, "--preset", "mera"))), "--model",
                   "openai:m", "--preset", "mera", "--tasks", "sage", "--out", str(run), "--no-progress")
    assert done.returncode == 0, done.stderr
    return run


SCORE = ["score", "sage", "--predictions"]
HOSTILE = [
    Mistake("SAGE data that is RussianRegions rows", lambda t, u: [*RUN, "--data", str(write_jsonl(
        t / "rr.jsonl", bundled_rows("russianregions")))], "is not a sage row: inputs has no 'source'"),
    Mistake("GorillaHard reference not JSON", lambda t, u: ["run", "--no-progress", "--tasks", "gorillahard", "--data",
            str(a_gorillahard_set(t, lambda r: r.update(outputs="{не json")))], "is not JSON (a reference"),
    Mistake("GorillaHard reference with argz", lambda t, u: ["run", "--no-progress", "--tasks", "gorillahard", "--data",
            str(a_gorillahard_set(t, args_renamed))], "a call needs its arguments as an object under 'args'"),
    Mistake("validate a reference with argz", lambda t, u: ["validate", "gorillahard", str(a_gorillahard_set(
        t, args_renamed))], "field 'outputs': a call needs its arguments as an object under 'args'"),
    Mistake("RussianRegions reference without a letter", lambda t, u: ["run", "--no-progress", "--tasks",
            "russianregions", "--data", str(write_jsonl(t / "rr.jsonl", [dict(bundled_rows("russianregions")[0],
                                                                          outputs="Ж")]))], "must start with the letter"),
    Mistake("empty data", lambda t, u: [*RUN, "--data", str(text_file(t, "empty.jsonl", ""))], "holds no sage rows"),
    Mistake("blank-lines-only data", lambda t, u: [*RUN, "--data", str(text_file(t, "blank.jsonl", "\n \n\n"))],
            "holds no sage rows"),
    Mistake("a lone surrogate in a row", lambda t, u: [*RUN, "--data", str(sage_row_with(t, '"a\\ud800b"'))],
            "lone surrogate"),
    Mistake("200k nested brackets in a row", lambda t, u: [*RUN, "--data", str(sage_row_with(t, "[" * 200_000))],
            "nested deeper than 1024 levels"),
    Mistake("a 5,000-digit integer in a row", lambda t, u: [*RUN, "--data", str(sage_row_with(t, "1" * 5000))],
            "a number of more than 4,300 digits"),
    Mistake("a 5,000-digit integer in a prediction", lambda t, u: [*SCORE, str(text_file(
        t, "p.jsonl", '{"id": 0, "output": "x", "n": ' + "7" * 5000 + "}\n")), *OUT, str(t / "s")],
            "a number of more than 4,300 digits", absent=("s",)),
    Mistake("a 64-bit-overflowing id", lambda t, u: [*RUN, "--data", str(rows(t, id=10**30))], "field 'meta.id'"),
    Mistake("data a symlink to /dev/zero", lambda t, u: [*RUN, "--data", f"sage={dev_zero(t)}"],
            "is a device or socket, not a file"),
    Mistake("predictions match no row", lambda t, u: [*SCORE, str(preds(t, [{"id": 99999, "output": "x"}])),
                                                      *OUT, str(t / "s")], "no answer matches a row", absent=("s",)),
    Mistake("predictions empty", lambda t, u: [*SCORE, str(text_file(t, "p.jsonl", "\n")), *OUT, str(t / "s")],
            "holds no answers", absent=("s",)),
    Mistake("predictions say text, not output", lambda t, u: [*SCORE, str(preds(t, [{"id": 0, "text": "x"}])),
                                                              *OUT, str(t / "s")],
            "expected the field 'output'", absent=("s",)),
    Mistake("MERA JSON answers without outputs", lambda t, u: [*SCORE, str(json_file(
        t, {"data": {"test": [{"meta": {"id": 0}}]}}, "SAGE.json")), *OUT, str(t / "s")],
            "expected the field 'output'", absent=("s",)),
    Mistake("lm-eval samples without resps", lambda t, u: [*SCORE, str(preds(
        t, [{"doc_id": 0, "doc": {"meta": {"id": 0}}}], "samples_sage.jsonl")), *OUT, str(t / "s")],
            "needs 'filtered_resps' or 'resps'", absent=("s",)),
    Mistake("another task's submission file", lambda t, u: [*SCORE, str(json_file(
        t, {"data": {"test": [{"outputs": "x", "meta": {"id": 0}}]}}, "GorillaHard.json")), *OUT, str(t / "s")],
            "is a submission file of GorillaHard, not of SAGE", absent=("s",)),
    Mistake("another task's samples file", lambda t, u: [*SCORE, str(preds(
        t, [{"id": 0, "status": "ok", "output": "{}"}], "samples_gorillahard.jsonl")), *OUT, str(t / "s")],
            "is a samples file of GorillaHard, not of SAGE", absent=("s",)),
    Mistake("200k nested brackets in a prediction", lambda t, u: [*SCORE, str(text_file(
        t, "p.jsonl", '{"id": 0, "output": ' + "[" * 200_000 + "\n")), *OUT, str(t / "s")],
            "nested deeper than 1024 levels", absent=("s",)),
    Mistake("predictions a folder", lambda t, u: [*SCORE, str(t), *OUT, str(t / "s")],
            "is a folder; a file is expected here", absent=("s",)),
    Mistake("predictions ZIP with SAGE.json twice", lambda t, u: [*SCORE, str(tasks_zip(t, [THREE[0], *THREE])),
                                                                  *OUT, str(t / "s")], "holds SAGE.json 2 times"),
    Mistake("predictions ZIP with SAGE.json encrypted", lambda t, u: [*SCORE, str(tasks_zip(t, THREE, "SAGE.json")),
                                                                      *OUT, str(t / "s")], "SAGE.json is encrypted"),
    Mistake("score into a run's folder", lambda t, u: [*SCORE, str(preds(t, [{"id": 0, "output": "x"}])),
                                                       *OUT, str(a_run_folder(t))], "holds a run", kept=run_folder_kept),
    Mistake("score into another scoring's folder", lambda t, u: [*SCORE, str(preds(t, [{"id": 0, "output": "x"}])),
                                                                 *OUT, str(other_results(t))], "holds other results",
            absent=("scored_other/samples_sage.jsonl",)),
    Mistake("check: SAGE.json twice", lambda t, u: ["submission", "--check", "--out", str(tasks_zip(
        t, [THREE[0], *THREE]))], "SAGE.json: in the ZIP 2 times", code=1),
    Mistake("check: SAGE.json encrypted", lambda t, u: ["submission", "--check", "--out", str(tasks_zip(
        t, THREE, "SAGE.json"))], "SAGE.json: encrypted", code=1),
    Mistake("check: 200k nested brackets in a task JSON", lambda t, u: ["submission", "--check", "--out", str(tasks_zip(
        t, [("SAGE.json", b'{"data": {"test": ' + b"[" * 200_000), *THREE[1:]]))], "nested deeper than 1024", code=1),
    Mistake("seed 10^27", lambda t, u: [*RUN, "--seed", str(10**27)], "Invalid value for '--seed'"),
    Mistake("max-tokens 10^20", lambda t, u: [*RUN, "--max-tokens", str(10**20)], "Invalid value for '--max-tokens'"),
    Mistake("port 99999", lambda t, u: [*RUN, "--model", "openai:x", "--base-url", "http://127.0.0.1:99999/v1"],
            "--base-url http://127.0.0.1:99999/v1: not a valid URL (Port out of range"),
    Mistake("port abc", lambda t, u: [*RUN, "--model", "openai:x", "--base-url", "http://127.0.0.1:abc/v1"],
            "--base-url http://127.0.0.1:abc/v1: not a valid URL"),
    Mistake("judge port 99999", lambda t, u: ["score", "russianregions", "--predictions", str(preds(
        t, [{"id": 0, "output": "Б"}])), "--judge-model", "openai:j", "--judge-base-url", "http://127.0.0.1:99999"],
            "--judge-base-url"),
    Mistake("export and import together", lambda t, u: [*RUN, "--export-requests", str(t / "f.jsonl"),
                                                        "--import-responses", str(t / "f.jsonl")],
            "--export-requests and --import-responses exclude each other", absent=("f.jsonl",)),
    Mistake("concurrency = true in a config", lambda t, u: [*RUN, "--config", str(text_file(
        t, "c.toml", "concurrency = true\n"))], "config key 'concurrency' must be a value as its flag takes"),
    Mistake("a switch given a number in a config", lambda t, u: [*RUN, "--config", str(text_file(
        t, "c.toml", "cache = 1\n"))], "config key 'cache' must be true or false"),
    Mistake("5,000 nested brackets in a config", lambda t, u: [*RUN, "--config", str(text_file(
        t, "c.toml", "a = " + "[" * 5000 + "\n"))], "nested too deeply"),
    Mistake("reasoning effort bogus", lambda t, u: [*RUN, "--reasoning-effort", "bogus"], "--reasoning-effort must be"),
    Mistake("drop the messages", lambda t, u: [*RUN, "--drop-param", "messages"], "--drop-param messages"),
    Mistake("drop the model", lambda t, u: [*RUN, "--drop-param", "model"], "--drop-param model"),
    Mistake("empty stop sequence", lambda t, u: [*RUN, "--stop", ""], "--stop '' is empty"),
    Mistake("empty --out", lambda t, u: [*RUN, "--out", ""], "--out '' is empty"),
    Mistake("empty --html", lambda t, u: ["compare", str(t / "a"), str(t / "b"), "--html", ""], "--html '' is empty"),
    Mistake("empty --out=", lambda t, u: ["score", "sage", "--predictions", "p.jsonl", "--out="], "--out '' is empty"),
    Mistake("dead endpoint makes no cache", lambda t, u: [*RUN, "--model", "openai:x", "--base-url",
                                                          "http://127.0.0.1:9/v1"], "cannot connect",
            absent=("cache.sqlite",)),
    Mistake("max-cost without prices", lambda t, u: [*RUN, "--model", "openai:x", "--base-url", u, "--max-cost", "1"],
            "--max-cost needs prices", absent=("cache.sqlite",)),
    Mistake("an hf: model that cannot load", lambda t, u: [*RUN, "--model", f"hf:{t / 'no-model'}"],
            "hf: models need torch" if importlib.util.find_spec("torch") is None else "could not load the model",
            env={"HF_HUB_OFFLINE": "1"}),
    Mistake("import answers a row twice", lambda t, u: ["import-responses", str(batch_answers(t, exported(t), True)),
                                                        "--model", "openai:m", "--tasks", "sage", "--no-progress",
                                                        *OUT, str(t / "o")],
            "answers sage row 0 again (first on line 1)", absent=("o",)),
    Mistake("import answers made with other options", lambda t, u: [
        "import-responses", str(batch_answers(t, exported(t, "--max-tokens", "64"))), "--model", "openai:m",
        "--tasks", "sage", "--no-progress", *OUT, str(t / "o")], "the options tag differs", absent=("o",)),
    Mistake("export for a run with other options", lambda t, u: [
        "export-requests", "--run", str(half_imported_run(t)), "--max-tokens", "7", "--out", str(t / "rest.jsonl")],
            "was made with other generation options", absent=("rest.jsonl",)),
    Mistake("an unclosed quote in --serve-args", lambda t, u: [*RUN, "--serve", "vllm", "--serve-args", "--x 'y"],
            "--serve-args cannot be split into words: No closing quotation"),
    Mistake("an unclosed quote in --serve-cmd", lambda t, u: [*RUN, "--serve-cmd", "srv 'x --port {port}"],
            "--serve-cmd cannot be split into words: No closing quotation"),
    Mistake("hub in offline mode", lambda t, u: [*RUN, "--data", "hub"], "offline mode is on",
            env={"HF_HUB_OFFLINE": "1"}),
    Mistake("hub unreachable", lambda t, u: [*RUN, "--data", "hub"], "the hub (http://127.0.0.1:9) is unreachable",
            env={"HF_ENDPOINT": "http://127.0.0.1:9"}),
    # what a user typed is printed as typed: rich would make ':abc:' and ':smile:' emoji, '[red]' a colour
    Mistake("an emoji code in a data spec", lambda t, u: ["run", "--no-progress", "--tasks", "gorillahard", "--data",
                                                          "generated:abc"],
            "error: --data generated:abc: the seed must be an integer"),
    Mistake("a smile in a data spec", lambda t, u: ["run", "--no-progress", "--tasks", "gorillahard", "--data",
                                                    "generated:smile"], "--data generated:smile: the seed"),
    Mistake("an emoji code in a folder name", lambda t, u: ["report", str(t / ":thumbs_up: [red]x[/red]")],
            ":thumbs_up: [red]x[/red] has no results.json"),
]


@pytest.mark.parametrize("mistake", MISTAKES + HOSTILE, ids=[m.name for m in MISTAKES + HOSTILE])
def test_one_line_and_the_exit_code(mistake: Mistake, tmp_path: Path, fake_server) -> None:
    out = tmp_path / "out"
    args = mistake.args(tmp_path, fake_server.url)
    if "run" in args[:1] and "--out" not in args:
        args = [*args, "--out", str(out)]
    env = dict(mistake.env)  # the hub cache: the session's own, empty (conftest.py)
    result = run_cli(*args, env=env)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == mistake.code, result.stderr
    assert "Traceback" not in result.stderr
    assert mistake.says in result.stderr, result.stderr
    if mistake.code == 2:
        assert len(lines) == 1, result.stderr
        assert not out.exists(), "a mistake must not leave a half-written run folder"
    for path in mistake.absent:
        assert not (tmp_path / path).exists(), f"{path} was written"
    if mistake.kept is not None:
        mistake.kept(tmp_path)
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


# -- accepted however they come: pipes and standard input --------------------------------------

def fifo_of(tmp: Path, name: str, text: str) -> Path:
    """A named pipe that a thread fills once (what `<(...)` gives a command)."""
    import os
    import threading

    path = tmp / name
    os.mkfifo(path)

    def feed() -> None:
        with path.open("w", encoding="utf-8") as fh:
            fh.write(text)

    threading.Thread(target=feed, daemon=True).start()
    return path


def sage_predictions() -> str:
    return "".join(json.dumps({"id": r["meta"]["id"], "output": r["outputs"]}, ensure_ascii=False) + "\n"
                   for r in bundled_rows("sage"))


@pytest.mark.parametrize("how", ["fifo", "dash", "dev-stdin"])
def test_predictions_from_a_pipe_or_standard_input(tmp_path: Path, how: str) -> None:
    import subprocess

    from helpers import cli_command

    source = {"fifo": lambda: str(fifo_of(tmp_path, "p", sage_predictions())), "dash": lambda: "-",
              "dev-stdin": lambda: "/dev/stdin"}[how]()
    done = subprocess.run(cli_command("score", "sage", "--predictions", source, "--out", str(tmp_path / "s")),
                          input=None if how == "fifo" else sage_predictions(), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "s" / "results.json").read_text(encoding="utf-8"))
    assert results["tasks"]["sage"]["metrics"]["errant_f1"] == 1.0  # every reference read back


@pytest.mark.parametrize("how", ["fifo-jsonl", "fifo-json-list", "dash"])
def test_data_from_a_pipe_or_standard_input(tmp_path: Path, how: str) -> None:
    import subprocess

    from helpers import cli_command

    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in sage_rows(5))
    text = json.dumps(sage_rows(5), ensure_ascii=False) if how == "fifo-json-list" else lines
    spec = "sage=-" if how == "dash" else f"sage={fifo_of(tmp_path, 'rows', text)}"
    done = subprocess.run(cli_command("run", "--no-progress", "--tasks", "sage", "--data", spec, "--out",
                                      str(tmp_path / "r")), input=text if how == "dash" else None,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [json.loads(x)["id"] for x in (tmp_path / "r" / "samples_sage.jsonl").read_text().splitlines()] == \
        list(range(5))


# -- a full disk mid-run ----------------------------------------------------------------------

FULL_AFTER = '''
import errno, sys
from merabench.runner import samples
from merabench.cli.main import entry

calls = []
original = samples.SampleWriter.write_many

def write_many(self, answers):
    calls.append(1)
    if len(calls) > 2:  # the disk fills after two batches
        raise OSError(errno.ENOSPC, "No space left on device")
    original(self, answers)

samples.SampleWriter.write_many = write_many
sys.argv = ["merabench", *sys.argv[1:]]
entry()
'''


def test_a_full_disk_is_one_line_and_the_rerun_resumes(tmp_path: Path, make_server) -> None:
    import subprocess
    import sys

    data = write_jsonl(tmp_path / "rows.jsonl", sage_rows(400))
    server = make_server(latency_s=0.002)
    out = tmp_path / "run"
    args = ["run", "--no-progress", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--data",
            str(data), "--out", str(out), "--concurrency", "4"]
    full = subprocess.run([sys.executable, "-c", FULL_AFTER, *args], capture_output=True, text=True, timeout=120)
    # the run's first line (what it will ask) came before the disk filled; then one line on it
    lines = said_after_start(full.stderr)
    assert full.returncode == 2 and len(lines) == 1, full.stderr
    assert f"{out}: no space left on the device" in lines[0] and "rerun the same command to resume" in lines[0]
    assert not (out / "results.json").exists()
    written = [json.loads(x)["id"] for x in (out / "samples_sage.jsonl").read_text().splitlines()]
    assert 0 < len(written) < 400, "the run stopped after the failed write"
    asked = len(server.requests)
    resumed = run_cli(*args)
    assert resumed.returncode == 0, resumed.stderr
    final = {json.loads(x)["id"] for x in (out / "samples_sage.jsonl").read_text().splitlines()}
    assert final == set(range(400))
    assert len(server.requests) - asked <= 400 - len(written), "rows on disk were asked again"


# -- the hub's refusals: HF_TOKEN is named for a 401/403 and only then --------------------------

@pytest.mark.parametrize(("status", "names_token"), [(401, True), (403, True), (404, False), (None, False)])
def test_the_hub_token_is_named_only_when_the_hub_refuses(status: int | None, names_token: bool) -> None:
    import types

    from merabench.rows.row import _hub_failure

    class HubError(Exception):
        response = types.SimpleNamespace(status_code=status) if status else None

    try:
        try:
            raise HubError("the hub said no")
        except HubError as inner:
            raise RuntimeError("datasets wrapped it") from inner
    except RuntimeError as outer:
        line = _hub_failure("MERA-evaluation/SAGE", "test", outer, offline=False)
    assert ("HF_TOKEN" in line) is names_token, line
    assert "\n" not in line and ("local copy" in line) is not names_token
