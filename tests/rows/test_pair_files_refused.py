"""Hostile cases of round IV on `--data sage=spellcheck:PATH|SUBSET` (p12, p17, p19, p22, p25, p28
of shared/cases/hostile4.md, and a CSV of pairs given without `spellcheck:`): a pair file is read
through the same guarded input as `--data`, so whatever it is, it is read or refused in one line
naming the file (and the line or entry), exit code 2, at once and in bounded memory; no
traceback, nothing written. The pairs are real RUSpellRU pairs (tests/data/ruspellru)."""

from __future__ import annotations

import csv
import json
import os
import resource
import socket
import subprocess
import threading
from pathlib import Path

import pytest
from helpers import RUSPELLRU, cli_command, read_jsonl, run_cli

PAIRS = RUSPELLRU
OFFLINE = {"HF_HUB_OFFLINE": "1"}


def pairs(n: int = 12) -> list[dict[str, str]]:
    sources = (PAIRS / "sources.txt").read_text(encoding="utf-8").splitlines()[:n]
    corrections = (PAIRS / "corrections.txt").read_text(encoding="utf-8").splitlines()[:n]
    return [{"source": s, "correction": c} for s, c in zip(sources, corrections, strict=True)]


def jsonl_text(items: list) -> str:
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)


def write_csv(path: Path, items: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["source", "correction"])
        writer.writeheader()
        writer.writerows(items)
    return path


def write_parquet(path: Path, items: list[dict[str, str]]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(items), path)
    return path


def run_on(tmp: Path, spec: str, *, env: dict[str, str] | None = None, timeout: float = 30):
    """`run --model reference` on SAGE with `--data sage=SPEC`; a hang is a time-out, not a pass."""
    return run_cli("run", "--model", "reference", "--tasks", "sage", "--data", f"sage={spec}",
                   "--out", str(tmp / "out"), "--no-progress", env={"HF_HOME": str(tmp / "hf"), **(env or OFFLINE)},
                   timeout=timeout)


def assert_one_line(done: subprocess.CompletedProcess, tmp: Path, *said: str) -> None:
    """Exit 2, one line on stderr holding every piece of `said`, no traceback, nothing written."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    for piece in said:
        assert piece in lines[0], lines[0]
    assert not (tmp / "out").exists()


def answered_ids(tmp: Path) -> list[int]:
    return [record["id"] for record in read_jsonl(tmp / "out" / "samples_sage.jsonl")]


# -- p12: a parquet file that is not one, is damaged, or lacks the columns ----------------------

def csv_named_parquet(tmp: Path) -> Path:
    return write_csv(tmp / "x.parquet", pairs())


def damaged_parquet(tmp: Path) -> Path:
    path = write_parquet(tmp / "d.parquet", pairs())
    data = bytearray(path.read_bytes())
    data[8:-12] = bytes(b ^ 0x5A for b in data[8:-12])  # the magic bytes kept, all between scrambled
    path.write_bytes(bytes(data))
    return path


def parquet_of_other_columns(tmp: Path) -> Path:
    return write_parquet(tmp / "o.parquet", [{"text": p["source"], "label": p["correction"]} for p in pairs()])


@pytest.mark.parametrize(("make", "said"), [
    pytest.param(csv_named_parquet, "x.parquet: not a parquet file", id="a CSV named .parquet"),
    pytest.param(damaged_parquet, "d.parquet: not a parquet file, or a damaged one", id="damaged"),
    pytest.param(parquet_of_other_columns, "o.parquet: has no 'source' or 'correction' column (its columns: "
                 "'text', 'label')", id="without source and correction"),
])
def test_p12_a_parquet_that_cannot_give_pairs_is_one_line(tmp_path: Path, make, said: str) -> None:
    assert_one_line(run_on(tmp_path, f"spellcheck:{make(tmp_path)}"), tmp_path, said)


# -- p17: a FIFO, without and with a writer ------------------------------------------------------

def test_p17_a_fifo_no_process_writes_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)
    assert_one_line(run_on(tmp_path, f"spellcheck:{fifo}"), tmp_path,
                    f"{fifo}: is a pipe that no process writes to")


def test_p17_a_fifo_with_a_writer_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)

    def write() -> None:
        with fifo.open("w", encoding="utf-8") as fh:
            fh.write(jsonl_text(pairs()))

    threading.Thread(target=write, daemon=True).start()
    done = run_on(tmp_path, f"spellcheck:{fifo}")
    assert done.returncode == 0, done.stderr[-3000:]
    assert answered_ids(tmp_path) == list(range(len(pairs())))


# -- p19: a symlink to /dev/zero, in bounded memory -----------------------------------------------

def test_p19_a_symlink_to_dev_zero_is_one_line_in_bounded_memory(tmp_path: Path) -> None:
    link = tmp_path / "z.jsonl"
    link.symlink_to("/dev/zero")

    def limit_memory() -> None:  # the child may map 3 GiB: reading /dev/zero whole would pass it
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    done = subprocess.run(cli_command("run", "--model", "reference", "--tasks", "sage", "--data",
                                      f"sage=spellcheck:{link}", "--out", str(tmp_path / "out"), "--no-progress"),
                          capture_output=True, text=True, timeout=30, preexec_fn=limit_memory,
                          env=dict(os.environ, HF_HOME=str(tmp_path / "hf"), **OFFLINE))
    assert_one_line(done, tmp_path, f"{link}: is a device or socket, not a file")


# -- p22: the hub unreachable ---------------------------------------------------------------------

def a_closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_p22_an_unreachable_hub_is_one_line_within_seconds(tmp_path: Path) -> None:
    endpoint = f"http://127.0.0.1:{a_closed_port()}"
    done = run_on(tmp_path, "spellcheck:RUSpellRU", timeout=20,  # the hub client's retries take 26 s
                  env={"HF_HUB_OFFLINE": "0", "HF_DATASETS_OFFLINE": "0", "HF_ENDPOINT": endpoint})
    assert_one_line(done, tmp_path, f"--data sage=spellcheck:RUSpellRU: the hub ({endpoint}) is unreachable",
                    "--data sage=spellcheck:PATH")
    assert "Retry" not in done.stderr


# -- p25: entries that are not pairs (refused: ids 0, 1, 2, ... follow the entries) ---------------

@pytest.mark.parametrize(("name", "text", "said"), [
    pytest.param("pairs.json", json.dumps([1, "x", None, *pairs()], ensure_ascii=False),
                 "pairs.json: entry 0: not a pair (got a number: 1)", id="a JSON list"),
    pytest.param("pairs.json", json.dumps([*pairs(3), None, *pairs()[3:]], ensure_ascii=False),
                 "pairs.json: entry 3: not a pair (got null)", id="null among pairs"),
    pytest.param("pairs.jsonl", jsonl_text([*pairs(2), "x", *pairs()[2:]]),
                 'pairs.jsonl:3: not a pair (got a string: "x")', id="a JSONL line"),
])
def test_p25_an_entry_that_is_not_a_pair_is_named(tmp_path: Path, name: str, text: str, said: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert_one_line(run_on(tmp_path, f"spellcheck:{path}"), tmp_path, said)


# -- p28: a long CSV field -------------------------------------------------------------------------

def test_p28_a_csv_field_of_200000_characters_is_read(tmp_path: Path) -> None:
    long = {"source": ("превет как дила " * 12_500)[:200_000], "correction": "привет как дела"}
    path = write_csv(tmp_path / "pairs.csv", [*pairs(), long])
    done = run_on(tmp_path, f"spellcheck:{path}")
    assert done.returncode == 0, done.stderr[-3000:]
    assert answered_ids(tmp_path) == list(range(len(pairs()) + 1))
    from merabench.rows.spellcheck import load_spellcheck

    assert load_spellcheck(f"spellcheck:{path}").rows[-1].inputs["source"] == long["source"]


def test_p28_a_csv_field_past_the_cap_is_one_line_naming_file_and_line(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "pairs.csv", [*pairs(3), {"source": "ы" * (17 << 20), "correction": "ы"}])  # cap: 16 Mi
    assert_one_line(run_on(tmp_path, f"spellcheck:{path}"), tmp_path, f"{path}:5: not readable as CSV")


# -- not UTF-8 in a CSV or JSON file ----------------------------------------------------------------

@pytest.mark.parametrize("form", ["csv", "json"])  # JSONL lines were named so already
def test_bytes_that_are_not_utf8_are_named_by_file_and_line(tmp_path: Path, form: str) -> None:
    path = tmp_path / f"pairs.{form}"
    if form == "csv":
        write_csv(path, pairs(4))
    else:
        path.write_text(json.dumps(pairs(4), ensure_ascii=False, indent=1), encoding="utf-8")
    lines = path.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].decode("utf-8").encode("cp1251", "replace")  # one line saved by a Windows editor
    path.write_bytes(b"".join(lines))
    assert_one_line(run_on(tmp_path, f"spellcheck:{path}"), tmp_path, f"{path}:3: not UTF-8 text (byte 0x")


# -- SAGE pairs given as rows, without `spellcheck:` ----------------------------------------------

@pytest.mark.parametrize("form", ["csv", "parquet"])
def test_pairs_given_without_spellcheck_say_what_they_look_like(tmp_path: Path, form: str) -> None:
    path = (write_csv if form == "csv" else write_parquet)(tmp_path / f"pairs.{form}", pairs())
    looks = "looks like a CSV file (first line: 'source,correction')" if form == "csv" else "looks like a parquet file"
    assert_one_line(run_on(tmp_path, str(path)), tmp_path, f"{path}: {looks}, not MERA rows",
                    "--data takes JSONL rows", f"read with --data sage=spellcheck:{path}")
