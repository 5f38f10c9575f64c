"""Cases an outside tester found against the run folder, the cache, the budget's advice and the
summary (issue 44's second hostile pass): each one line and exit 2 before anything is written,
or output a person can use as it is printed."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from fakeserver import FakeServer
from helpers import RUSPELLRU, read_jsonl, run_cli, sage_rows, write_jsonl

DATA = RUSPELLRU


def pairs_folder(folder: Path, n: int = 3) -> Path:
    sources = (DATA / "sources.txt").read_text(encoding="utf-8").splitlines()[:n]
    corrections = (DATA / "corrections.txt").read_text(encoding="utf-8").splitlines()[:n]
    folder.mkdir(parents=True)
    write_jsonl(folder / "pairs.jsonl", [{"source": s, "correction": c} for s, c in zip(sources, corrections, strict=True)])
    return folder


def test_x17_the_folder_data_reads_is_refused_as_out(tmp_path: Path) -> None:
    """Before: the first run wrote its files among the pairs, and every later run was refused
    ('holds its test pairs in more than one format'): the folder could never resume."""
    folder = pairs_folder(tmp_path / "pairs")
    done = run_cli("run", "--model", "reference", "--tasks", "sage", "--data", f"sage=spellcheck:{folder}",
                   "--out", str(folder), "--no-progress")
    assert done.returncode == 2 and "is the folder --data spellcheck:" in done.stderr, done.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["pairs.jsonl"]


def test_x19_a_cache_path_on_a_run_file_is_refused_before_anything_is_made(tmp_path: Path) -> None:
    """Before: an SQLite database named samples_sage.jsonl was made in the folder, which every later
    run then refused."""
    out = tmp_path / "out"
    with FakeServer() as server:
        done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--tasks", "sage", "--limit", "2",
                       "--cache-path", str(out / "samples_sage.jsonl"), "--out", str(out), "--no-progress")
        assert not server.requests
    assert done.returncode == 2 and "--cache-path" in done.stderr and "the other output" in done.stderr
    assert not out.exists()


def test_x30_the_command_that_continues_runs_as_printed_and_prints_no_key(tmp_path: Path) -> None:
    """Before: it held `--api-key ***` (the key masked), which a shell expands to file names."""
    key = "sk-live-abcdefghijklmnop123"
    rows = write_jsonl(tmp_path / "rows.jsonl", sage_rows(40))
    reply = {"content": "x", "usage": {"prompt_tokens": 100, "completion_tokens": 10}}
    with FakeServer(reply=lambda body: reply, latency_s=0.05) as server:
        done = run_cli("run", "--model", "openai:m", "--base-url", server.url, "--api-key", key, "--tasks", "sage",
                       "--data", str(rows), "--price-in", "1000", "--price-out", "1000", "--max-cost", "1",
                       "--concurrency", "1", "--out", str(tmp_path / "out"), "--no-progress")
        assert done.returncode == 3, done.stderr
        command = json.loads((tmp_path / "out" / "results.json").read_text())["stopped"]["continue"]
        assert key not in command and "***" not in command and '--api-key "$OPENAI_API_KEY"' in command
        words = shlex.split(command.replace('"$OPENAI_API_KEY"', shlex.quote(key)))
        assert words[0] == "merabench" and "--max-cost" not in words
        resumed = run_cli(*words[1:])
    assert resumed.returncode == 0, resumed.stderr
    assert len(read_jsonl(tmp_path / "out" / "samples_sage.jsonl")) == 40


def test_x25_a_narrow_terminal_gets_the_figures_as_lines(tmp_path: Path) -> None:
    """Before: at 20 to 40 columns rich squeezed the table until no score could be read."""
    done = run_cli("run", "--model", "reference", "--out", str(tmp_path / "out"), "--no-progress",
                   env={"COLUMNS": "40"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "sage: 65 rows, 0 errors, tokens 0/0" in lines and "  errant_f1 1.0000 (n 65)" in lines
    assert "  sample_pass_rate 1.0000 (n 27)" in lines
    wide = run_cli("run", "--model", "reference", "--out", str(tmp_path / "out"), "--no-progress",
                   env={"COLUMNS": "160"})
    assert "┃ task" in wide.stdout  # a terminal wide enough keeps the table
