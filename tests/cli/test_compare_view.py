"""`merabench compare` in 80 and 120 columns: every line fits, no name or number is cut, and the
notes say why rows were left out and which generation settings differ."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from helpers import cli_command, run_cli

CUT = re.compile(r"\S…")  # rich's cut cell ends in "…" right after the text; an interval is "a … b"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("runs")
    made = {}
    for name, args in (("reference", ["--model", "reference"]), ("copy", ["--model", "copy"]),
                       ("random", ["--model", "random"]),
                       ("copy_limited", ["--model", "copy", "--limit", "10", "--max-tokens", "256"])):
        made[name] = base / name
        done = run_cli("run", *args, "--out", str(made[name]), "--no-progress")
        assert done.returncode == 0, done.stderr
    return made


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("which", [("copy", "random"), ("reference", "copy", "random")], ids=["two", "three"])
def test_compare_fits_the_terminal_and_cuts_nothing(runs: dict[str, Path], width: int, which: tuple[str, ...]) -> None:
    done = run_cli("compare", *(str(runs[name]) for name in which), env={"COLUMNS": str(width)})
    assert done.returncode == 0, done.stderr
    folders = tuple(str(runs[name]) for name in which)
    # a run's folder is printed whole on its own line, to be copied: the rest is laid out to fit
    lines = [line for line in done.stdout.splitlines() if not any(f in line for f in folders) or "   " in line]
    assert lines and max(len(line) for line in lines) <= width, [line for line in lines if len(line) > width]
    assert not [line for line in lines if CUT.search(line)]
    digits = 4 if width >= 110 else 3
    figures = re.findall(r"[+-]?\d+\.\d+", done.stdout)
    assert figures and all(len(f.split(".")[1]) == digits for f in figures)
    for metric in ("errant_f1", "exact_match", "sample_pass_rate"):
        assert metric in done.stdout


def test_compare_says_why_rows_were_left_out_and_which_settings_differ(runs: dict[str, Path]) -> None:
    done = run_cli("compare", str(runs["copy"]), str(runs["copy_limited"]))
    assert done.returncode == 0, done.stderr
    assert f"left out (--limit: none in {runs['copy']}, 10 in {runs['copy_limited']})" in done.stderr
    assert (f"different generation settings (max_tokens 4096 in {runs['copy']}, 256 in {runs['copy_limited']})"
            in done.stderr)


@pytest.mark.parametrize("which", [("copy", "random"), ("reference", "copy", "random")], ids=["two", "three"])
def test_piped_compare_without_columns_fits_80_and_ends_no_line_in_blanks(runs: dict[str, Path],
                                                                          which: tuple[str, ...]) -> None:
    """Before: piped with no $COLUMNS, tables were laid out for 160 columns (lines of 102) and every
    line was padded with blanks to the table's width."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    done = subprocess.run(cli_command("compare", *(str(runs[name]) for name in which)), capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    folders = tuple(str(runs[name]) for name in which)
    lines = [line for line in done.stdout.splitlines() if not any(f in line for f in folders) or "   " in line]
    assert max(len(line) for line in lines) <= 80, [line for line in lines if len(line) > 80]
    assert not [line for line in done.stdout.splitlines() if line != line.rstrip()]
