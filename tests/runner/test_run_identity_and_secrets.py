"""Hostile cases of round III on a run folder's identity and the run's secrets (x01, x03-x05,
s07-s10, s13 of shared/cases/hostile3.md): a folder whose run cannot be identified is refused,
never resumed with another model's answers; a key that cannot be sent or masked safely is one
line before anything is written; a key in its reversible encodings, or as the model's name, is
masked everywhere, and the identical rerun still resumes."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import read_jsonl, run_cli

KEY = "sk-proj-B64LEAKTEST0123456789"


def run_args(url: str, out: Path, model: str = "openai:model-a", key: str | None = None) -> list[str]:
    args = ["run", "--no-progress", "--tasks", "russianregions", "--model", model, "--base-url", url,
            "--out", str(out), "--cache-path", str(out.parent / "cache" / "c.sqlite")]
    return args + (["--api-key", key] if key is not None else [])


def written(folder: Path) -> str:
    """Every byte under `folder` (the sqlite cache and its WAL included), as text."""
    return "".join(p.read_bytes().decode("utf-8", "replace") for p in sorted(folder.rglob("*")) if p.is_file())


# -- x03-x05: run.json damaged, then another model into the folder ------------------------------

@dataclass
class Damage:
    name: str
    damage: Callable[[Path], None]
    says: str


def cut_in_half(run_json: Path) -> None:
    text = run_json.read_text(encoding="utf-8")
    run_json.write_text(text[: len(text) // 2], encoding="utf-8")


DAMAGES = [
    Damage("x03 run.json cut in half", cut_in_half, "run.json is cut short or not JSON"),
    Damage("x04 run.json replaced by []", lambda p: p.write_text("[]"), "run.json is not a JSON object"),
    Damage("x05 run.json deleted", lambda p: p.unlink(), "but no run.json"),
    Damage("run.json an object naming no model", lambda p: p.write_text("{}"), "run.json names no model"),
]


@pytest.mark.parametrize("case", DAMAGES, ids=[d.name for d in DAMAGES])
def test_a_folder_whose_run_cannot_be_identified_is_refused(case: Damage, tmp_path: Path, fake_server) -> None:
    out = tmp_path / "out"
    first = run_cli(*run_args(fake_server.url, out))
    assert first.returncode == 0, first.stderr
    asked = len(fake_server.requests)
    samples = (out / "samples_russianregions.jsonl").read_bytes()
    case.damage(out / "run.json")

    second = run_cli(*run_args(fake_server.url, out, model="openai:model-b"))

    lines = [line for line in second.stderr.splitlines() if line.strip()]
    assert second.returncode == 2, second.stderr
    assert len(lines) == 1 and case.says in lines[0] and "use another --out" in lines[0], second.stderr
    assert len(fake_server.requests) == asked, "model B was asked nothing, and got none of model A's answers"
    assert (out / "samples_russianregions.jsonl").read_bytes() == samples, "model A's answers are kept as they were"


def test_an_intact_folder_resumes_and_another_model_is_named(tmp_path: Path, fake_server) -> None:
    """The control: an intact run.json resumes the same model and names the other one."""
    out = tmp_path / "out"
    assert run_cli(*run_args(fake_server.url, out)).returncode == 0
    asked = len(fake_server.requests)
    assert run_cli(*run_args(fake_server.url, out)).returncode == 0
    assert len(fake_server.requests) == asked
    other = run_cli(*run_args(fake_server.url, out, model="openai:model-b"))
    assert other.returncode == 2 and '--model "openai:model-a" in the folder' in other.stderr, other.stderr


# -- x01, s08-s10: refused before anything is written --------------------------------------------

@dataclass
class Refusal:
    name: str
    args: Callable[[Path, str], list[str]]
    says: str


def a_text_file(tmp: Path) -> Path:
    path = tmp / "f.txt"
    path.write_text("заметки, не папка\n", encoding="utf-8")
    return path


REFUSALS = [
    Refusal("x01 --out an existing file", lambda t, u: run_args(u, a_text_file(t)), "f.txt: cannot create the folder"),
    Refusal("s08 a key with a line break", lambda t, u: run_args(u, t / "out", key="sk-ABCDEFGH\nX-Evil: 1"),
            "the API key (--api-key, $OPENAI_API_KEY) holds a line break"),
    Refusal("s09 a key with Cyrillic letters", lambda t, u: run_args(u, t / "out", key="sk-ключ-секрет"),
            "holds 'к', a non-ASCII character"),
    Refusal("s10 a key that is a piece of JSON", lambda t, u: run_args(u, t / "out", key='"status":"ok"'),
            "holds '\"', which no API key holds"),
    Refusal("the judge's key with a space", lambda t, u: [*run_args(u, t / "out"), "--judge-model", "openai:j",
                                                          "--judge-base-url", u, "--judge-api-key", "sk-judge key"],
            "the judge's API key (--judge-api-key, $LM_EVAL_JUDGE_API_KEY) holds ' '"),
]


@pytest.mark.parametrize("case", REFUSALS, ids=[r.name for r in REFUSALS])
def test_refused_with_one_line_before_anything_is_written(case: Refusal, tmp_path: Path, fake_server) -> None:
    args = case.args(tmp_path, fake_server.url)  # makes what the case needs (a file named as --out)
    before = {p.name for p in tmp_path.iterdir()}
    result = run_cli(*args)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and case.says in lines[0], result.stderr
    assert "Traceback" not in result.stderr
    made = {p.name for p in tmp_path.iterdir()} - before
    assert not made, f"written before the refusal: {made}"
    assert not fake_server.requests


# -- s07, s13: masked in every form, and the rerun resumes ----------------------------------------

def encodings_of(key: str) -> list[str]:
    raw = key.encode()
    return [base64.b64encode(raw).decode(), base64.urlsafe_b64encode(b"Bearer " + raw).decode().rstrip("="),
            base64.b64encode(b"\x89PNG" + raw + b"\x00\x01").decode()]


def test_s07_a_key_echoed_base64_encoded_is_masked_in_every_file(tmp_path: Path, make_server) -> None:
    blobs = encodings_of(KEY)
    server = make_server(reply=lambda body: "Ответ: Б. Подпись: " + " ".join(blobs) + f" data:{KEY}==")
    out = tmp_path / "out"
    result = run_cli(*run_args(server.url, out, key=KEY))
    assert result.returncode == 0, result.stderr
    everything = written(tmp_path) + result.stderr + result.stdout
    assert "Ответ: Б. Подпись:" in everything, "the answers were written"
    for blob in blobs:
        for piece in (blob, blob[4:-4]):
            assert piece not in everything, f"an encoding of the key was written: {piece}"
    assert KEY not in everything
    # the answers stay JSON: masking acted inside the strings
    assert all(isinstance(line["output"], str) for line in read_jsonl(out / "samples_russianregions.jsonl"))


def test_s13_a_key_that_is_also_the_model_name_is_masked_and_the_rerun_resumes(tmp_path: Path, fake_server) -> None:
    key = "sk-MODELNAMEKEY123456789"
    out = tmp_path / "out"
    first = run_cli(*run_args(fake_server.url, out, model=f"openai:{key}", key=key))
    assert first.returncode == 0, first.stderr
    asked = len(fake_server.requests)
    assert asked > 0
    assert key not in written(tmp_path), "the key is masked everywhere, the cache's model column included"
    assert json.loads((out / "run.json").read_text(encoding="utf-8"))["model"] == "openai:***"

    again = run_cli(*run_args(fake_server.url, out, model=f"openai:{key}", key=key))
    assert again.returncode == 0, again.stderr
    assert len(fake_server.requests) == asked, "the identical rerun asks nothing again"
    assert key not in written(tmp_path) + again.stderr + again.stdout


# -- the run's own files, from the outside helper's 30 cases (its #19, #21, #22) -------------------

def a_fifo(path: Path) -> None:
    import os

    path.unlink()
    os.mkfifo(path)


def a_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def a_link_outside(path: Path) -> None:
    outside = path.parent.parent / "elsewhere.jsonl"
    outside.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(outside)


OWN_FILES = [
    ("run.json a FIFO", "run.json", a_fifo, "run.json is no regular file"),
    ("the samples file a folder", "samples_russianregions.jsonl", a_folder, "samples_russianregions.jsonl is a folder"),
    ("the samples file a link outside the folder", "samples_russianregions.jsonl", a_link_outside,
     "samples_russianregions.jsonl is a symbolic link"),
]


@pytest.mark.parametrize(("name", "damage"), [(o[1], o[2:]) for o in OWN_FILES], ids=[o[0] for o in OWN_FILES])
def test_a_run_file_that_is_no_regular_file_is_refused(name: str, damage: tuple, tmp_path: Path, fake_server) -> None:
    change, says = damage
    out = tmp_path / "out"
    assert run_cli(*run_args(fake_server.url, out)).returncode == 0
    asked = len(fake_server.requests)
    outside = tmp_path / "elsewhere.jsonl"
    change(out / name)
    before = outside.read_bytes() if outside.exists() else None
    again = run_cli(*run_args(fake_server.url, out), timeout=30)
    lines = [line for line in again.stderr.splitlines() if line.strip()]
    assert again.returncode == 2 and len(lines) == 1 and says in lines[0], again.stderr
    assert len(fake_server.requests) == asked
    if before is not None:
        assert outside.read_bytes() == before, "nothing appended to a file outside the run folder"
