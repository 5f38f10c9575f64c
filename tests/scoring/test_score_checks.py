"""`score` refuses answers that were not made for the rows it scores: merabench samples whose
messages hash says they answer other prompts (another data set), and another task's answers
(by their shape), whatever the file is called."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

from helpers import cli_command, run_cli


def test_samples_made_on_other_data_are_refused_naming_the_data(tmp_path: Path) -> None:
    gen, run = tmp_path / "gen", tmp_path / "run"
    assert run_cli("generate", "gorillahard", "--rows", "180", "--dialogues", "3", "--out", str(gen)).returncode == 0
    assert run_cli("run", "--model", "reference", "--tasks", "gorillahard", "--data", str(gen), "--out", str(run),
                   "--no-progress").returncode == 0
    samples = run / "samples_gorillahard.jsonl"
    wrong = run_cli("score", "gorillahard", "--predictions", str(samples), "--out", str(tmp_path / "a"))
    assert wrong.returncode == 2, wrong.stderr
    message = " ".join(wrong.stderr.split())
    assert "made on other data" in message and f"pass --data {gen}" in message
    assert not (tmp_path / "a" / "results.json").exists()
    right = run_cli("score", "gorillahard", "--predictions", str(samples), "--data", str(gen), "--out",
                    str(tmp_path / "b"))
    assert right.returncode == 0, right.stderr
    assert json.loads((tmp_path / "b" / "results.json").read_text())["metrics"]["sample_pass_rate"] == 1.0
    alone = shutil.copy(samples, tmp_path / "moved.jsonl")  # no run folder beside it to say which data
    moved = run_cli("score", "gorillahard", "--predictions", str(alone), "--out", str(tmp_path / "c"))
    assert moved.returncode == 2 and "pass the --data they were made on" in " ".join(moved.stderr.split())


def test_samples_of_a_run_with_a_system_prompt_score_in_place(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert run_cli("run", "--model", "reference", "--tasks", "sage", "--system-prompt", "Исправляй ошибки.",
                   "--out", str(run), "--no-progress").returncode == 0
    done = run_cli("score", "sage", "--predictions", str(run / "samples_sage.jsonl"), "--out", str(tmp_path / "s"))
    assert done.returncode == 0, done.stderr


def test_another_tasks_answers_are_refused_by_their_shape(tmp_path: Path) -> None:
    run, sub = tmp_path / "run", tmp_path / "sub.zip"
    assert run_cli("run", "--model", "reference", "--out", str(run), "--no-progress").returncode == 0
    assert run_cli("submission", "--allow-unofficial", "--run", str(run), "--out", str(sub)).returncode == 0
    with zipfile.ZipFile(sub) as zf:
        files = {name: zf.read(f"{name}.json") for name in ("SAGE", "RussianRegions", "GorillaHard")}
    for name, data in files.items():
        (tmp_path / f"{name}-renamed.json").write_bytes(data)
    for task, name, told in (("sage", "GorillaHard", "gorillahard"), ("sage", "RussianRegions", "russianregions"),
                             ("russianregions", "GorillaHard", "gorillahard"),
                             ("gorillahard", "RussianRegions", "russianregions")):
        renamed = run_cli("score", task, "--predictions", str(tmp_path / f"{name}-renamed.json"),
                          "--out", str(tmp_path / f"{task}-{name}"))
        assert renamed.returncode == 2, (task, name, renamed.stderr)
        assert f"`merabench score {told}`" in " ".join(renamed.stderr.split())
    piped = subprocess.run(cli_command("score", "sage", "--predictions", "-", "--out", str(tmp_path / "p")),
                           input=files["GorillaHard"], capture_output=True, timeout=120)
    assert piped.returncode == 2 and b"GorillaHard answers" in piped.stderr
    for task, name in (("sage", "SAGE"), ("russianregions", "RussianRegions"), ("gorillahard", "GorillaHard")):
        own = run_cli("score", task, "--predictions", str(tmp_path / f"{name}-renamed.json"),
                      "--out", str(tmp_path / f"own-{task}"))
        assert own.returncode == 0, (task, own.stderr)
