"""Hostile cases of round III on what a user hands merabench (t07, t13, t16-t19, a87, a91, a112,
b07, b23, b45, f02, f09, g15, g20 of shared/cases/hostile3.md): config values taken exactly or
refused by key, a dumped config that loads back as it was, a pipe nobody writes refused at once,
`hf:` paths that cannot be paths refused before the hub is asked, rows whose numbers JSON cannot
hold refused by line, and a GorillaHard set whose manifest is missing or foreign failing its check."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers import cli_command, read_jsonl, run_cli, sage_rows, write_jsonl

RUN = ["run", "--no-progress", "--tasks", "sage"]


def text_file(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


def fifo(tmp: Path, name: str = "pipe") -> Path:
    path = tmp / name
    os.mkfifo(path)
    return path


def rows_with(tmp: Path, change: Callable[[str], str]) -> Path:
    """Two real SAGE rows; the first line's JSON text changed by `change`."""
    lines = [json.dumps(r, ensure_ascii=False) for r in sage_rows(2)]
    lines[0] = change(lines[0])
    return text_file(tmp, "rows.jsonl", "\n".join(lines) + "\n")


def a_symlink_loop(tmp: Path) -> str:
    os.symlink("loopy", tmp / "loopy")
    return "hf:loopy"


@dataclass
class Mistake:
    name: str
    args: Callable[[Path], list[str]]
    says: str
    code: int = 2
    env: dict[str, str] = field(default_factory=dict)


MISTAKES = [
    Mistake("t07 out = '' in a config", lambda t: [*RUN, "--config", str(text_file(t, "c.toml", 'out = ""\n'))],
            "config key 'out' is empty: give a file or folder"),
    Mistake("t13 max-retries = 2.7", lambda t: [*RUN, "--dump-config", "--config", str(text_file(
        t, "c.toml", "max-retries = 2.7\n"))], "config key 'max-retries' must be a whole number, got 2.7"),
    Mistake("t16 --config a FIFO nobody writes", lambda t: [*RUN, "--config", str(fifo(t))],
            "--config {t}/pipe: is a pipe that no process writes to"),
    Mistake("t17 --price-file a FIFO nobody writes", lambda t: [*RUN, "--model", "openai:m", "--base-url",
                                                                "http://127.0.0.1:9/v1", "--price-file", str(fifo(t))],
            "--price-file {t}/pipe: is a pipe that no process writes to"),
    Mistake("t18 --judge-prompt a FIFO nobody writes", lambda t: [
        "score", "russianregions", "--predictions", str(write_jsonl(t / "p.jsonl", [{"id": 0, "output": "Б"}])),
        "--judge-model", "openai:j", "--judge-base-url", "http://127.0.0.1:9/v1", "--judge-prompt", str(fifo(t))],
            "--judge-prompt {t}/pipe: is a pipe that no process writes to"),
    Mistake("a112 --data a FIFO nobody writes", lambda t: [*RUN, "--data", str(fifo(t))],
            "{t}/pipe: is a pipe that no process writes to"),
    Mistake("f09 hf:~nosuchuser/model", lambda t: [*RUN, "--model", "hf:~nosuchuser/model"],
            "~nosuchuser is no user's home folder on this machine"),
    Mistake("f02 hf: a symlink loop named like a hub id", lambda t: [*RUN, "--model", a_symlink_loop(t)],
            "could not load the model 'loopy': loopy cannot be read (Too many levels of symbolic links)",
            env={"HF_HUB_OFFLINE": "0", "HF_ENDPOINT": "http://127.0.0.1:9"}),
    Mistake("a87 --predictions a folder", lambda t: ["score", "sage", "--predictions", str(t), "--out", str(t / "o")],
            "--predictions {t}: is a folder; a file is expected here"),
    Mistake("a91 score --out a file", lambda t: ["score", "sage", "--predictions", str(write_jsonl(
        t / "p.jsonl", [{"id": 0, "output": "Привет, как дела? (0)"}])), "--out", str(text_file(t, "f.txt", "x"))],
            "--out {t}/f.txt: cannot create the folder ({t}/f.txt is a file)"),
    Mistake("b07 an id of 10^30", lambda t: [*RUN, "--data", str(rows_with(
        t, lambda line: line.replace('"id": 0', '"id": 1000000000000000000000000000000')))],
            "row id 1000000000000000000000000000000, field 'meta.id': must fit in 64 bits"),
    Mistake("b23 NaN and Infinity literals", lambda t: [*RUN, "--data", str(rows_with(
        t, lambda line: line.replace('"id": 0', '"id": 0, "score": NaN, "weight": Infinity')))],
            "rows.jsonl:1: not valid JSON (NaN is not a JSON value at column"),
]


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.name for m in MISTAKES])
def test_one_line_exit_2_and_nothing_written(mistake: Mistake, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    args = mistake.args(work)
    before = set(os.listdir(work))
    env = dict(mistake.env)  # the hub cache: the session's own, empty (conftest.py)
    result = run_cli(*args, env=env, timeout=30, cwd=work)  # a hang would be a time-out here, not a pass
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == mistake.code, result.stderr
    assert "Traceback" not in result.stderr
    assert len(lines) == 1 and mistake.says.format(t=work) in lines[0], result.stderr
    assert set(os.listdir(work)) == before, "nothing written, in the current folder either"


def test_a112_a_pipe_with_a_writer_is_still_read(tmp_path: Path) -> None:
    """The control: a pipe whose writer is there (`<(...)`, `cmd |`) is read to its end."""
    rows = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in sage_rows(3))
    done = subprocess.run(cli_command(*RUN, "--data", "/dev/stdin", "--out", str(tmp_path / "o")), input=rows,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(read_jsonl(tmp_path / "o" / "samples_sage.jsonl")) == 3


def test_t19_a_dumped_config_loads_back_to_the_same_values(tmp_path: Path) -> None:
    prompt = 'Ты — корректор.\r\x01\x7f "кавычки" \\ и\tтаб\nвторая строка'
    first = run_cli(*RUN, "--system-prompt", prompt, "--max-tokens", "300", "--dump-config")
    assert first.returncode == 0, first.stderr
    dumped = text_file(tmp_path, "dumped.toml", first.stdout)
    assert tomllib.loads(first.stdout)["system-prompt"] == prompt
    again = run_cli(*RUN, "--config", str(dumped), "--dump-config")
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout


def test_t13_a_whole_float_is_refused_too_and_an_integer_taken(tmp_path: Path) -> None:
    refused = run_cli(*RUN, "--dump-config", "--config", str(text_file(tmp_path, "a.toml", "max-retries = 2.0\n")))
    assert refused.returncode == 2 and "must be a whole number, got 2.0" in refused.stderr
    taken = run_cli(*RUN, "--dump-config", "--config", str(text_file(tmp_path, "b.toml", "max-retries = 7\n")))
    assert taken.returncode == 0 and "max-retries = 7" in taken.stdout


def test_b45_a_null_prediction_stays_an_error_row(tmp_path: Path) -> None:
    """Documented (docs/troubleshooting.md): a saved request that failed is `"output": null`; it
    is scored as a failed row, not refused."""
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": 0, "output": None}, {"id": 1, "output": "Я не знаю, что сказать"}])
    done = run_cli("score", "sage", "--predictions", str(preds), "--out", str(tmp_path / "s"))
    assert done.returncode == 0, done.stderr
    statuses = {r["id"]: r["status"] for r in read_jsonl(tmp_path / "s" / "samples_sage.jsonl")}
    assert statuses[0] == "error" and statuses[1] == "ok"


# -- g15, g20: the manifest of a generated set -----------------------------------------------------

@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("gh") / "set"
    done = run_cli("generate", "gorillahard", "--seed", "5", "--rows", "200", "--dialogues", "4", "--out", str(folder))
    assert done.returncode == 0, done.stderr
    return folder


def manifest_changed(folder: Path, change: Callable[[Path], None]) -> None:
    change(folder / "manifest.json")


def foreign(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc.update(seed=2**70, generator="merabench.gorillahard/v999")
    path.write_text(json.dumps(doc), encoding="utf-8")


@pytest.mark.parametrize(("change", "says"), [
    (lambda p: p.unlink(), "FAIL manifest                 no manifest.json: which generator and seed made this set"),
    (foreign, "FAIL manifest                 manifest.json made by 'merabench.gorillahard/v999'"),
], ids=["g15 manifest.json deleted", "g20 another generator and a seed of 2^70"])
def test_a_set_whose_manifest_is_missing_or_foreign_fails_its_check(change: Callable[[Path], None], says: str,
                                                                     generated: Path, tmp_path: Path) -> None:
    folder = Path(shutil.copytree(generated, tmp_path / "set"))
    change(folder / "manifest.json")
    done = run_cli("validate", "gorillahard", str(folder))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert says in done.stdout, done.stdout
    if "v999" in says:
        assert "its seed 1180591620717411303424 is no seed generate takes" in done.stdout


def test_the_generators_own_manifest_passes(generated: Path) -> None:
    done = run_cli("validate", "gorillahard", str(generated))
    assert done.returncode == 0, done.stdout
    assert "ok   manifest" in done.stdout and ", seed 5" in done.stdout


if sys.platform != "linux":  # FIFOs and /proc are what these cases are about
    pytestmark = pytest.mark.skip(reason="Linux only")


# -- from the outside helper's 30 cases (its #15, #18, #26, #29, #30) ------------------------------

MORE = [
    Mistake("out = a list in a config", lambda t: [*RUN, "--config", str(text_file(t, "c.toml", 'out = ["a", "b"]\n'))],
            "config key 'out' takes one path, not a list"),
    Mistake("--concurrency 10^7", lambda t: [*RUN, "--concurrency", "10000000"],
            "--concurrency must be auto or a whole number from 1 to 10,000"),
    Mistake("--retry-delay 1e300", lambda t: [*RUN, "--retry-delay", "1e300"], "--retry-delay"),
    Mistake("generate more rows than the families hold", lambda t: [
        "generate", "gorillahard", "--seed", "0", "--rows", "1600", "--out", str(t / "g")],
            "--rows 1600: the generator could not draw a question unlike the others"),
]


@pytest.mark.parametrize("mistake", MORE, ids=[m.name for m in MORE])
def test_more_mistakes_are_one_line(mistake: Mistake, tmp_path: Path) -> None:
    test_one_line_exit_2_and_nothing_written(mistake, tmp_path)


def test_dump_config_masks_the_credentials_of_extra_body() -> None:
    body = '{"api_key": "TOPSECRET12345abc", "x": {"password": "PASSWORDSECRET999"}}'
    dumped = run_cli(*RUN, "--extra-body", body, "--dump-config")
    assert dumped.returncode == 0, dumped.stderr
    assert "TOPSECRET12345abc" not in dumped.stdout and "PASSWORDSECRET999" not in dumped.stdout
    assert "extra-body" in dumped.stdout
