"""`merabench compare`: paired differences between two runs on the same rows."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from helpers import run_cli

from merabench.stats import bootstrap_means, interval, paired_difference


def test_bootstrap_and_paired_difference_are_seeded_and_sane() -> None:
    values = np.array([0.0, 1.0] * 50)
    assert interval(bootstrap_means(values)) == interval(bootstrap_means(values))
    low, high = interval(bootstrap_means(values))
    assert low < 0.5 < high
    graded = np.array([0.1, 0.9, 0.5, 0.7] * 25)  # not 0/1: resampled row by row
    low, high = interval(bootstrap_means(graded))
    assert low < graded.mean() < high
    same = paired_difference([0.2, 0.4, 0.6], [0.2, 0.4, 0.6])
    assert same["difference"] == 0 and same["low"] == same["high"] == 0
    better = paired_difference([0.0] * 10, [1.0] * 10)
    assert better["second_better"] == 10 and better["low"] == 1.0


def test_compare_two_runs(tmp_path: Path) -> None:
    for name, model in (("a", "copy"), ("b", "reference")):
        assert run_cli("run", "--model", model, "--out", str(tmp_path / name), "--no-progress").returncode == 0
    result = run_cli("compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json", str(tmp_path / "c.json"))
    assert result.returncode == 0, result.stderr
    doc = json.loads((tmp_path / "c.json").read_text())
    assert doc["gorillahard"]["sample_pass_rate"]["difference"] == 1.0
    assert doc["gorillahard"]["tool_match_rate"]["n"] == 22  # only the rows that need a call
    assert doc["sage"]["errant_f1"]["low"] > 0
    assert run_cli("compare", str(tmp_path / "a"), str(tmp_path / "nothing")).returncode == 2
