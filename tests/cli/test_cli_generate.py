"""`merabench generate` from the command line: which seeds and sizes it takes and what it says
when it cannot, and which folders it writes into."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli

SMALL = ("--rows", "200")  # the smallest sizes a set of 30 dialogues can have, for speed


@pytest.mark.parametrize("seed", [str(2**64), str(2**63), str(-(2**63) - 1)])
def test_generate_takes_the_seeds_run_takes(tmp_path: Path, seed: str) -> None:
    made = run_cli("generate", "gorillahard", "--seed", seed, "--out", str(tmp_path / "g"))
    ran = run_cli("run", "--tasks", "sage", "--seed", seed, "--no-progress", "--out", str(tmp_path / "r"))
    assert made.returncode == ran.returncode == 2, made.stderr
    assert made.stderr == ran.stderr  # the same check says the same line
    assert f"Invalid value for '--seed': {seed} is not in the range" in made.stderr
    assert not (tmp_path / "g").exists()
    data = run_cli("run", "--tasks", "gorillahard", "--data", f"generated:{seed}", "--no-progress",
                   "--out", str(tmp_path / "r"))
    assert data.returncode == 2 and f"--data generated:{seed}: the seed must be" in data.stderr
    assert "-9223372036854775808" in data.stderr and "9223372036854775807" in data.stderr


def test_generate_takes_the_largest_and_smallest_seed(tmp_path: Path) -> None:
    for seed in (2**63 - 1, -(2**63)):
        made = run_cli("generate", "gorillahard", "--seed", str(seed), *SMALL, "--out", str(tmp_path / str(seed)))
        assert made.returncode == 0, made.stderr
        assert json.loads((tmp_path / str(seed) / "manifest.json").read_text())["seed"] == seed


def set_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_generate_refuses_a_folder_holding_a_set_unless_forced(tmp_path: Path) -> None:
    out = tmp_path / "g"
    assert run_cli("generate", "gorillahard", "--seed", "5", *SMALL, "--out", str(out)).returncode == 0
    first = set_files(out)
    again = run_cli("generate", "gorillahard", "--seed", "6", *SMALL, "--out", str(out))
    assert again.returncode == 2 and "Traceback" not in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1, again.stderr
    assert f"--out {out} already holds a generated set (seed 5, 200 rows, 30 dialogues, " in again.stderr
    assert "merabench.gorillahard/" in again.stderr and "--force" in again.stderr
    assert set_files(out) == first, "the refused command wrote into the folder"

    forced = run_cli("generate", "gorillahard", "--seed", "6", *SMALL, "--out", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert json.loads((out / "manifest.json").read_text())["seed"] == 6
    assert "--force" in run_cli("generate", "--help").stdout


def test_generate_refuses_an_unfinished_set_and_writes_beside_other_files(tmp_path: Path) -> None:
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    (unfinished / "test.jsonl").write_text("{}\n", encoding="utf-8")  # a set cut off before its manifest
    refused = run_cli("generate", "gorillahard", *SMALL, "--out", str(unfinished))
    assert refused.returncode == 2 and f"--out {unfinished} already holds test.jsonl" in refused.stderr
    assert "no manifest.json" in refused.stderr and (unfinished / "test.jsonl").read_text() == "{}\n"

    for name, made in (("empty", True), ("notes", True), ("new", False)):
        folder = tmp_path / name
        if made:
            folder.mkdir()
        if name == "notes":
            (folder / "README.txt").write_text("мои заметки\n", encoding="utf-8")
        written = run_cli("generate", "gorillahard", *SMALL, "--out", str(folder))
        assert written.returncode == 0, written.stderr
        assert {"test.jsonl", "shots.jsonl", "manifest.json"} <= set(set_files(folder))
    assert (tmp_path / "notes" / "README.txt").read_text(encoding="utf-8") == "мои заметки\n"


@pytest.mark.parametrize(("rows", "dialogues", "says", "works"), [
    ("10", "30", "--dialogues 30 must be fewer than --rows 10", [("198", "30")]),
    ("200", "70", "--rows 200 with --dialogues 70 leaves 130 single-turn rows; a set needs at least 168",
     [("238", "70"), ("200", "32")]),
    ("100", "0", "--rows 100 with --dialogues 0 leaves 100 single-turn rows", [("168", "0")]),
])
def test_generate_sizes_it_cannot_make_are_refused_with_the_sizes_that_work(
        tmp_path: Path, rows: str, dialogues: str, says: str, works: list[tuple[str, str]]) -> None:
    refused = run_cli("generate", "gorillahard", "--rows", rows, "--dialogues", dialogues, "--out", str(tmp_path / "x"))
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert says in refused.stderr, refused.stderr
    for good_rows, good_dialogues in works:  # what the line proposes is what generate then makes
        hint = f"--rows {good_rows} or more" if good_rows != rows else f"--dialogues {good_dialogues} or fewer"
        assert hint in refused.stderr, refused.stderr
        folder = tmp_path / f"{good_rows}-{good_dialogues}"
        made = run_cli("generate", "gorillahard", "--rows", good_rows, "--dialogues", good_dialogues, "--out", str(folder))
        assert made.returncode == 0, made.stderr
        manifest = json.loads((folder / "manifest.json").read_text())
        assert (manifest["rows"], manifest["dialogues"]) == (int(good_rows), int(good_dialogues))
    assert not (tmp_path / "x").exists()


def test_a_bug_in_the_generator_is_not_reported_as_a_configuration_error(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the sizes a user gives are configuration errors (checked before generating); a
    ValueError from inside the generator is a bug and surfaces as one, not as 'error: ...' exit 2."""
    from merabench.cli.main import main
    from merabench.tasks.gorillahard.generator.build import generate as build

    def broken(plan: build.SetPlan) -> tuple[list[dict], list[dict]]:
        raise ValueError("cannot inflect сервер to masc gent")  # what numerals.py raises on a bad lemma

    monkeypatch.setattr(build, "generate", broken)
    with pytest.raises(ValueError, match="cannot inflect"):
        main(["generate", "gorillahard", *SMALL, "--out", str(tmp_path / "g")])
