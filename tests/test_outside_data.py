"""An outside tester's cases on SAGE pair files (x10, x11, x14 of /tmp/outside): a pair that is no
text is one line, a pair file of one huge pair is scored in memory a bounded multiple of the file,
and a pipe or standard input is read as a pair file. Real RUSpellRU pairs (tests/data/ruspellru)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import cli_command, read_jsonl, run_cli

PAIRS = Path(__file__).parent / "data" / "ruspellru"


def pairs(n: int = 12) -> list[dict[str, str]]:
    sources = (PAIRS / "sources.txt").read_text(encoding="utf-8").splitlines()[:n]
    corrections = (PAIRS / "corrections.txt").read_text(encoding="utf-8").splitlines()[:n]
    return [{"source": s, "correction": c} for s, c in zip(sources, corrections, strict=True)]


def jsonl_text(items: list[Any]) -> str:
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)


# -- x10: a lone surrogate escape in a pair ------------------------------------------------------

@pytest.mark.parametrize(("name", "text", "said"), [
    ("s.jsonl", "".join(json.dumps(p) + "\n" for p in [*pairs(2), {"source": "a\ud800b", "correction": "ab"}]),
     "s.jsonl:3: 'source' holds a lone surrogate escape"),
    ("s.json", json.dumps([*pairs(2), {"source": "ab", "correction": "a\udfffb"}]),
     "s.json: entry 2: 'correction' holds a lone surrogate escape"),
], ids=["JSONL", "a JSON list"])
def test_x10_a_lone_surrogate_in_a_pair_is_one_line_naming_file_and_line(tmp_path: Path, name: str, text: str,
                                                                         said: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="ascii")  # json.dumps escapes the surrogate: \ud800
    done = run_cli("run", "--model", "reference", "--tasks", "sage", "--data", f"sage=spellcheck:{path}",
                   "--out", str(tmp_path / "out"), "--no-progress")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-3000:]
    assert said in lines[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


# -- x11: one huge pair, in memory a bounded multiple of the file -------------------------------

PEAK = """
import atexit, runpy, sys
def peak():
    status = open("/proc/self/status").read()
    print(next(l for l in status.splitlines() if l.startswith("VmHWM")).split()[1], file=sys.stderr)
atexit.register(peak)
sys.argv = ["merabench", *sys.argv[1:]]
runpy.run_module("merabench.cli.main", run_name="__main__")
"""


def peak_kib_of_run(path: Path, out: Path) -> int:
    """A reference run of SAGE on a pair file, in a child process whose own VmHWM (its peak
    resident memory, from /proc/self/status: not ru_maxrss, which a fork carries over from its
    parent) it prints as it exits."""
    done = subprocess.run([sys.executable, "-c", PEAK, "run", "--model", "reference", "--tasks", "sage", "--data",
                           f"sage=spellcheck:{path}", "--out", str(out), "--no-progress"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return int(done.stderr.strip().splitlines()[-1])


def test_x11_a_pair_file_of_one_huge_pair_is_scored_in_a_bounded_multiple_of_its_size(tmp_path: Path) -> None:
    small, huge = tmp_path / "small.jsonl", tmp_path / "huge.jsonl"
    small.write_text(jsonl_text([{"source": "я", "correction": "x"}]), encoding="utf-8")
    huge.write_text(jsonl_text([{"source": "я" * 5_000_000, "correction": "x"}]), encoding="utf-8")  # 10 MB
    grown = peak_kib_of_run(huge, tmp_path / "huge") - peak_kib_of_run(small, tmp_path / "small")
    assert grown * 1024 < 20 * huge.stat().st_size, grown  # was 41 times the file: the aligner held 64 bytes a letter


# -- x14: a pipe or standard input as a pair file ------------------------------------------------

def pair_bytes(form: str, items: list[dict[str, str]], tmp: Path) -> bytes:
    if form == "jsonl":
        return jsonl_text(items).encode()
    if form == "json list":
        return json.dumps(items, ensure_ascii=False, indent=1).encode()
    if form == "csv":
        import csv
        import io

        text = io.StringIO(newline="")
        writer = csv.DictWriter(text, fieldnames=["source", "correction"])
        writer.writeheader()
        writer.writerows(items)
        return text.getvalue().encode()
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(items), tmp / "p.parquet")
    return (tmp / "p.parquet").read_bytes()


@pytest.mark.parametrize("form", ["jsonl", "json list", "csv", "parquet"])
@pytest.mark.parametrize("way", ["standard input", "a pipe"])
def test_x14_a_pipe_or_standard_input_is_read_as_a_pair_file(tmp_path: Path, form: str, way: str) -> None:
    data = pair_bytes(form, pairs(), tmp_path)
    args = ["run", "--model", "reference", "--tasks", "sage", "--out", str(tmp_path / "out"), "--no-progress"]
    if way == "standard input":
        done = subprocess.run(cli_command(*args, "--data", "sage=spellcheck:-"), input=data, capture_output=True,
                              timeout=120)
    else:  # as the shell's <(cat pairs) gives it: /dev/fd/N, a pipe a writer fills
        read, write = os.pipe()

        def fill() -> None:
            with os.fdopen(write, "wb") as fh:
                fh.write(data)

        writer = threading.Thread(target=fill, daemon=True)
        writer.start()
        try:
            done = subprocess.run(cli_command(*args, "--data", f"sage=spellcheck:/dev/fd/{read}"), pass_fds=(read,),
                                  capture_output=True, timeout=120)
        finally:
            os.close(read)
            writer.join(10)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    records = read_jsonl(tmp_path / "out" / "samples_sage.jsonl")
    assert [r["id"] for r in records] == list(range(len(pairs())))
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert results["tasks"]["sage"]["metrics"]["errant_f1"] == 1.0  # the reference: the pairs read as they are
