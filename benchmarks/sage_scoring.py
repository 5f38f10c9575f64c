"""SAGE scoring speed (not a test), on one core.

    python benchmarks/sage_scoring.py

1. The 2,000 RUSpellRU pairs of tests/data (a copy of shared/data), hypothesis = source and hypothesis = correction,
   each pass in a fresh process (cold caches: every text tokenised and analysed for the first
   time), in examples/s; the same with a plain full-matrix ERRANT aligner swapped in, in the same
   process, as the baseline (the public reference with a light spaCy pipeline manages about
   200 examples/s on these pairs).
2. The time to score one text of 250 / 1,000 / 5,000 characters: dense edits (RUSpellRU
   sentences joined; their corrections drop most punctuation) and sparse edits (the corrections
   joined, with a typo planted every ~12 words), with the hypothesis = the source; and a full
   rewrite (the hypothesis an unrelated text of the same length: every token an edit).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "ruspellru"


def pin_one_core() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def load_pairs() -> list[tuple[str, str]]:
    sources = (DATA / "sources.txt").read_text(encoding="utf-8").splitlines()
    corrections = (DATA / "corrections.txt").read_text(encoding="utf-8").splitlines()
    return list(zip(sources, corrections, strict=True))


def one_pass(hypothesis: str, aligner: str) -> float:
    """Examples/s of one cold pass; runs in its own process."""
    pin_one_core()
    from merabench.tasks.sage import edits
    from merabench.tasks.sage.metrics import score_example

    if aligner == "plain":
        sys.path.insert(0, str(ROOT / "tests" / "tasks" / "sage"))
        from oracle import oracle_align

        edits.align_bounded = lambda orig, cor: (oracle_align(orig, cor), None)
    pairs = load_pairs()
    score_example("Превет, мир!", "Привет, мир!", "Превет, мир!")  # load the tokenizer and the dictionaries
    started = time.perf_counter()
    for source, correction in pairs:
        score_example(source, correction, source if hypothesis == "source" else correction)
    return len(pairs) / (time.perf_counter() - started)


def planted_typos(text: str, every: int) -> str:
    """Every `every`-th word of four letters or more gets two neighbouring letters swapped."""
    words = text.split(" ")
    for n in range(0, len(words), every):
        w = words[n]
        if len(w) >= 4 and w.isalpha():
            words[n] = w[0] + w[2] + w[1] + w[3:]
    return " ".join(words)


def curve() -> list[str]:
    pin_one_core()
    from merabench.tasks.sage.edits import extraction
    from merabench.tasks.sage.metrics import score_example

    pairs = load_pairs()
    lines = []
    for label in ("dense", "sparse", "rewrite"):
        for chars in (250, 1000, 5000):
            parts_s, parts_c, i = [], [], 0
            while sum(len(p) + 1 for p in parts_s) < chars:
                source, correction = pairs[i]
                if label == "sparse":  # a clean text with a typo every ~12 words
                    source = planted_typos(correction, 12)
                parts_s.append(source)
                parts_c.append(correction)
                i += 1
            source, correction = " ".join(parts_s), " ".join(parts_c)
            # the rewrite: the corrections of the pairs that follow, as long as the source
            rewrite = " ".join(c for _, c in pairs[i: i + 4 * len(parts_s)])[: len(source)]
            best = float("inf")
            for attempt in range(3):
                extraction.cache_clear()
                # a new string each attempt, so nothing is memoised
                hypothesis = (rewrite if label == "rewrite" else source) + " " * attempt
                started = time.perf_counter()
                score_example(source, correction, hypothesis)
                best = min(best, time.perf_counter() - started)
            lines.append(f"   {label:<6} {len(source):>5} characters: {best * 1000:6.1f} ms")
    return lines


def main() -> None:
    if len(sys.argv) > 1:  # a child process
        if sys.argv[1] == "pass":
            print(json.dumps(one_pass(sys.argv[2], sys.argv[3])))
        else:
            print("\n".join(curve()))
        return
    if not DATA.exists():
        sys.exit(f"needs {DATA}")

    def child(*args: str) -> str:
        return subprocess.run([sys.executable, __file__, *args], check=True, capture_output=True,
                              text=True).stdout.rstrip()

    print("1. 2,000 RUSpellRU pairs, one core, cold process per pass (best of 3 processes: this machine's")
    print("   speed varies by up to a third from run to run, for both aligners alike)")
    for hypothesis in ("source", "correction"):
        ours = max(float(child("pass", hypothesis, "fast")) for _ in range(3))
        plain = max(float(child("pass", hypothesis, "plain")) for _ in range(3))
        print(f"   hypothesis = {hypothesis:<10} merabench {ours:7.0f} ex/s   plain full-matrix aligner "
              f"{plain:6.0f} ex/s   ratio {ours / plain:4.1f}x   (goal >= 2,000 ex/s)")
    print("2. one text (goal: any text of 5,000 characters, however edited, under 0.3 s)")
    print(child("curve"))


if __name__ == "__main__":
    main()
