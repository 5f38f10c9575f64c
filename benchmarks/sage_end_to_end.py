"""SAGE scoring end to end against the reference scorer, each in a fresh process (not a test).

    python benchmarks/sage_end_to_end.py [--reference-cmd "CMD"] [--pairs 2000] [--runs 5] [--keep DIR]

The set: the 2,000 RUSpellRU pairs of tests/data, each hypothesis a realistic answer, built with a
fixed seed: a random part of the source's word-level corrections applied, plus 0-2 new errors (a
letter swapped, a comma added or dropped, е/ё exchanged, a capital flipped, a hyphen made a dash).

merabench: `merabench score sage --data rows.jsonl --predictions answers.jsonl --out DIR`, which
also computes the intervals and writes results.json, the samples and report.html. The reference:
CMD reading JSONL {"source", "reference", "hypothesis"} on stdin and writing one JSON score per
line (the team's peer in ../shared/peers/sage: `setup.sh` builds it; a user with the real spaCy
model points --reference-cmd at their own). Both are timed from process start to exit.

The machine may be shared, so the two run in alternating pairs (ours, then the reference, --runs
times) after one untimed run of each (files cached, bytecode written: the reference's packages
were compiled when pip installed them, so merabench runs without PYTHONDONTWRITEBYTECODE too).
The script prints each pair, the medians, the median of the pairs' ratios (the figure to quote:
a slow moment slows both sides of a pair alike) and how many rows agree to 1e-9 (both round
alike). --keep DIR keeps the set and merabench's results there, to compare metrics across versions.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import os
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "ruspellru"
# the team's shared folder sits beside the checkout, or beside the folder of worktrees
PEER = next((p / "shared" / "peers" / "sage" for p in ROOT.parents if (p / "shared" / "peers" / "sage").exists()),
            ROOT.parent / "shared" / "peers" / "sage")
INSTRUCTION = "Исправь ошибки в тексте.\n\nТекст:\n{source}"


def partial_correction(source: str, correction: str, rng: random.Random) -> str:
    """The source with a random subset of its word-level corrections applied."""
    a, b = source.split(" "), correction.split(" ")
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        out += b[j1:j2] if tag == "equal" or rng.random() < 0.6 else a[i1:i2]
    return " ".join(out)


def new_error(text: str, rng: random.Random) -> str:
    words = text.split(" ")
    i = rng.randrange(len(words))
    word = words[i]
    kind = rng.choice(["swap", "comma", "yo", "case", "dash"])
    if kind == "swap" and len(word) > 3:
        k = rng.randrange(len(word) - 1)
        word = word[:k] + word[k + 1] + word[k] + word[k + 2:]
    elif kind == "comma":
        word = word[:-1] if word.endswith(",") else word + ","
    elif kind == "yo":
        word = word.replace("е", "ё", 1) if "е" in word else word.replace("ё", "е", 1)
    elif kind == "case" and word:
        word = word[0].swapcase() + word[1:]
    elif kind == "dash":
        word = word.replace("-", "–", 1)
    words[i] = word
    return " ".join(words)


def build(n: int, folder: Path) -> tuple[Path, Path, Path]:
    sources = (DATA / "sources.txt").read_text(encoding="utf-8").splitlines()[:n]
    corrections = (DATA / "corrections.txt").read_text(encoding="utf-8").splitlines()[:n]
    rng = random.Random(14)
    rows, answers, pairs = [], [], []
    for i, (source, correction) in enumerate(zip(sources, corrections, strict=True)):
        hypothesis = partial_correction(source, correction, rng)
        for _ in range(rng.choice([0, 0, 1, 2])):
            hypothesis = new_error(hypothesis, rng)
        rows.append({"instruction": INSTRUCTION, "inputs": {"source": source}, "outputs": correction, "meta": {"id": i}})
        answers.append({"id": i, "output": hypothesis})
        pairs.append({"source": source, "reference": correction, "hypothesis": hypothesis})
    paths = folder / "rows.jsonl", folder / "answers.jsonl", folder / "pairs.jsonl"
    for path, lines in zip(paths, (rows, answers, pairs), strict=True):
        path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return paths


def timed(command: list[str], stdin: Path | None = None, stdout: Path | None = None) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with contextlib.ExitStack() as files:
        fin = files.enter_context(stdin.open("rb")) if stdin else subprocess.DEVNULL
        fout = files.enter_context(stdout.open("wb")) if stdout else subprocess.DEVNULL
        started = time.perf_counter()
        subprocess.run(command, stdin=fin, stdout=fout, stderr=subprocess.DEVNULL, check=True, env=env)
        return time.perf_counter() - started


def alternating(ours: list[str], theirs: list[str], pairs: Path, reference_out: Path, runs: int
                ) -> list[tuple[float, float]]:
    """(our time, the reference's time) for each of `runs` pairs, after one untimed run of each."""
    timed(ours)
    timed(theirs, pairs, reference_out)
    return [(timed(ours), timed(theirs, pairs, reference_out)) for _ in range(runs)]


def agreement(reference_out: Path, samples: Path) -> tuple[int, int]:
    """Rows whose spell_f1, punct_f1 and errant_f1 equal the reference's to 1e-9, and all rows."""
    theirs_scores = [json.loads(line) for line in reference_out.read_text().splitlines()]
    ours_scores = {r["id"]: r["metrics"] for r in map(json.loads, samples.read_text(encoding="utf-8").splitlines())}
    agree = sum(all(abs(ours_scores[i][k] - t[k]) <= 1e-9 for k in ("spell_f1", "punct_f1", "errant_f1"))
                for i, t in enumerate(theirs_scores))
    return agree, len(theirs_scores)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = f"/tmp/sagevenv/bin/python {PEER / 'score.py'}" if (PEER / "score.py").exists() else None
    parser.add_argument("--reference-cmd", default=default, help="the reference scorer's command (JSONL protocol)")
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="keep the set and merabench's results in this folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        rows, answers, pairs = build(args.pairs, folder)
        ours_cmd = [sys.executable, "-m", "merabench.cli.main", "score", "sage", "--data", str(rows), "--predictions",
                    str(answers), "--out", str(folder / "scored")]
        print(f"SAGE, {args.pairs} RUSpellRU pairs with realistic answers, process start to exit "
              "(merabench with intervals, results.json, samples and report.html)")
        if not args.reference_cmd:
            ours = statistics.median(timed(ours_cmd) for _ in range(args.runs + 1))
            print(f"  merabench score sage: median {ours:.2f} s ({args.pairs / ours:,.0f} examples/s)")
            print("  reference: not given (--reference-cmd); build ../shared/peers/sage/setup.sh or point at yours")
            return
        reference_out = folder / "reference.jsonl"
        times = alternating(ours_cmd, shlex.split(args.reference_cmd), pairs, reference_out, args.runs)
        for n, (ours, theirs) in enumerate(times, 1):
            print(f"  pair {n}: merabench {ours:6.2f} s   reference {theirs:6.2f} s   ratio {theirs / ours:5.1f}x")
        ours, theirs = (statistics.median(side) for side in zip(*times, strict=True))
        ratio = statistics.median(theirs / ours for ours, theirs in times)
        print(f"  medians: merabench {ours:.2f} s ({args.pairs / ours:,.0f} examples/s), reference {theirs:.2f} s")
        print(f"  median of the pairs' ratios {ratio:.1f}x   (goal >= 10x)")
        agree, total = agreement(reference_out, folder / "scored" / "samples_sage.jsonl")
        print(f"  rows with equal spell_f1, punct_f1 and errant_f1: {agree} of {total} "
              "(the peer's stand-in tags may differ from a real spaCy model on near-ties)")


if __name__ == "__main__":
    main()
