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
